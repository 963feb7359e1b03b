#!/bin/bash
# eval_uneven_split.sh SAX PUBLIC_RUNS.json - one uneven split written two ways gives one prediction:
# BLOOM's 70 layers on 12 stages as layer_split "embedding-loss" ((70 + 2) / 12 = 6 a stage, the first
# and the last 5) and as Megatron-LM's decoder_first/last_pipeline_num_layers 5 and 5 (the 60 others
# over 10 middle stages: 6 each) hold the same layers on every stage, so their iteration time and
# memory agree exactly; each job carries its own Megatron-LM flags; first 6, last 6 (58 middle layers
# over 10 stages) is the file's error (exit 2, the JSON path, expected and found).
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
work=$(mktemp -d /tmp/sax-uneven.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$RUNS" <<'PYEOF'
import json, sys
case = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "bloom-176b-384")
cfg = case["config"]
par = cfg["parallelism"]
par["layer_split"] = "embedding-loss"
par.pop("decoder_first_pipeline_num_layers", None)
par.pop("decoder_last_pipeline_num_layers", None)
json.dump(cfg, open("el.json", "w"))
par["layer_split"] = "uniform"
par["decoder_first_pipeline_num_layers"] = 5
par["decoder_last_pipeline_num_layers"] = 5
json.dump(cfg, open("fl.json", "w"))
par["decoder_first_pipeline_num_layers"] = 6
par["decoder_last_pipeline_num_layers"] = 6
json.dump(cfg, open("bad.json", "w"))
PYEOF
check "configurations written" test -s el.json -a -s fl.json -a -s bad.json

"$SAX" eval el.json --json > el.out 2> el.err
check "embedding-loss evaluates" test $? -eq 0
"$SAX" eval fl.json --json > fl.out 2> fl.err
check "first/last evaluates" test $? -eq 0
"$PY" - el.out fl.out <<'PYEOF'
import json, sys
el, fl = (json.load(open(p)) for p in sys.argv[1:3])
assert el["feasible"] and fl["feasible"], (el["infeasible_reason"], fl["infeasible_reason"])
assert el["iteration_time_s"] == fl["iteration_time_s"], (el["iteration_time_s"], fl["iteration_time_s"])
assert el["memory_per_gpu_bytes"] == fl["memory_per_gpu_bytes"]
a, b = " ".join(el["job"]["megatron_args"]), " ".join(fl["job"]["megatron_args"])
assert "--account-for-embedding-in-pipeline-split" in a and "--account-for-loss-in-pipeline-split" in a, a
assert "--decoder-first-pipeline-num-layers" not in a, a
assert "--decoder-first-pipeline-num-layers 5" in b and "--decoder-last-pipeline-num-layers 5" in b, b
assert "--account-for" not in b, b
PYEOF
check "the two spellings of 5, 6 x 10, 5 agree; each job has its flags" test $? -eq 0

"$SAX" eval bad.json > bad.out 2> bad.err
check "first 6, last 6 of 70 on 12 stages exits 2" test $? -eq 2
check "the message names the file and the path" grep -q "bad.json: parallelism.decoder_first_pipeline_num_layers: expected" bad.err
check "the message says what it found" grep -q "found first 6, last 6 on 12 stages" bad.err
check_summary eval_uneven_split
