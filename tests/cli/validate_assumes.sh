#!/bin/bash
# validate_assumes.sh SAX RUNS - `sax validate` on runs whose description leaves a memory setting open.
# NeMo 24.07's Nemotron-4 340B on 128 H100s (RUNS) ran in 80 GiB with its gradients reduced in bf16.
# Written without `training.grad_reduce_dtype`, sax's default (fp32, Megatron-LM's) overfills the
# GPUs; the run fitted, so validate assumes the unstated setting that makes it fit and predicts the
# time `sax eval` gives with that setting written in. With the gradients' and the optimizer's precision
# stated as Megatron-LM's defaults, nothing that would make it fit is open: the case stays refused and
# says what would fit. A case that fits assumes nothing. `sax calibrate` assumes the same of the runs
# it fits and of its --holdout cases: the 340B run is used, at the start values at sax eval's time.
# DeepSeek-V3 on 2048 H800s (selective recomputation, DualPipe over 16 stages) written without its
# recomputed modules and its first and last stages' layers overfills the GPUs with Megatron's defaults
# (the attention core alone, 61 layers split 4 x 13 + 3 x 3): validate assumes wider recomputation,
# and the time is sax eval's with that setting written in.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
work=$(mktemp -d /tmp/sax-validate-assumes.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$RUNS" <<'PYEOF'
import copy, json, sys
row = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "nemo2407-nemotron4-340b-128")
unstated = copy.deepcopy(row)
unstated["name"] = "unstated"
del unstated["config"]["training"]["grad_reduce_dtype"]
stated = copy.deepcopy(unstated)
stated["name"] = "stated-fp32"
stated["config"]["training"].update(grad_reduce_dtype="fp32", optimizer_moments_dtype="fp32", master_weights=True)
fits = copy.deepcopy(row)
fits["name"] = "as-run"
json.dump({"cases": [unstated, stated, fits]}, open("set.json", "w"))
rows = json.load(open(sys.argv[1]))["cases"]
fitted = [c for c in rows if c["family"] == row["family"] and c["name"] != row["name"]][:4]
json.dump({"cases": fitted + [unstated]}, open("runs.json", "w"))
json.dump({"runs": "runs.json"}, open("measurements.json", "w"))
json.dump({"cases": [unstated]}, open("holdout.json", "w"))
json.dump(unstated["config"], open("cluster.json", "w"))
ds = copy.deepcopy(next(c for c in rows if c["name"] == "deepseek-v3-2048-h800"))
for key in ("recompute_modules", "decoder_first_pipeline_num_layers", "decoder_last_pipeline_num_layers"):
    del ds["config"]["parallelism"][key]
json.dump({"cases": [ds]}, open("deepseek.json", "w"))
cfg = copy.deepcopy(unstated["config"])
cfg["training"]["grad_reduce_dtype"] = "bf16"
json.dump(cfg, open("assumed.json", "w"))
PYEOF
check "the dataset is written" test -s set.json

"$SAX" validate set.json > set.txt 2> set.err
check "a refused case exits 1" test $? -eq 1
check "the text names the assumed setting" grep -q '^unstated .*(unstated, assumed so that the run fits: training.grad_reduce_dtype = "bf16"; sax.s defaults need 86.8 GiB)' set.txt
check "the stated case stays refused with what would fit" grep -q '^stated-fp32 .*infeasible.*(memory: 86.8 GiB; fits with training.grad_reduce_dtype: "bf16")' set.txt
check "the summary counts it" grep -q "3 cases, 1 infeasible, 1 with unstated settings assumed so that the run fits" set.txt
"$SAX" validate set.json --json > set.out 2>> set.err
"$SAX" eval assumed.json --json > assumed.out 2>> set.err
check "the configuration with the setting written evaluates" test $? -eq 0

