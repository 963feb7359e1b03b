"""End to end: `sax sweep --store all` at 1 and 2 ranks on a small embedded configuration, then
checks with h5py that the two files hold identical datasets, and that the sweep's reductions agree
with its own stored rows (recomputed here with numpy, independently of sax): the best per
scenario, the top K, the baselines' best, the counts, and that /pareto contains the
two-objective front of the rows. Finally `sax report` and `sax pareto` run on the file.

usage: check_sweep_results.py SAX MPIEXEC WORKDIR
Exit 0 = all checks hold, 1 = a check failed, 77 = h5py missing (CTest skip).
"""
import json
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError as exc:  # pragma: no cover
    print(f"skipping: {exc}")
    sys.exit(77)

CONFIG = {
    "model": {"name": "gpt3-175b", "layers": 96, "hidden": 12288, "ffn_hidden": 49152, "heads": 96,
              "kv_heads": 96, "vocab": 51200, "seq_len": 2048, "ffn_act": "gelu", "experts": 0, "top_k": 0,
              "expert_ffn_hidden": 0, "shared_experts": 0, "dense_layers": 0},
    "training": {"global_batch": 1536, "precision": "bf16"},
    "cluster": {
        "gpu": {"name": "A100", "peak_flops": "312 TFLOP/s", "hbm": "80 GiB", "hbm_bandwidth": "2.0 TB/s"},
        "scale_up": {"size": 8, "bandwidth": "300 GB/s", "latency": "3 us"},
        "tiers": [{"name": "pod", "gpus": 3072, "bandwidth": "25 GB/s", "latency": "10 us", "oversubscription": 1},
                  {"name": "building", "gpus": 24576, "bandwidth": "25 GB/s", "latency": "20 us",
                   "oversubscription": 7}],
        "sites": [{"name": "A", "gpus": 1024}, {"name": "B", "gpus": 1024}],
        "site_links": [{"between": ["A", "B"], "bandwidth": "40 Tbit/s", "latency": "1 ms", "loss": 1e-6}]},
    "parallelism": {"tp": 8, "pp": 16, "dp": 16, "cp": 1, "ep": 1, "vpp": 1, "micro_batch": 1, "schedule": "1f1b",
                    "recompute": "full", "sequence_parallel": False, "zero": 1, "order": ["tp", "cp", "pp", "dp"]},
    "network": {"transport": "roce", "connections": 1, "algorithm": "ring", "compression": "none"},
    "space": {
        "tp": [2, 4, 8], "pp": [4, 8, 16], "dp": ["auto"], "vpp": [1, 2], "schedule": ["1f1b", "interleaved"],
        "recompute": ["selective", "full"], "order": [["tp", "cp", "pp", "dp"], ["tp", "cp", "dp", "pp"]],
        "transport": ["roce-sr", "tcp"], "connections": [1, 4], "algorithm": ["ring", "hierarchical"],
        "compression": ["none", "fp8"],
        "scenarios": {"site_links[0].bandwidth": ["4 Tbit/s", "40 Tbit/s", "400 Tbit/s"]},
        "baselines": {"production": {"order": ["tp", "cp", "pp", "dp"], "schedule": "1f1b", "connections": 1,
                                     "algorithm": "ring"}}}}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(args, env=None):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
    if p.returncode != 0:
        failures.append(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p


def datasets(f):
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    return sorted(names)


def main(sax, mpiexec, work):
    os.makedirs(work, exist_ok=True)
    cfg = os.path.join(work, "small-sweep.json")
    with open(cfg, "w") as f:
        json.dump(CONFIG, f)
    paths = {}
    for n in (1, 2):
        paths[n] = os.path.join(work, f"small-np{n}.h5")
        run([mpiexec, "-n", str(n), sax, "sweep", cfg, "-o", paths[n], "--store", "all", "--force"])
    if failures:
        return report()
    a, b = h5py.File(paths[1], "r"), h5py.File(paths[2], "r")

    # identical datasets whatever the number of ranks
    check(datasets(a) == datasets(b), "the same datasets at 1 and 2 ranks")
    for name in datasets(a):
        check(a[name].dtype == b[name].dtype and np.array_equal(a[name][()], b[name][()]),
              f"/{name} differs between 1 and 2 ranks")
    check(int(a.attrs["ranks"]) == 1 and int(b.attrs["ranks"]) == 2, "ranks attribute")
    for attr in ("evaluated", "feasible", "infeasible", "skipped"):
        check(int(a.attrs[attr]) == int(b.attrs[attr]), f"attribute {attr} differs")

    rows = a["rows"][:]
    ev = int(a.attrs["evaluated"])
    check(len(rows) == ev, f"--store all: {len(rows)} rows for {ev} evaluated candidates")
    check(int(a.attrs["feasible"]) == int(rows["feasible"].sum()), "feasible count = feasible rows")
    counts = {int(x["reason"]): int(x["count"]) for x in a["infeasible"][:]}
    check(sum(counts.values()) == ev, "infeasible counts add up to evaluated")
    reasons = np.bincount(rows["reason"].astype(int), minlength=len(counts))
    check(all(counts[r] == reasons[r] for r in counts), "infeasible counts = reasons of the rows")
    order = np.lexsort((rows["index"], rows["scenario"]))
    check((order == np.arange(len(rows))).all(), "rows sorted by (scenario, index)")

    n_scen = int(a.attrs["n_scenarios"])
    best, top, pareto = a["best"][:], a["top"][:], a["pareto"][:]
    bl = a["baseline_best"][:]
    k = int(a.attrs["top_k"])
    prod = h5py.check_enum_dtype(a["rows"].dtype["order"])["tp-cp-pp-dp"]
    sched = h5py.check_enum_dtype(a["rows"].dtype["schedule"])["1f1b"]
    for s in range(n_scen):
        r = rows[(rows["scenario"] == s) & rows["feasible"]]
        t = r["iteration_time_s"]
        # best: the minimum time, ties to the lower index
        i = np.lexsort((r["index"], t))
        check(int(best[s]["index"]) == int(r[i[0]]["index"]), f"best of scenario {s}")
        ts = top[top["scenario"] == s]
        check(list(ts["index"]) == [int(x) for x in r[i[:k]]["index"]], f"top {k} of scenario {s}")
        # the production baseline: order tp-cp-pp-dp, 1f1b, 1 connection, ring
        ring = h5py.check_enum_dtype(a["rows"].dtype["algorithm"])["ring"]
        m = (r["order"] == prod) & (r["schedule"] == sched) & (r["connections"] == 1) & (r["algorithm"] == ring)
        if m.any():
            j = np.lexsort((r[m]["index"], r[m]["iteration_time_s"]))
            check(int(bl[s]["index"]) == int(r[m][j[0]]["index"]), f"production baseline of scenario {s}")
            check(bl[s]["iteration_time_s"] >= best[s]["iteration_time_s"], "a baseline is never faster")
        # /pareto holds the two-objective front of the rows (whatever further objectives it has)
        x = r["cross_site_bytes_per_iteration"]
        front = set()
        order2 = np.lexsort((x, t))
        best_x = np.inf
        for q in order2:
            if x[q] < best_x:
                front.add((float(t[q]), float(x[q])))
                best_x = x[q]
        ps = pareto[pareto["scenario"] == s]
        have = {(float(p["iteration_time_s"]), float(p["cross_site_bytes_per_iteration"])) for p in ps}
        check(front <= have, f"/pareto of scenario {s} lacks points of the (time, traffic) front")

    plots = os.path.join(work, "small-plots")
    p = run([sax, "report", paths[2], "--svg-dir", plots])
    check("speedup" in p.stdout and os.path.exists(os.path.join(plots, "scenario-var0.svg")), "sax report")
    p = run([sax, "pareto", paths[2], "--csv", os.path.join(work, "small-front.csv")])
    check("the front is exact" not in p.stdout and "Scenario 2" in p.stdout, "sax pareto on stored rows")
    return report()


def report():
    for f in failures:
        print("FAILED:", f)
    if not failures:
        print("ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
