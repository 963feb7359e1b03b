#!/bin/bash
# job_flags.sh SAX RUNS - the precision, loss, FSDP and DP-overlap flags of `sax eval`'s job, against Megatron-LM's
# own argument names (megatron/training/arguments.py and docs/user-guide/features/megatron_fsdp.md at
# d98e8a64dd): Megatron-Bridge's Llama 3 8B FSDP row of RUNS (fp8 current scaling, bf16 gradient
# reduction, Transformer Engine's fused loss, Megatron-FSDP), the same run changed to bf16 under
# FSDP2 with fp32 reductions and the unfused loss, that under the distributed optimizer with a bucket
# size, that without DP overlap, and that in fp16 with its gradients left to the default (--fp16, not
# --bf16, and fp16 reductions, Megatron-LM's default there).
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
work=$(mktemp -d /tmp/sax-job-flags.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$RUNS" <<'PYEOF'
import json, sys
row = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "bridge-llama3-8b-fsdp-8")
json.dump(row["config"], open("fp8.json", "w"))
cfg = row["config"]
t = cfg["training"]
t.update(precision="bf16", grad_reduce_dtype="fp32", fsdp="fsdp2", cross_entropy_loss_fusion=False)
for key in ("fp8_recipe", "cross_entropy_fusion_impl"):
    t.pop(key, None)
json.dump(cfg, open("bf16.json", "w"))
cfg["parallelism"]["zero"] = 1
t.update(ddp_bucket_size=100000000)
json.dump(cfg, open("zero1.json", "w"))
t.update(dp_overlap_efficiency=0)
t.pop("ddp_bucket_size")
json.dump(cfg, open("serial.json", "w"))
t.update(precision="fp16")
t.pop("grad_reduce_dtype")
json.dump(cfg, open("fp16.json", "w"))
PYEOF
check "the five configurations are written" test -s fp8.json -a -s bf16.json -a -s zero1.json -a -s serial.json \
    -a -s fp16.json

"$SAX" eval fp8.json --json > fp8.out 2> fp8.err
check "the fp8 row evaluates" test $? -eq 0
"$SAX" eval bf16.json --json > bf16.out 2> bf16.err
check "the bf16 variant evaluates" test $? -eq 0
"$SAX" eval zero1.json --json > zero1.out 2> zero1.err
check "the distributed-optimizer variant evaluates" test $? -eq 0
"$SAX" eval serial.json --json > serial.out 2> serial.err
check "the variant without overlap evaluates" test $? -eq 0
"$SAX" eval fp16.json --json > fp16.out 2> fp16.err
check "the fp16 variant evaluates" test $? -eq 0
"$PY" - fp8.out bf16.out zero1.out serial.out fp16.out <<'PYEOF'
import json, sys
fp8, bf16, zero1, serial, fp16 = (" " + " ".join(json.load(open(p))["job"]["megatron_args"]) + " "
                                  for p in sys.argv[1:6])
for flag in ("--bf16", "--fp8-format hybrid", "--fp8-recipe tensorwise", "--grad-reduce-in-bf16",
             "--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl te", "--use-megatron-fsdp",
             "--data-parallel-sharding-strategy optim_grads_params", "--overlap-grad-reduce",
             "--overlap-param-gather"):
    assert " %s " % flag in fp8, (flag, fp8)
for flag in ("--use-torch-fsdp2", "--use-distributed-optimizer"):
    assert " %s " % flag not in fp8, (flag, fp8)
assert " --bf16 " in bf16 and " --use-torch-fsdp2 " in bf16, bf16
for flag in ("--fp8-format", "--fp8-recipe", "--grad-reduce-in-bf16", "--cross-entropy-loss-fusion",
             "--use-megatron-fsdp"):
    assert " %s " % flag not in bf16, (flag, bf16)
# the overlapped DP traffic sax prices (dp_overlap_efficiency > 0) is Megatron-LM's opt-in; torch's FSDP2
# overlaps on its own; Megatron's bucket size only where it is set
assert " --overlap-grad-reduce " not in bf16, bf16
for flag in ("--use-distributed-optimizer", "--overlap-grad-reduce", "--overlap-param-gather",
             "--ddp-bucket-size 100000000"):
    assert " %s " % flag in zero1, (flag, zero1)
assert " --use-distributed-optimizer " in serial, serial
for flag in ("--overlap-grad-reduce", "--overlap-param-gather", "--ddp-bucket-size"):
    assert " %s " % flag not in serial, (flag, serial)
assert " --fp16 " in fp16 and " --bf16 " not in fp16, fp16
# under --fp16 Megatron-LM reduces the gradients in fp16 unless told otherwise: no flag for it
for flag in ("--accumulate-allreduce-grads-in-fp32", "--grad-reduce-in-bf16"):
    assert " %s " % flag not in fp16, (flag, fp16)
print("job flags as Megatron-LM names them")
PYEOF
check "the job's flags follow each configuration's precision, loss, FSDP and DP overlap" test $? -eq 0
check_summary job_flags
