#!/bin/bash
# decisions_cli.sh SAX MPIEXEC CONFIG - what `sax sweep --json` says beyond the bests, recomputed
# independently from every stored row (/rows, read with h5py): the robust candidate (least worst
# regret over the scenarios, by brute force over all settings), each baseline's attribution (the
# mixes looked up among the rows by their key values, Shapley values by the subset formula), and the
# network-oblivious pick (its real time is the best over its network settings, never faster than
# the best), the best lossless candidate, the ties and their simplest; the same answer on 2 ranks;
# and why a space where nothing runs has no feasible candidate.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
MPIEXEC=$2
CONFIG=$3
work=$(mktemp -d /tmp/sax-decisions.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# a smaller space of the contract's sweep: 6144 candidates in each of its 4 scenarios
"$PY" - "$CONFIG" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["space"].update({"tp": [2, 4, 8], "pp": [4, 8], "vpp": [1, 2], "zero": [1], "recompute": ["selective", "full"],
                   "schedule": ["1f1b", "interleaved"], "transport": ["roce-sr", "tcp"], "connections": [1, 4]})
json.dump(d, open("small.json", "w"))
PYEOF

"$SAX" sweep small.json -o one.h5 --store all --top 100000 --json > one.json 2> one.err
check "sweep exits 0" test $? -eq 0
"$PY" - one.json one.h5 <<'PYEOF'
import itertools, json, math, sys
import h5py
d = json.load(open(sys.argv[1]))
rows = h5py.File(sys.argv[2], "r")["rows"][:]
KEYS = ["tp", "pp", "dp", "cp", "ep", "vpp", "micro_batch", "schedule", "recompute", "sequence_parallel", "zero",
        "order", "layer_split", "transport", "connections", "channels", "buffer_size", "p2p_chunk_size",
        "p2p_channels", "algorithm", "compression"]
GROUPS = {"placement": ["tp", "pp", "dp", "cp", "ep", "order"],
          "scheduling": ["vpp", "micro_batch", "schedule", "recompute", "sequence_parallel", "zero", "layer_split"]}
GROUPS["network"] = [k for k in KEYS if k not in GROUPS["placement"] + GROUPS["scheduling"]]
NAMES = ["placement", "scheduling", "network"]
ns = len(d["scenarios"])
per = d["candidates"] // ns
t = [dict() for _ in range(ns)]          # scenario -> local index -> time (feasible rows only)
by_index, by_keys = {}, {}
for r in rows:
    i, sc = int(r["index"]), int(r["scenario"])
    by_index[i] = r
    if r["feasible"]:
        t[sc][i % per] = float(r["iteration_time_s"])
        by_keys[(sc, tuple(int(r[k]) for k in KEYS))] = float(r["iteration_time_s"])
def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * abs(b)

# robust: brute force over every setting
best = [min(x.values()) for x in t]
def regrets(local):
    return [t[sc].get(local, math.inf) / best[sc] - 1 for sc in range(ns)]
want = min(max(regrets(l)) for l in range(per))
rb = d["robust"]
assert rb["exact"] is True, rb
assert close(rb["worst_regret"], want), (rb["worst_regret"], want)
assert any(all(close(a, b, 1e-9) or a == b for a, b in zip(regrets(l), rb["regret"])) for l in range(per)), rb
assert want > 0, "the scenarios agree: a weak test"
worst_all = sorted(max(regrets(l)) for l in range(per))
near = [w for w in worst_all if w <= 0.05]
assert rb["within_5pct"]["count"] == len(near), (rb["within_5pct"]["count"], len(near))
got = [c["worst_regret"] for c in rb["within_5pct"]["least_regret"]]
assert len(got) == min(5, len(near)) and all(close(a, b) or a == b for a, b in zip(got, near)), (got, near[:5])

# attribution: Shapley values of log time by the subset formula (orders through an infeasible mix left out)
checked = 0
for s in d["scenarios"]:
    sc = s["index"]
    bst = by_index[s["best"]["index"]]
    for name, bl in s["baselines"].items():
        base = by_index[bl["index"]]
        def mix(bits):
            return tuple(int((bst if any((bits >> g) & 1 and k in GROUPS[NAMES[g]] for g in range(3)) else base)[k])
                         for k in KEYS)
        v = {bits: math.log(by_keys.get((sc, mix(bits)), math.inf)) for bits in range(8)}
        if all(math.isfinite(x) for x in v.values()):
            want = {}
            for g in range(3):
                phi = 0.0
                for bits in range(8):
                    if not (bits >> g) & 1:
                        n = bin(bits).count("1")
                        w = math.factorial(n) * math.factorial(2 - n) / 6
                        phi += w * (v[bits] - v[bits | 1 << g])
                want[NAMES[g]] = math.exp(phi)
        else:
            sums, used = [0.0] * 3, 0
            for order in itertools.permutations(range(3)):
                bits, steps = 0, [0.0] * 3
                for g in order:
                    steps[g] = v[bits] - v[bits | 1 << g]
                    bits |= 1 << g
                if all(math.isfinite(x) for x in steps):
                    used += 1
                    sums = [a + b for a, b in zip(sums, steps)]
            want = {NAMES[g]: math.exp(sums[g] / used) for g in range(3)} if used else None
        at = bl["attribution"]
        if want is None:
            assert at is None, at
            continue
        for g in NAMES:
            assert close(at[g], want[g]), (sc, name, g, at[g], want[g])
        assert close(at["placement"] * at["scheduling"] * at["network"], bl["speedup"])
        checked += 1
assert checked > 0

# oblivious: its real time is the best over its own placement and schedule with any network settings
for s in d["scenarios"]:
    ob = s["oblivious"]
    sc = s["index"]
    r = by_index[ob["index"]]
    assert close(float(r["iteration_time_s"]), ob["iteration_time_s"])
    fixed = GROUPS["placement"] + GROUPS["scheduling"]
    same = [float(x["iteration_time_s"]) for x in rows if int(x["scenario"]) == sc and x["feasible"]
            and all(int(x[k]) == int(r[k]) for k in fixed)]
    assert close(min(same), ob["iteration_time_s"]), (min(same), ob)
    assert ob["speedup"] >= 1 - 1e-12 and close(ob["speedup"], ob["iteration_time_s"] / s["best"]["iteration_time_s"])
# the best lossless: the fastest row that compresses nothing (compression code 0), beside a lossy best
for s in d["scenarios"]:
    sc = s["index"]
    lossless = min(t for (c, k), t in by_keys.items() if c == sc and k[KEYS.index("compression")] == 0)
    assert s["best_lossy"] == (s["best"]["network"]["compression"] != "none"), s
    assert close(s["best_lossless"]["iteration_time_s"], lossless), (s["best_lossless"], lossless)
    assert s["best_lossless"]["network"]["compression"] == "none"
# ties: every row within 1e-12 of the best; the keys that differ among them; the simplest by the
# documented preference (no compression, tcp < roce-sr < roce-gbn < roce, fewer cross-site bytes, fewer
# connections, channels, p2p channels, lower index)
RISK = {3: 0, 2: 1, 1: 2, 0: 3}  # transport codes roce, roce-gbn, roce-sr, tcp
ties_seen = 0
for s in d["scenarios"]:
    sc, tb = s["index"], s["best"]["iteration_time_s"]
    tied = [r for r in rows if int(r["scenario"]) == sc and r["feasible"] and r["iteration_time_s"] <= tb * (1 + 1e-12)]
    ti = s["ties"]
    assert ti["count"] == len(tied) and ti["at_least"] is False, (ti, len(tied))
    differ = sorted(k for k in KEYS if len({int(r[k]) for r in tied}) > 1)
    assert sorted(ti["differ_in"]) == differ, (ti["differ_in"], differ)
    simplest = min(tied, key=lambda r: (int(r["compression"]) != 0, RISK[int(r["transport"])],
                                        float(r["cross_site_bytes_per_iteration"]), int(r["connections"]),
                                        int(r["channels"]), int(r["p2p_channels"]), int(r["index"])))
    assert ti["simplest"]["index"] == int(simplest["index"]), (ti["simplest"]["index"], int(simplest["index"]))
    ties_seen += len(tied) > 1
print("decisions: robust %.4f, %d attributions, %d oblivious picks, %d ties checked" % (rb["worst_regret"], checked, ns, ties_seen))
PYEOF
check "robust, attribution and oblivious agree with the rows" test $? -eq 0

"$MPIEXEC" -n 2 "$SAX" sweep small.json -o two.h5 --top 100000 --json > two.json 2> two.err
check "sweep on 2 ranks exits 0" test $? -eq 0
"$PY" - one.json two.json <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["robust"] == b["robust"], (a["robust"], b["robust"])
for x, y in zip(a["scenarios"], b["scenarios"]):
    for k in ("best", "oblivious", "baselines", "ties", "best_lossless", "best_lossy", "compression_noop"):
        assert x[k] == y[k], (k, x[k], y[k])
PYEOF
check "2 ranks give the same answer" test $? -eq 0
# a space where nothing can run (lossless RoCE only, over links too long for its PFC headroom): each
# scenario says why, and the reasons add up to the sweep's own counts
"$PY" - small.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["space"]["transport"] = ["roce"]
json.dump(d, open("none.json", "w"))
PYEOF
"$SAX" sweep none.json -o none.h5 --json --no-oblivious > none.json.out 2> none.err
check "a sweep with nothing feasible exits 0" test $? -eq 0
"$PY" - none.json.out <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ns = len(d["scenarios"])
skipped, infeasible = {}, {}
for s in d["scenarios"]:
    assert s["best"] is None, s["best"]
    w = s["why_none"]
    assert w["complete"] and w["candidates"] == d["candidates"] // ns, w
    assert w["not_evaluated"] == 0 and sum(w["skipped"].values()) + w["evaluated"] == w["candidates"], w
    for k, v in w["skipped"].items():
        skipped[k] = skipped.get(k, 0) + v
    for k, v in w["infeasible"].items():
        infeasible[k] = infeasible.get(k, 0) + v
assert skipped == {k: v for k, v in d["skipped_by"].items() if v}, (skipped, d["skipped_by"])
assert infeasible == {k: v for k, v in d["infeasible"].items() if v}, (infeasible, d["infeasible"])
assert list(infeasible) == ["lossless_distance"], infeasible
PYEOF
check "each scenario says why nothing is feasible, adding up to the sweep's counts" test $? -eq 0
"$SAX" sweep none.json -o none2.h5 --no-oblivious > none.txt 2> none.err
check "... and the text says it" grep -q "no feasible candidate: of .* candidates, .* never valid" none.txt
check_summary decisions_cli
