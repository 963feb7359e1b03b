#!/bin/bash
# eval_refusals.sh SAX RUNS - a refused configuration says which check it fails. NeMo 24.07's GPT-3 175B
# row of RUNS (TP 4, PP 8, DP 4, VP 6, micro-batch 1, global batch 256, 128 H100s in nodes of 8) changed
# one setting at a time; each expected sentence is written here from the changed numbers, not taken
# from sax. Text and --json (`infeasible_detail`) say the same.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
work=$(mktemp -d /tmp/sax-eval-refusals.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$SAX" "$RUNS" <<'PYEOF'
import copy, json, subprocess, sys
sax, runs = sys.argv[1:3]
base = next(c for c in json.load(open(runs))["cases"] if c["name"] == "nemo2407-gpt3-175b-128")["config"]

def par(**kw):
    return lambda c: c["parallelism"].update(kw)

cases = [
    ("gpus", par(dp=8), "gpus", "tp x cp x pp x dp = 4 x 1 x 8 x 8 = 256 GPUs, the sites hold 128"),
    ("heads", par(tp=5, dp=2, pp=8, vpp=1, schedule="1f1b"), "divisibility",
     "tp = 5: model.heads = 96 and model.kv_heads = 96 must split over it (kv_heads may also divide tp)"),
    ("sequence", par(cp=3, tp=4, pp=8, dp=1, vpp=1, schedule="1f1b", order=["tp", "cp", "dp", "pp"]),
     "divisibility", "cp = 3 does not divide model.seq_len = 2048"),
    ("batch", lambda c: c["training"].update(global_batch=250), "divisibility",
     "training.global_batch = 250 is not a multiple of micro_batch x dp = 1 x 4 = 4"),
    ("layers", par(layer_split="embedding-loss"), "divisibility",
     "model.layers = 96 do not split over pp = 8 stages of vpp = 6 chunks as layer_split embedding-loss "
     "(layers + 2 over pp, then over vpp) sets them"),
    ("interleaved", lambda c: c["training"].update(global_batch=4 * 12), "schedule",
     "schedule interleaved: the 12 micro-batches a pipeline runs (global_batch / (micro_batch x dp)) are "
     "not a multiple of pp = 8"),
    ("vpp", par(schedule="1f1b"), "schedule", "vpp = 6 needs schedule interleaved, found 1f1b"),
    ("dualpipe", lambda c: (par(schedule="dualpipe", vpp=1)(c), c["training"].update(global_batch=48)),
     "schedule", "schedule dualpipe needs vpp = 1, an even pp and an even number of micro-batches, at least "
     "2 x pp: found vpp = 1, pp = 8, 12 micro-batches"),
    ("tp_domain", par(order=["dp", "tp", "pp"]), "tp_domain",
     "the tp = 4 ranks, placed by order dp-tp-pp, span more than one scale-up domain of 8 GPUs "
     "(cluster.scale_up.size)"),
]
bad = 0
for name, change, reason, sentence in cases:
    cfg = copy.deepcopy(base)
    change(cfg)
    json.dump(cfg, open(name + ".json", "w"))
    text = subprocess.run([sax, "eval", name + ".json"], capture_output=True, text=True)
    js = subprocess.run([sax, "eval", name + ".json", "--json"], capture_output=True, text=True)
    if text.returncode != 0 or js.returncode != 0:
        print(name, "exit", text.returncode, js.returncode, text.stderr.strip())
        bad += 1
        continue
    r = json.loads(js.stdout)
    got = (r["infeasible_reason"], r.get("infeasible_detail"))
    if got != (reason, [sentence]) or ("\n  " + sentence + "\n") not in text.stdout:
        print(name, "expected", (reason, [sentence]), "found", got)
        bad += 1
if bad == 0:
    print(len(cases), "refusals, each naming the check it fails")
sys.exit(1 if bad else 0)
PYEOF
check "each refusal names the check it fails, in text and --json" test $? -eq 0

"$PY" - "$SAX" <<'PYEOF'
import json, subprocess, sys
# the same refusal through sax validate: one case, measured 1 s
json.dump({"cases": [{"name": "batch", "config": json.load(open("batch.json")),
                      "measured": {"iteration_time_s": 1.0}}]}, open("set.json", "w"))
want = "training.global_batch = 250 is not a multiple of micro_batch x dp = 1 x 4 = 4"
js = subprocess.run([sys.argv[1], "validate", "set.json", "--json"], capture_output=True, text=True)
text = subprocess.run([sys.argv[1], "validate", "set.json"], capture_output=True, text=True)
case = json.loads(js.stdout)["cases"][0]
assert js.returncode == 1 and case["infeasible_detail"] == [want], (js.returncode, case)
assert "(divisibility: " + want + ")" in text.stdout, text.stdout
PYEOF
check "sax validate names the same check, in text and --json" test $? -eq 0

"$SAX" eval "$work/batch.json" >/dev/null 2>&1
check "a refused configuration still exits 0 (evaluated, infeasible)" test $? -eq 0
check_summary eval_refusals
