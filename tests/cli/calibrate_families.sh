#!/bin/bash
# calibrate_families.sh SAX RUNS CONFIG - `sax calibrate --leave-family-out` on the published runs (RUNS:
# SC21 tables 1 and 2 on A100, Megatron-Core on H100). A family's held-out predictions must be what a
# calibration fitted to the other families' runs alone predicts for it as a --holdout dataset: the
# same fit from the same start values, reached through the other path. With one family nothing is
# left to fit (exit 2), and --folds with --leave-family-out is a usage error.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
CONFIG=$3
work=$(mktemp -d /tmp/sax-calibrate-families.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$RUNS" <<'PYEOF'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
out = "sc21-table1"
json.dump({"cases": cases}, open("all.json", "w"))
json.dump({"cases": [c for c in cases if c["family"] != out]}, open("others.json", "w"))
json.dump({"cases": [c for c in cases if c["family"] == out]}, open("held.json", "w"))
for name in ("all", "others", "held"):
    json.dump({"runs": name + ".json"}, open("m-" + name + ".json", "w"))
PYEOF
check "the datasets are written" test -s held.json

"$SAX" calibrate m-all.json -c "$CONFIG" -o all-out.json --leave-family-out --json > all.out 2> err.txt
check "calibrate --leave-family-out runs" test $? -eq 0
"$SAX" calibrate m-others.json -c "$CONFIG" -o others-out.json --holdout held.json --json > others.out 2>> err.txt
check "calibrate on the other families with the family as --holdout runs" test $? -eq 0
"$PY" - all.out others.out <<'PYEOF'
import json, sys
lofo = json.load(open(sys.argv[1]))["runs"]
other = json.load(open(sys.argv[2]))["holdout"]["cases"]
assert lofo["cross_validation"] == "leave-family-out" and lofo["folds"] == 3, lofo["folds"]
fams = {f["family"]: f for f in lofo["families"]}
assert set(fams) == {"sc21-table1", "sc21-table2", "megatron-core-h100"}, fams
assert fams["sc21-table1"]["runs"] == 10, fams
held = {c["name"]: c["heldout_s"] for c in lofo["cases"]}
errs = []
for c in other:
    assert abs(held[c["name"]] - c["after_s"]) <= 1e-9 * c["after_s"], (c["name"], held[c["name"]], c["after_s"])
    errs.append(abs(c["after_s"] / c["measured_s"] - 1))
mean = sum(errs) / len(errs)
assert abs(fams["sc21-table1"]["heldout_mean_abs_rel_error"] - mean) <= 1e-12, (fams["sc21-table1"], mean)
assert abs(fams["sc21-table1"]["heldout_max_abs_rel_error"] - max(errs)) <= 1e-12
PYEOF
check "a family's held-out times are the other families' fit's predictions of it" test $? -eq 0

# the prior: its width in the text report's `prior +-` column (0.2 for the DP overlap's share), none
# under --no-prior ("-" in the text, prior_sd 0 in --json)
"$SAX" calibrate m-others.json -c "$CONFIG" -o p-out.json > prior.txt 2>> err.txt
check "calibrate with the prior runs" test $? -eq 0
check "the report gives each parameter's prior width" \
    grep -Eq '^  training\.dp_overlap_efficiency +[0-9.e+-]+ +0\.2 ' prior.txt
"$SAX" calibrate m-others.json -c "$CONFIG" -o np-out.json --no-prior > noprior.txt 2>> err.txt
check "calibrate --no-prior runs" test $? -eq 0
check "--no-prior: no prior width in the report" \
    grep -Eq '^  training\.dp_overlap_efficiency +[0-9.e+-]+ +- ' noprior.txt
"$SAX" calibrate m-others.json -c "$CONFIG" -o np-out.json --no-prior --json > noprior.json 2>> err.txt
"$PY" - noprior.json all.out <<'PYEOF'
import json, sys
none = json.load(open(sys.argv[1]))["runs"]["parameters"]
with_prior = json.load(open(sys.argv[2]))["runs"]["parameters"]
assert none and all(p["prior_sd"] == 0 for p in none), none
assert all(p["prior_sd"] > 0 for p in with_prior), with_prior
PYEOF
check "--no-prior --json: prior_sd 0 for every parameter, positive without it" test $? -eq 0

"$SAX" calibrate m-held.json -c "$CONFIG" -o one-out.json --leave-family-out > one.txt 2> one.err
check "one family is an input error (exit 2)" test $? -eq 2
check "which says why" grep -q 'all of family "sc21-table1": with it held out nothing is left to fit' one.err
check "nothing is written" test ! -e one-out.json
"$SAX" calibrate m-all.json -c "$CONFIG" -o x.json --folds 3 --leave-family-out > /dev/null 2> both.err
check "--folds with --leave-family-out is a usage error" test $? -eq 2
check "which names both" grep -q -- "--folds and --leave-family-out" both.err
check_summary calibrate_families
