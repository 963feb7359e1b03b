"""End to end: what `sax sweep --json` says beyond the bests (docs/decisions.md) is what the results
file stores under /answer (read with h5py) and what `sax report` prints and draws from it. The
expected text is formatted here from the JSON numbers, not by sax's report code. Run twice: with the
oblivious sweep and with --no-oblivious (no /answer/oblivious, no oblivious lines, the rest intact).

usage: check_report_answer.py SAX CONFIG.json WORKDIR
Exit 0 = all checks hold, 1 = a check failed, 77 = h5py missing (CTest skip).
"""
import json
import math
import os
import subprocess
import sys

try:
    import h5py
except ImportError as exc:  # pragma: no cover
    print(f"skipping: {exc}")
    sys.exit(77)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def contains(text, want, where):
    check(want in text, f"{where} lacks {want!r}")


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"{' '.join(args)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def close(a, b):
    return a == b or (math.isfinite(a) and abs(a - b) <= 1e-12 * abs(b))


def check_file(f, d, oblivious):
    """/answer against the JSON summary of the same sweep."""
    a = f["answer"]
    scen = d["scenarios"]
    names = [text(n) for n in f["space/baselines"]["name"]]
    check(("oblivious" in a) == oblivious, "/answer/oblivious present exactly when the oblivious sweep ran")
    ties, ll = a["ties"][:], a["best_lossless"][:]
    att = a["attribution"][:]
    check(len(ties) == len(scen) and len(ll) == len(scen), "one /answer row per scenario")
    for i, s in enumerate(scen):
        t = s["ties"]
        check(int(ties[i]["tied"]) == t["count"] and bool(ties[i]["at_least"]) == t["at_least"], f"ties {i}")
        check(text(ties[i]["differ_in"]) == ",".join(t["differ_in"]), f"ties {i} differ_in")
        check(int(ties[i]["index"]) == t["simplest"]["index"], f"ties {i} simplest")
        check(bool(ll[i]["lossy"]) == s["best_lossy"] and bool(ll[i]["noop"]) == s["compression_noop"],
              f"best_lossless {i} flags")
        want = s["best_lossless"]["index"] if s["best_lossless"] else -1
        check(int(ll[i]["index"]) == want, f"best_lossless {i} index")
        if want >= 0:
            check(close(float(ll[i]["iteration_time_s"]), s["best_lossless"]["iteration_time_s"]),
                  f"best_lossless {i} time")
        if oblivious:
            o, ob = a["oblivious"][i], s["oblivious"]
            check(bool(o["found"]) and int(o["index"]) == ob["index"], f"oblivious {i} index")
            check(close(float(o["merged_time_s"]), ob["merged_time_s"]), f"oblivious {i} merged time")
            check(close(float(o["iteration_time_s"]), ob["iteration_time_s"]), f"oblivious {i} real time")
        for b, (name, bl) in enumerate(s["baselines"].items()):
            row = att[i * len(names) + b]
            check(int(row["scenario"]) == i and names[int(row["baseline"])] == name, f"attribution {i} {name} key")
            if bl is None or bl["attribution"] is None:
                check(not row["valid"], f"attribution {i} {name} invalid")
                continue
            at = bl["attribution"]
            check(bool(row["valid"]) and int(row["orders"]) == at["orders"], f"attribution {i} {name} orders")
            for g in ("placement", "scheduling", "network"):
                check(close(float(row[g]), at[g]), f"attribution {i} {name} {g}")
    rb, r = d["robust"], a["robust"][0]
    check(bool(r["found"]) and bool(r["exact"]) == rb["exact"], "robust found/exact")
    check(close(float(r["worst_regret"]), rb["worst_regret"]), "robust worst regret")
    check(int(r["candidates"]) == rb["candidates"] and int(r["within_5pct"]) == rb["within_5pct"]["count"],
          "robust counts")
    check(all(close(float(x), y) for x, y in zip(a["robust_regret"][:], rb["regret"])), "robust regret")
    near = a["robust_within_5pct"][:]
    check([float(x) for x in near["worst_regret"]] == [c["worst_regret"] for c in rb["within_5pct"]["least_regret"]],
          "robust within 5 %")


