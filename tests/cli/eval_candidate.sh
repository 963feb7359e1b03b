#!/bin/bash
# eval_candidate.sh SAX EXAMPLES - from answer to job: `sax eval RESULTS.h5 --candidate N` gives the
# sweep's own numbers for its best, the Megatron-LM arguments and NCCL variables of that candidate
# (checked against the parallelism the sweep reported, not against the printer), and a configuration
# that `sax eval` reproduces; bad indices, an HDF5 file without --candidate and an output that is
# the input are refused with exit status 2.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
EXAMPLES=$2
work=$(mktemp -d /tmp/sax-eval-candidate.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$SAX" sweep "$EXAMPLES/hetero-h100-b200.json" -o r.h5 --json --no-oblivious > sweep.json 2> sweep.err
check "sweep exits 0" test $? -eq 0
best=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["scenarios"][1]["best"]["index"])' sweep.json)

"$SAX" eval r.h5 --candidate "$best" --json --write-config best.json > cand.json 2> cand.err
check "eval --candidate exits 0" test $? -eq 0
"$SAX" eval best.json --json > again.json 2> again.err
check "the written configuration evaluates" test $? -eq 0
"$PY" - sweep.json cand.json again.json <<'PYEOF'
import json, sys
sweep, cand, again = (json.load(open(p)) for p in sys.argv[1:4])
best = sweep["scenarios"][1]["best"]
rel = lambda a, b: abs(a - b) <= 1e-12 * abs(b)
assert rel(cand["iteration_time_s"], best["iteration_time_s"]), (cand["iteration_time_s"], best)
assert rel(again["iteration_time_s"], best["iteration_time_s"]), (again["iteration_time_s"], best)
par, net = best["parallelism"], best["network"]
args = " ".join(cand["job"]["megatron_args"])
for flag, key in (("--tensor-model-parallel-size", "tp"), ("--pipeline-model-parallel-size", "pp"),
                  ("--context-parallel-size", "cp"), ("--micro-batch-size", "micro_batch")):
    assert "%s %d" % (flag, par[key]) in args, (flag, par[key], args)
assert ("--sequence-parallel" in args) == (par["sequence_parallel"] and par["tp"] > 1), args
if par["recompute"] != "none":
    assert "--recompute-granularity %s" % par["recompute"] in args, args
env = cand["job"]["nccl_env"]
# hierarchical has no NCCL_ALGO (cli_job.c: the framework issues the per-level collectives)
assert env.get("NCCL_ALGO") == {"ring": "Ring", "tree": "Tree"}.get(net["algorithm"]), env
if net["transport"] == "tcp":
    assert env["NCCL_IB_DISABLE"] == "1" and env["NCCL_NSOCKS_PERTHREAD"] == str(net["connections"]), env
else:
    assert env["NCCL_IB_QPS_PER_CONNECTION"] == str(net["connections"]), env
# layers over the stages: a layout (E ... L) or flags must account for every layer of the model
written = json.load(open("best.json"))
layers = written["model"]["layers"]
tr = written["training"]
assert ("--tp-comm-overlap" in args) == bool(tr.get("tp_comm_overlap", False) and par["sequence_parallel"] and par["tp"] > 1), args
assert ("--hidden-dropout 0.0" in args) == (tr.get("dropout", True) is False), args
if "--pipeline-model-parallel-layout" in args:
    layout = args.split("--pipeline-model-parallel-layout '")[1].split("'")[0]
    assert layout.startswith("E") and layout.endswith("L"), layout
    chunks = layout[1:-1].split("|")
    assert len(chunks) == par["pp"] * par["vpp"], (len(chunks), par)
    assert sum(int(c.split("*")[1]) for c in chunks) == layers, (layout, layers)
print("candidate", best["index"], "reproduced; job checked")
PYEOF
check "the candidate's time, job and written configuration agree with the sweep" test $? -eq 0

"$SAX" eval r.h5 --candidate 999999999 > /dev/null 2> big.err
check "an index beyond the space exits 2" test $? -eq 2
check "... saying the range" grep -q "expected an index from 0 to" big.err
"$SAX" eval r.h5 > /dev/null 2> h5.err
check "a results file without --candidate exits 2" test $? -eq 2
check "... and says to add --candidate" grep -q "add --candidate N" h5.err
cp best.json keep.json
"$SAX" eval best.json --write-config best.json > /dev/null 2> same.err
check "writing over the input exits 2" test $? -eq 2
check "... and leaves it" cmp -s best.json keep.json
check_summary eval_candidate
