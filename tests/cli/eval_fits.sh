#!/bin/bash
# eval_fits.sh SAX RUNS - `sax eval` on a configuration too large for its GPUs' memory: NeMo AutoModel's
# Qwen3 30B-A3B on 8 H100s of RUNS written with Megatron-LM's defaults for the optimizer (fp32 master
# and moments), which its framework does not use. The refusal names the memory against the HBM, and
# each setting of `fits_with`, written into the file, makes `sax eval` find the configuration feasible
# with the memory and time `fits_with` gave it.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
work=$(mktemp -d /tmp/sax-eval-fits.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$RUNS" <<'PYEOF'
import json, sys
row = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "automodel-qwen3-30b-a3b-8")
cfg = row["config"]
for key in ("optimizer_moments_dtype", "master_weights"):
    cfg["training"].pop(key, None)
json.dump(cfg, open("full.json", "w"))
PYEOF
check "the configuration is written" test -s full.json

"$SAX" eval full.json > full.txt 2> full.err
check "a configuration too large evaluates (exit 0)" test $? -eq 0
check "the refusal names the memory against the HBM" grep -q "memory per GPU .* GiB (weights .*) against 80.0 GiB of HBM" full.txt
check "the refusal lists what fits" grep -q "fits with one of (fastest first):" full.txt
"$SAX" eval full.json --json > full.out 2>> full.err
check "--json evaluates" test $? -eq 0

"$PY" - "$SAX" full.json full.out <<'PYEOF'
import json, subprocess, sys
sax, path, out = sys.argv[1:4]
r = json.load(open(out))
assert r["feasible"] is False and r["infeasible_reason"] == "memory", r["infeasible_reason"]
assert r["memory_per_gpu_bytes"] > 80 * 2**30, r["memory_per_gpu_bytes"]
fits = r["fits_with"]
keys = [f["key"] for f in fits]
# the optimizer's state alone is 12 B over 3.82 G parameters: bf16 moments or no master each fit
for key in ("training.optimizer_moments_dtype", "training.master_weights"):
    assert key in keys, keys
times = [f["iteration_time_s"] for f in fits]
assert times == sorted(times), times
for f in fits:
    cfg = json.load(open(path))
    section, name = f["key"].split(".")
    cfg[section][name] = f["value"]
    json.dump(cfg, open("one.json", "w"))
    e = json.loads(subprocess.run([sax, "eval", "one.json", "--json"], capture_output=True, text=True,
                                  check=True).stdout)
    assert e["feasible"] is True, (f, e["infeasible_reason"])
    assert "fits_with" not in e, f
    assert abs(e["memory_per_gpu_bytes"] - f["memory_per_gpu_bytes"]) <= 1e-9 * f["memory_per_gpu_bytes"], f
    assert abs(e["iteration_time_s"] - f["iteration_time_s"]) <= 1e-9 * f["iteration_time_s"], f
    assert e["memory_per_gpu_bytes"] <= 80 * 2**30, f
print(len(fits), "settings, each feasible when written into the file")
PYEOF
check "each setting of fits_with, written into the file, fits with the memory and time it says" test $? -eq 0
check_summary eval_fits