"$PY" - set.out assumed.out <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
cases = {c["name"]: c for c in v["cases"]}
u, s, f = cases["unstated"], cases["stated-fp32"], cases["as-run"]
assert u["feasible"] is True and u["infeasible_reason"] is None, u
assert u["assumed"]["settings"] == {"training.grad_reduce_dtype": "bf16"}, u["assumed"]
assert u["assumed"]["default_memory_per_gpu_bytes"] > 80 * 2**30, u["assumed"]
assert e["feasible"] is True
assert abs(u["predicted_s"] - e["iteration_time_s"]) <= 1e-9 * e["iteration_time_s"], (u, e["iteration_time_s"])
assert abs(u["assumed"]["memory_per_gpu_bytes"] - e["memory_per_gpu_bytes"]) <= 1e-9 * e["memory_per_gpu_bytes"]
assert s["feasible"] is False and s["assumed"] is None and s["infeasible_reason"] == "memory", s
assert f["feasible"] is True and f["assumed"] is None, f
assert v["cases_assumed"] == 1 and v["cases_infeasible"] == 1 and v["cases_evaluated"] == 2, v
print("assumed", u["assumed"]["settings"], "predicted", u["predicted_s"])
PYEOF
check "the JSON states the assumption and matches sax eval" test $? -eq 0

"$SAX" calibrate measurements.json -c cluster.json -o calibrated.json --holdout holdout.json --json \
    > cal.out 2>> set.err
check "calibrate fits runs with an unstated setting" test $? -eq 0
"$PY" - cal.out assumed.out <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
run = next(r for r in c["runs"]["cases"] if r["name"] == "unstated")
assert run["used"] is True, run
assert run["assumed"]["settings"] == {"training.grad_reduce_dtype": "bf16"}, run
assert abs(run["start_s"] - e["iteration_time_s"]) <= 1e-9 * e["iteration_time_s"], (run, e["iteration_time_s"])
assert all(r["assumed"] is None for r in c["runs"]["cases"] if r["name"] != "unstated")
held = c["holdout"]["cases"][0]
assert held["assumed"] == run["assumed"], held
assert abs(held["before_s"] - e["iteration_time_s"]) <= 1e-9 * e["iteration_time_s"], held
PYEOF
check "calibrate uses the run with the setting validate assumes, and says so" test $? -eq 0

"$SAX" validate deepseek.json --json > ds.out 2>> set.err
check "a run with its recomputed modules and stage layers unstated is evaluated" test $? -eq 0
"$PY" - ds.out deepseek.json <<'PYEOF'
import json, sys
case = json.load(open(sys.argv[1]))["cases"][0]
assert case["feasible"] is True, case
settings = case["assumed"]["settings"]
assert "parallelism.recompute_modules" in settings, settings
assert "layernorm" in settings["parallelism.recompute_modules"], settings
# 61 layers on 16 stages split uniformly: 4 on the first 13, 3 on the last 3. A DualPipe rank holds
# stages s and 15 - s, so ranks 1 to 3 hold 4 + 3 layers and rank 0 the embedding, 4 + 3 layers, the
# output head and the MTP depth: the wider recomputation alone fits, and no split is assumed (until
# the twenty-first round each rank held twice its own stage, and the last stage's layers were assumed 1).
assert set(settings) == {"parallelism.recompute_modules"}, settings
cfg = json.load(open(sys.argv[2]))["cases"][0]["config"]
for key, value in settings.items():
    section, name = key.split(".")
    cfg[section][name] = value
json.dump(cfg, open("ds-assumed.json", "w"))
PYEOF
check "its assumed settings are wider recomputation" test $? -eq 0
"$SAX" eval ds-assumed.json --json > ds-eval.out 2>> set.err
check "the configuration with them written evaluates" test $? -eq 0
"$PY" - ds.out ds-eval.out <<'PYEOF'
import json, sys
case = json.load(open(sys.argv[1]))["cases"][0]
e = json.load(open(sys.argv[2]))
assert e["feasible"] is True, e
assert abs(case["predicted_s"] - e["iteration_time_s"]) <= 1e-9 * e["iteration_time_s"], (case, e)
assert abs(case["assumed"]["memory_per_gpu_bytes"] - e["memory_per_gpu_bytes"]) <= 1e-9 * e["memory_per_gpu_bytes"]
assert e["memory_per_gpu_bytes"] <= 80 * 2**30
PYEOF
check "and gives the time and memory validate assumed" test $? -eq 0
check_summary validate_assumes
