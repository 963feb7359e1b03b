#!/usr/bin/env bash
# validate_cli.sh SAX DATASET - `sax validate --json` per family: the families of the dataset file in
# order of first appearance, each with its case count (counted here from the file) and the mean and
# max of its cases' |error_pct| and the mean of their signed error_pct (the bias), and the bias over all;
# each case's GPUs (tp x pp x dp x cp of its file), and the same figures per job size (up to 8, 9-64,
# 65-512, 513-4096, more GPUs), the empty sizes left out.
set -u
sax=$1
data=$2
out=$("$sax" validate "$data" --json) || { echo "FAIL: exit $?"; exit 1; }
python3 - "$data" "$out" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
d = json.loads(sys.argv[2])
order = []
for c in cases:
    f = c.get("family", "")
    if f not in order:
        order.append(f)
fams = d["families"]
assert [f["family"] for f in fams] == order, (order, fams)
for f in fams:
    rows = [r for r in d["cases"] if r["family"] == f["family"]]
    assert f["cases"] == sum(1 for c in cases if c.get("family", "") == f["family"]) == len(rows)
    errs = [abs(r["error_pct"]) for r in rows if r["feasible"]]
    assert abs(f["mean_abs_error_pct"] - sum(errs) / len(errs)) < 1e-9
    assert abs(f["max_abs_error_pct"] - max(errs)) < 1e-12
    signed = [r["error_pct"] for r in rows if r["feasible"]]
    assert abs(f["mean_error_pct"] - sum(signed) / len(signed)) < 1e-9
for c, r in zip(cases, d["cases"]):
    p = c["config"]["parallelism"]
    if isinstance(p["dp"], int):
        assert r["gpus"] == p["tp"] * p["pp"] * p["dp"] * p["cp"], (c["name"], r["gpus"])
bounds = [(1, 8), (9, 64), (65, 512), (513, 4096), (4097, None)]
want = []
for lo, hi in bounds:
    rows = [r for r in d["cases"] if r["gpus"] >= lo and (hi is None or r["gpus"] <= hi)]
    if rows:
        want.append((lo, hi, rows))
assert [(b["gpus_min"], b["gpus_max"]) for b in d["by_gpus"]] == [(lo, hi) for lo, hi, _ in want], d["by_gpus"]
for b, (_, _, rows) in zip(d["by_gpus"], want):
    ok = [r["error_pct"] for r in rows if r["feasible"]]
    assert b["cases"] == len(rows) and b["infeasible"] == len(rows) - len(ok)
    assert abs(b["mean_abs_error_pct"] - sum(map(abs, ok)) / len(ok)) < 1e-9
    assert abs(b["max_abs_error_pct"] - max(map(abs, ok))) < 1e-12
    assert abs(b["mean_error_pct"] - sum(ok) / len(ok)) < 1e-9
assert sum(b["cases"] for b in d["by_gpus"]) == len(cases)
all_signed = [r["error_pct"] for r in d["cases"] if r["feasible"]]
assert abs(d["mean_error_pct"] - sum(all_signed) / len(all_signed)) < 1e-9
print("ok: %d families, %s; %d job sizes" % (len(fams), ", ".join("%s %d" % (f["family"], f["cases"]) for f in fams), len(d["by_gpus"])))
PY
