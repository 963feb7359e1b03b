#!/usr/bin/python3
"""eval_trace.py SAX EXAMPLES WORKDIR - `sax eval --trace` covers the whole iteration.

For each configuration (the examples without "space", made feasible where they are not by the named
changes; a DualPipe MoE job; other schedules) it runs `sax eval CONFIG --json` and
`sax eval CONFIG --trace T.json` and checks, against the --json output and the configuration only:
valid JSON; every pid and (pid, tid) with slices has process_name / thread_name metadata; no two
slices on one (pid, tid) overlap; the latest slice ends at iteration_time_s (1e-6 relative); per
site link, its slices' durations sum to that link's busy_s (1e-6 relative); every pipeline stage
(parallelism.pp of the configuration) has a named track "stage S" with slices; the pipeline's events
are simulated for every schedule (DualPipe's too: both directions, chunks 0 and 1, on every stage).
"""
import json
import os
import subprocess
import sys

sax, examples, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
SR = {"network.transport": "roce-sr"}  # lossless RoCE is refused over these distances
CASES = [
    ("two-sites-collectives", {}),
    ("hetero-h100-b200", SR),
    ("campus-3bldg-llama405b", {**SR, "parallelism.recompute": "full"}),
    ("regions-2-llama405b", {**SR, "parallelism.recompute": "full"}),
    ("regions-2-llama405b", {**SR, "parallelism.recompute": "full", "parallelism.order": ["tp", "cp", "dp", "pp"]}),
    ("regions-2-llama405b", {**SR, "parallelism.recompute": "full", "parallelism.schedule": "zb-h1"}),
    ("regions-2-llama405b", {**SR, "parallelism.recompute": "full", "parallelism.schedule": "gpipe"}),
    ("hetero-h100-b200", {**SR, "parallelism.schedule": "interleaved", "parallelism.vpp": 2}),
    ("campus-3bldg-llama405b", {**SR, "parallelism.recompute": "full", "parallelism.zero": 3}),
    ("moe-2bldg-deepseekv3", {**SR, "parallelism.recompute": "full"}),  # dualpipe
    ("moe-2bldg-deepseekv3", {**SR, "parallelism.recompute": "full", "parallelism.zero": 3}),
    ("moe-2bldg-deepseekv3", {**SR, "parallelism.recompute": "full", "parallelism.schedule": "1f1b"}),
    # the pipeline across regions 50 ms apart: transfers outlast the events, so they overlap in time
    ("regions-2-llama405b", {**SR, "parallelism.recompute": "full", "parallelism.order": ["tp", "cp", "dp", "pp"],
                             "cluster.site_links": "50 ms"}),
]
fail = 0


def check(what, ok, detail=""):
    global fail
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else ": " + str(detail)))
    fail |= not ok


def rel(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-12)


for i, (name, changes) in enumerate(CASES):
    cfg = json.load(open(os.path.join(examples, name + ".json")))
    cfg.pop("space", None)
    for k, v in changes.items():
        sec, key = k.split(".")
        if key == "site_links":  # the first link's latency
            cfg[sec][key][0]["latency"] = v
        else:
            cfg[sec][key] = v
    label = f"{name} {changes}"
    path = os.path.join(work, f"case{i}.json")
    tpath = os.path.join(work, f"case{i}.trace.json")
    json.dump(cfg, open(path, "w"))
    ev = subprocess.run([sax, "eval", path, "--json"], capture_output=True, text=True)
    r = json.loads(ev.stdout)
    if not r["feasible"]:
        check(f"{label}: feasible", False, r["infeasible_reason"])
        continue
    tr = subprocess.run([sax, "eval", path, "--trace", tpath], capture_output=True, text=True)
    check(f"{label}: --trace exits 0", tr.returncode == 0, tr.stderr)
    if tr.returncode != 0:
        continue
    try:
        t = json.load(open(tpath))
    except ValueError as e:
        check(f"{label}: valid JSON", False, e)
        continue
    events = t["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    pnames = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    tnames = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    used = {(e["pid"], e["tid"]) for e in slices}
    check(f"{label}: every process named", all(p in pnames for p, _ in used), sorted(used - set(tnames))[:5])
    check(f"{label}: every track named", used <= set(tnames), sorted(used - set(tnames))[:5])
    tracks = {}
    for e in slices:
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    overlaps = []
    for k, v in tracks.items():
        v.sort()
        for a, b in zip(v, v[1:]):
            if b[0] < a[1] - 5e-4:  # half a nanosecond (microseconds, written to the picosecond)
                overlaps.append((tnames.get(k), a, b))
    check(f"{label}: no overlapping slices on a track", not overlaps, overlaps[:3])
    last = max(e[1] for v in tracks.values() for e in v) * 1e-6
    check(f"{label}: last slice ends at iteration_time_s", rel(last, r["iteration_time_s"]),
          (last, r["iteration_time_s"]))
    link_pids = {p: n for p, n in pnames.items() if n.startswith("site link ")}
    for li, link in enumerate(r["site_links"]):
        want = f"site link {link['between'][0]} - {link['between'][1]}"
        pids = [p for p, n in link_pids.items() if n.startswith(want)]
        got = sum(e["dur"] for e in slices if e["pid"] in pids) * 1e-6
        check(f"{label}: link {want}: slices sum to busy_s", len(pids) == 1 and rel(got, link["busy_s"]),
              (got, link["busy_s"]))
    pp = cfg["parallelism"]["pp"]
    staged = {n for k, n in tnames.items() if k in used}
    missing = [s for s in range(pp) if f"stage {s}" not in staged]
    check(f"{label}: every stage has a track with slices", not missing, missing[:5])
    check(f"{label}: pipeline events simulated", t["otherData"]["pipeline_events"] == "simulated",
          t["otherData"]["pipeline_events"])
    if cfg["parallelism"]["schedule"] == "dualpipe":
        chunks = {}
        for e in slices:
            if e.get("cat") in ("forward", "backward"):
                chunks.setdefault(tnames.get((e["pid"], e["tid"])), set()).add(e["args"]["chunk"])
        odd = {k: v for k, v in chunks.items() if v != {0, 1}}
        check(f"{label}: every stage runs both directions", len(chunks) == pp and not odd, odd)
sys.exit(fail)
