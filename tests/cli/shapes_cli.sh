#!/usr/bin/env bash
# shapes_cli.sh SAX DATA - `sax eval` on the job shapes of one node and of a partial unit, against
# values derived by hand (tests/model/test_shapes.c derives them in full):
#  1. tests/data/configs/one-node-8gpu.json: 8 GPUs, one scale-up domain (300 GB/s x 0.8 = 240 GB/s,
#     3 us), no tiers. Feasible; its exposed TP traffic is 64 all-reduces of S = 8192 x 8192 x 2 B
#     each (8 micro-batches x 4 layers x 2 forward, no sequence parallelism; the backward's 2 run
#     behind QKV's and FC1's weight-gradient GEMMs, each longer than its all-reduce, Megatron-LM's
#     asynchronous all-reduce), each the ring's
#     2(n-1)/n x S/B = 978.67 us plus one latency: 0.062827 s (within 0.1 %), within 5 % of the
#     textbook ring 2(n-1) x 3 us + 2(n-1)/n x S/B (0.065323 s); nothing crosses a site link.
#  2. the same node with one tier whose unit is the node evaluates to the same iteration.
#  3. tests/data/configs/partial-pod-16k.json: 16384 GPUs in pods of 3072 (the last pod 1024) is
#     feasible and uses 16384 GPUs, dp "auto" = 16384 / (8 x 16) = 128.
#  4. a site that is not a whole number of scale-up domains (20 GPUs in domains of 8: the last domain
#     has 4) is feasible, uses its 20 GPUs (TP 4, dp "auto" = 5) and is never faster than the same job
#     on a site of whole domains; a tier smaller than the domain still exits 2 with file, path and
#     expected/found.
#  5. (below) a pipeline through the partial pod, with `sax collective`.
set -uo pipefail
sax=$1
data=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # check DESCRIPTION PYTHON-EXPRESSION JSON
    if python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if ($2) else 1)" "$3"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: $3"
        fail=1
    fi
}
node=$data/configs/one-node-8gpu.json
out=$("$sax" eval "$node" --json) || { echo "FAIL: eval $node exit $?"; fail=1; }
S=$((8192 * 8192 * 2))
check "one node: feasible, 8 GPUs, no cross-site bytes" \
    'd["feasible"] and d["gpus_used"]==8 and d["cross_site_bytes_per_iteration"]==0 and d["breakdown_s"]["exposed_dp"]==0' "$out"
check "one node: TP = 64 x (2(n-1)/n S/B + a) = 0.062827 s" \
    "abs(d['breakdown_s']['exposed_tp']-64*(1.75*$S/240e9+3e-6))<=1e-3*64*(1.75*$S/240e9+3e-6)" "$out"
check "one node: TP within 5 % of the textbook ring 64 x (14 a + 2(n-1)/n S/B)" \
    "abs(d['breakdown_s']['exposed_tp']-64*(14*3e-6+1.75*$S/240e9))<=0.05*64*(14*3e-6+1.75*$S/240e9)" "$out"
t_node=$(python3 -c 'import json,sys; print(repr(json.loads(sys.argv[1])["iteration_time_s"]))' "$out")

python3 - "$node" "$tmp/node-tier.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["cluster"]["tiers"] = [{"name": "node", "gpus": 8, "bandwidth": "50 GB/s", "latency": "10 us"}]
json.dump(c, open(sys.argv[2], "w"))
PY
out=$("$sax" eval "$tmp/node-tier.json" --json) || { echo "FAIL: eval with a node tier exit $?"; fail=1; }
check "one node with a tier of 8: accepted, the same iteration" "d['feasible'] and d['iteration_time_s']==$t_node" "$out"

out=$("$sax" eval "$data/configs/partial-pod-16k.json" --json) || { echo "FAIL: eval partial pod exit $?"; fail=1; }
check "16384 GPUs in pods of 3072: feasible, all 16384 used" 'd["feasible"] and d["gpus_used"]==16384' "$out"

