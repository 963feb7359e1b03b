#!/usr/bin/env bash
# eval_bottlenecks.sh SAX EXAMPLES - `sax eval`'s bottlenecks (contract.md, "Additions (turn 2)"):
#  1. --json keeps the contract's keys and adds "bottlenecks": entries with exactly phase, exposed_s and
#     limited_by, from the contract's lists, each phase once, longest first, every time > 0, and the
#     times the breakdown's (compute + optimizer = compute; pp = bubble + exposed_pp; the rest alike).
#  2. Derived by hand for two-sites-collectives.json (llama3-70b, tp 8, dp 256 over two sites 5 ms
#     apart, ZeRO 1): the reduce-scatter of 70.6e9 / 8 parameters x 4 B = 35 GB per GPU puts 255/256 of
#     it on each ring edge, one of which crosses the sites. There NCCL keeps 4 MiB in flight per channel
#     per 10 ms round trip (419 MB/s), 2 channels: 35 GB / 0.84 GB/s = 42 s. The NIC alone would take
#     35 GB / 45 GB/s = 0.8 s, the link (3.2 TB/s over 8 groups x 2 channels) and its site uplink (4:1
#     over 128 GPUs' NICs) less, and one loop of latency 2 x 5 ms + 254 x 10 us = 12.5 ms: dp is
#     limited by the window, and its 40-odd seconds exceed the compute (about 1.6 s).
#  3. The text output says it in words, one line per phase.
#  4. An infeasible configuration has an empty list.
#  5. Beside them, dp_sync says why the DP reduction shows: on the one stage its buckets queue (the
#     embedding's, 128256 x 8192 / 8 of 70.6e9 / 8 parameters, 1.5 %, is the last).
set -uo pipefail
sax=$1
ex=$2/two-sites-collectives.json
fail=0
check() { # check DESCRIPTION PYTHON-EXPRESSION JSON
    if python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if ($2) else 1)" "$3"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: $3"
        fail=1
    fi
}
out=$("$sax" eval "$ex" --json) || { echo "FAIL: eval exit $?"; fail=1; }
check "the contract's keys are all still there" \
    'all(k in d for k in ["feasible","infeasible_reason","iteration_time_s","tokens_per_s","mfu","model_flops_per_iteration","memory_per_gpu_bytes","cross_site_bytes_per_iteration","breakdown_s","site_links"])' "$out"
check "dp_sync: the reduction of 40-odd seconds outlasts the backward (buckets queue), on the one stage" \
    'd["dp_sync"]["stage"] == 0 and d["dp_sync"]["waits_on"] == "queue" and 0 < d["dp_sync"]["last_bucket_share"] < 0.05' "$out"
check "bottlenecks: phase, exposed_s, limited_by from the contract's lists" \
    'isinstance(d["bottlenecks"], list) and len(d["bottlenecks"]) > 0 and all(set(b) == {"phase","exposed_s","limited_by"} and b["phase"] in ["compute","tp","cp","ep","pp","dp","optimizer"] and b["limited_by"] in ["compute","memory_bandwidth","latency","window","link_capacity","oversubscription","nic","scale_up"] for b in d["bottlenecks"])' "$out"
check "each phase once, longest first, none without time" \
    '(b:=d["bottlenecks"]) and len({x["phase"] for x in b}) == len(b) and all(x["exposed_s"] > 0 for x in b) and all(b[i]["exposed_s"] >= b[i+1]["exposed_s"] for i in range(len(b)-1))' "$out"
check "the times are the breakdown's" \
    '(e:={x["phase"]: x["exposed_s"] for x in d["bottlenecks"]}) is not None and (s:=d["breakdown_s"]) is not None and abs(e.get("compute",0)+e.get("optimizer",0)-s["compute"]) <= 1e-9*s["compute"] and abs(e.get("pp",0)-s["bubble"]-s["exposed_pp"]) <= 1e-9*max(1e-12,e.get("pp",0)) and all(abs(e.get(p,0)-s["exposed_"+p]) <= 1e-9*max(1e-12,s["exposed_"+p]) for p in ["tp","cp","ep","dp"])' "$out"
check "dp across 5 ms is limited by the window and comes first" \
    'd["bottlenecks"][0]["phase"]=="dp" and d["bottlenecks"][0]["limited_by"]=="window" and d["bottlenecks"][0]["exposed_s"] > 20' "$out"

text=$("$sax" eval "$ex") || { echo "FAIL: eval exit $?"; fail=1; }
if grep -Eq '^  exposed dp [0-9.]+ s: limited by the transport window \(10 ms RTT, 4 MiB in flight per connection\)' <<<"$text"; then
    echo "ok: the text says dp is limited by the window, with its round trip and bytes in flight"
else
    echo "FAIL: no window line for dp: $text"
    fail=1
fi
lines=$(grep -c '^  exposed [a-z]* .*: limited by ' <<<"$text")
phases=$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["bottlenecks"]))' "$out")
[[ $lines -eq $phases ]] && echo "ok: one line per phase ($lines)" || { echo "FAIL: $lines lines for $phases phases"; fail=1; }

# infeasible: 1024 x 2 GPUs are too few for dp 512 x tp 8
bad=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["parallelism"]["dp"]=512; print(json.dumps(d))' "$ex")
tmp=$(mktemp --suffix=.json)
trap 'rm -f "$tmp"' EXIT
printf '%s\n' "$bad" >"$tmp"
out=$("$sax" eval "$tmp" --json) || { echo "FAIL: eval exit $?"; fail=1; }
check "an infeasible configuration has no bottlenecks" 'd["feasible"] is False and d["bottlenecks"] == []' "$out"
exit $fail
