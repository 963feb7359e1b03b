#!/usr/bin/env bash
# validate_cli.sh SAX DATASET - `sax validate --json` per family: the families of the dataset file in
# order of first appearance, each with its case count (counted here from the file) and the mean and
# max of its cases' |error_pct| and the mean of their signed error_pct (the bias), and the bias over all.
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
all_signed = [r["error_pct"] for r in d["cases"] if r["feasible"]]
assert abs(d["mean_error_pct"] - sum(all_signed) / len(all_signed)) < 1e-9
print("ok: %d families, %s" % (len(fams), ", ".join("%s %d" % (f["family"], f["cases"]) for f in fams)))
PY