# 5. sax collective on the partial pod: a pipeline of 16 stages 1024 GPUs apart (every pipeline at once),
#    the building tier at 28:1. The partial pod (1024 GPUs) holds one stage of each of the 1024
#    pipelines; its uplink, 1024 x 50 GB/s x 0.9 / 28 = 1645.7 GB/s, is split among its 1024 GPUs:
#    1.607 GB/s for the edge leaving it, so a 64 MiB sendrecv takes 64 MiB / 1.607 GB/s = 41.76 ms
#    (within 2 %: latency and the last chunk). On a site of six whole pods (18432) every pod gives each
#    pipeline 3 GPUs' worth (3 stages of 3072 in a full pod; 1 of 1024 busy GPUs in the sixth, whose
#    uplink is 3072 GPUs' worth): 13.92 ms.
python3 - "$data/configs/partial-pod-16k.json" "$tmp/p28.json" "$tmp/w28.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["cluster"]["tiers"][1]["oversubscription"] = 28
json.dump(c, open(sys.argv[2], "w"))
c["cluster"]["sites"][0]["gpus"] = 18432
json.dump(c, open(sys.argv[3], "w"))
PY
share=$(python3 -c 'print(50e9 * 0.9 / 28)')
out=$("$sax" collective "$tmp/p28.json" --op sendrecv --gpus 16 --stride 1024 --concurrent -b 64M -e 64M --json) ||
    { echo "FAIL: collective on the partial pod exit $?"; fail=1; }
check "partial pod: 64 MiB sendrecv at 1 GPU's worth of a 28:1 uplink, 41.76 ms" \
    "abs(d['rows'][0]['time_s']-2**26/$share)<=0.02*2**26/$share" "$out"
out=$("$sax" collective "$tmp/w28.json" --op sendrecv --gpus 16 --stride 1024 --concurrent -b 64M -e 64M --json) ||
    { echo "FAIL: collective on whole pods exit $?"; fail=1; }
check "whole pods: the same at 3 GPUs' worth, 13.92 ms" \
    "abs(d['rows'][0]['time_s']-2**26/(3*$share))<=0.02*2**26/(3*$share)" "$out"

expect2() { # expect2 DESCRIPTION REGEX FILE
    local msg status
    msg=$("$sax" eval "$3" 2>&1)
    status=$?
    if [[ $status -eq 2 ]] && grep -Eq -- "$2" <<<"$msg"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: exit $status: $msg"
        fail=1
    fi
}
python3 - "$node" "$tmp/site20.json" "$tmp/site24.json" "$tmp/bad-tier.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["cluster"]["tiers"] = [{"name": "rack", "gpus": 32, "bandwidth": "50 GB/s", "latency": "10 us"}]
c["cluster"]["sites"][0]["gpus"] = 20
c["parallelism"]["tp"] = 4
c["training"]["global_batch"] = 20
json.dump(c, open(sys.argv[2], "w"))
c["cluster"]["sites"][0]["gpus"] = 24
c["parallelism"]["dp"] = 5
json.dump(c, open(sys.argv[3], "w"))
c["cluster"]["sites"][0]["gpus"] = 8
c["cluster"]["tiers"][0]["gpus"] = 4
json.dump(c, open(sys.argv[4], "w"))
PY
out=$("$sax" eval "$tmp/site20.json" --json) || { echo "FAIL: a site of 20 GPUs in domains of 8: exit $?"; fail=1; }
check "a site of 20 GPUs in domains of 8 (the last one 4): feasible, 20 GPUs used" \
    'd["feasible"] and d["gpus_used"]==20' "$out"
t20=$(python3 -c 'import json,sys; print(repr(json.loads(sys.argv[1])["iteration_time_s"]))' "$out")
out=$("$sax" eval "$tmp/site24.json" --json) || { echo "FAIL: the job on 20 of 24 GPUs: exit $?"; fail=1; }
check "the same job on 20 GPUs of a site of whole domains is not slower" \
    "d['feasible'] and d['gpus_used']==20 and d['iteration_time_s']<=$t20*(1+1e-9)" "$out"
expect2 "a tier of 4 GPUs over domains of 8 is refused" \
    "bad-tier\\.json: cluster\\.tiers\\[0\\]\\.gpus: expected a multiple of 8 GPUs, at least the scale-up domain .*found 4" \
    "$tmp/bad-tier.json"
exit $fail