def check_report(out, svg_dir, d, oblivious):
    """The report's answer sections, formatted from the JSON."""
    where = "sax report"
    for i, s in enumerate(d["scenarios"]):
        t, best = s["ties"], s["best"]
        if t["count"] >= 2:
            keys = ", ".join(f"{k} {{{', '.join(v)}}}" for k, v in t["differ_in"].items())
            contains(out, f"  tied: {'at least ' if t['at_least'] else ''}{t['count']} candidates with the same "
                          f"time, differing only in {keys}\n", where)
            contains(out, f"the simplest of them (candidate {t['simplest']['index']};", where)
        if s["best_lossy"] and not s["compression_noop"] and s["best_lossless"]:
            bl = s["best_lossless"]
            contains(out, f"best lossless (the best is lossy, compression {best['network']['compression']}): "
                          f"{bl['iteration_time_s']:.4f} s, {100 * bl['slower_by']:+.2f} % "
                          f"(candidate {bl['index']})", where)
        for name, bl in s["baselines"].items():
            at = bl and bl["attribution"]
            if at:
                want = (f"speedup = placement {at['placement']:.3f}x x scheduling {at['scheduling']:.3f}x x "
                        f"network {at['network']:.3f}x")
                contains(out, want + ("\n" if at["orders"] == 6 else f" ({at['orders']} of 6 orders"), where)
                svg = open(os.path.join(svg_dir, f"attribution-s{i}.svg")).read()
                for g in ("placement", "scheduling", "network"):
                    if at[g] != 1:
                        contains(svg, f"{name}: {g} {at[g]:.3f}x", f"attribution-s{i}.svg")
                contains(svg, f"{bl['speedup']:.3f}x", f"attribution-s{i}.svg")
        ob = s.get("oblivious")
        if oblivious:
            contains(out, f"network-oblivious pick (sites merged into one; candidate {ob['index']}): predicted "
                          f"{ob['merged_time_s']:.4f} s on the merged network, {ob['iteration_time_s']:.4f} s on "
                          f"the real network: the best is {ob['speedup']:.3f}x faster", where)
        else:
            check(ob is None, "--json without the oblivious sweep has no oblivious pick")
    if not oblivious:
        check("network-oblivious pick" not in out, "no oblivious pick reported after --no-oblivious")
    rb = d["robust"]
    ns = len(d["scenarios"])
    contains(out, f"\nRobust over the {ns} scenarios (least worst regret = time / scenario's best - 1, among "
                  f"{rb['candidates']} candidates; "
                  f"{'optimal over the whole space' if rb['exact'] else 'not proven optimal'}", where)
    contains(out, f"  worst regret {100 * rb['worst_regret']:.2f} %; per scenario: "
                  f"{' '.join(f'{100 * r:.2f}' for r in rb['regret'])} %\n", where)
    contains(out, f"  within 5 % of the best in every scenario: {rb['within_5pct']['count']} of the "
                  f"{rb['candidates']} candidates compared\n", where)
    for c in rb["within_5pct"]["least_regret"]:
        contains(out, f"    {100 * c['worst_regret']:5.2f} %  tp={c['parallelism']['tp']} pp={c['parallelism']['pp']} ",
                 where)
    svg = open(os.path.join(svg_dir, "robust-regret.svg")).read()
    for i, r in enumerate(rb["regret"]):
        contains(svg, f"scenario {i} (", "robust-regret.svg")
        contains(svg, f"regret {100 * r:.2f} %", "robust-regret.svg")


def main(sax, config, work):
    os.makedirs(work, exist_ok=True)
    with open(config) as f:
        cfg = json.load(f)
    # a smaller space of the contract's sweep (as tests/comm/decisions_cli.sh): seconds, not minutes
    cfg["space"].update({"tp": [2, 4, 8], "pp": [4, 8], "vpp": [1, 2], "zero": [1],
                         "recompute": ["selective", "full"], "schedule": ["1f1b", "interleaved"],
                         "transport": ["roce-sr", "tcp"], "connections": [1, 4]})
    small = os.path.join(work, "small.json")
    with open(small, "w") as f:
        json.dump(cfg, f)
    for oblivious in (True, False):
        tag = "with" if oblivious else "without"
        h5 = os.path.join(work, f"answer-{tag}.h5")
        svg_dir = os.path.join(work, f"plots-{tag}")
        extra = [] if oblivious else ["--no-oblivious"]
        out = run([sax, "sweep", small, "-o", h5, "--force", "--json"] + extra)
        if failures:
            break
        d = json.loads(out)
        with h5py.File(h5, "r") as f:
            check_file(f, d, oblivious)
        report = run([sax, "report", h5, "--svg-dir", svg_dir])
        if not failures:
            check_report(report, svg_dir, d, oblivious)
        run([sax, "pareto", h5])
    for x in failures:
        print("FAILED:", x)
    if not failures:
        print("ok: /answer and sax report agree with sax sweep --json, with and without --no-oblivious")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
