#!/usr/bin/env bash
# collective_cli.sh SAX EXAMPLES - `sax collective` end to end, against values derived by hand:
#  1. 8 GPUs of one domain, 8 B all_reduce: 2(n-1) = 14 steps of 3 us NVLink latency = 42 us; the JSON
#     carries the contract's keys and busbw = algbw x 2(n-1)/n.
#  2. sendrecv of 2 GPUs in two sites 5 ms apart, 64 MiB: NCCL's window is 4 p2p channels x 8 slots x
#     128 KiB = 4 MiB per 10 ms round trip, so 16 windows: 15 round trips + the last one-way 5 ms, plus
#     the last window's 4 MiB at the NIC's 50 GB/s x 0.9 (93 us): 155.1 ms (within 2 %). Each rank sends
#     to the next (nccl-tests' sendrecv), so both ranks' 64 MiB cross the site link: 128 MiB.
#  3. nccl-tests' size rounding: all_gather of 3 GPUs with -b 16 -e 16 uses 12 B (1 float per rank).
#  4. bad usage and impossible groups exit 2 and say why.
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
out=$("$sax" collective "$ex" --op all_reduce --gpus 8 -b 8 -e 8 --json) || { echo "FAIL: exit $?"; fail=1; }
check "8 B all_reduce in one domain takes 14 x 3 us" \
    'd["op"]=="all_reduce" and d["gpus"]==8 and d["stride"]==1 and d["algorithm"]=="ring" and len(d["rows"])==1 and abs(d["rows"][0]["time_s"]-42e-6)<=0.01*42e-6' "$out"
check "busbw = algbw x 2(n-1)/n, algbw = bytes/time, nothing crosses sites" \
    'all(abs(r["busbw_Bps"]-r["algbw_Bps"]*14/8)<=1e-9*r["busbw_Bps"] and abs(r["algbw_Bps"]*r["time_s"]-r["bytes"])<=1e-6*r["bytes"] and r["cross_site_bytes"]==0 for r in d["rows"])' "$out"

out=$("$sax" collective "$ex" --op sendrecv --gpus 2 --stride 1024 -b 64M -e 64M --json) || { echo "FAIL: exit $?"; fail=1; }
check "64 MiB sendrecv across 5 ms is window-bound: 155.1 ms" \
    'd["algorithm"]=="direct" and abs(d["rows"][0]["time_s"]-(15*10e-3+5e-3+4*2**20/45e9))<=0.02*0.1551' "$out"
check "both ranks' 64 MiB cross the site link" 'd["rows"][0]["cross_site_bytes"]==2*64*2**20' "$out"

out=$("$sax" collective "$ex" --op all_gather --gpus 3 -b 16 -e 16 --json) || { echo "FAIL: exit $?"; fail=1; }
check "all_gather of 3 ranks rounds 16 B down to 12 B" 'd["rows"][0]["bytes"]==12 and d["rows"][0]["count"]==3' "$out"

out=$("$sax" collective "$ex" --op all_reduce --gpus 2 -b 1K -e 1M -f 4) || { echo "FAIL: exit $?"; fail=1; }
rows=$(grep -c '^ ' <<<"$out")
[[ $rows -eq 6 ]] && echo "ok: -b 1K -e 1M -f 4 prints 6 rows" || { echo "FAIL: expected 6 rows: $out"; fail=1; }

# sax eval's site_links on the same two sites (the contract's keys; utilisation = busy / iteration)
out=$("$sax" eval "$ex" --json) || { echo "FAIL: eval exit $?"; fail=1; }
check "eval --json lists the site link east-west" 'd["site_links"][0]["between"]==["east","west"] and len(d["site_links"])==1' "$out"
# the link carries 25.6 Tbit/s = 3.2e12 B/s each way: its busier direction, half to all of its bytes,
# is busy that share of them / 3.2e12 s, and never longer than the iteration
check "its busy time is its bytes at 3.2 TB/s per direction, within the iteration" '(l:=d["site_links"][0])["bytes"]/2/3.2e12*(1-1e-6)<=l["busy_s"]<=l["bytes"]/3.2e12*(1+1e-6) and l["busy_s"]<=d["iteration_time_s"] and l["utilisation"]<=1' "$out"
check "its bytes are the cross-site bytes (one link; single precision)" 'abs(d["site_links"][0]["bytes"]-d["cross_site_bytes_per_iteration"])<=1e-6*d["site_links"][0]["bytes"]' "$out"

expect2() { # expect2 REGEX ARGS...: exit status 2 and a message matching REGEX
    local re=$1
    shift
    local err
    err=$("$sax" collective "$@" 2>&1 >/dev/null)
    local st=$?
    if [[ $st -eq 2 ]] && grep -Eq -- "$re" <<<"$err"; then
        echo "ok: $* -> 2: $err"
    else
        echo "FAIL: $* -> $st: $err (expected 2 and /$re/)"
        fail=1
    fi
}
expect2 "trees run all_reduce only" "$ex" --op reduce_scatter --gpus 8 --algorithm tree
expect2 "takes no algorithm" "$ex" --op all_to_all --gpus 8 --algorithm ring
expect2 "to fit in the cluster's 2048 GPUs" "$ex" --op all_reduce --gpus 300 --stride 8
expect2 "expected a size" "$ex" --op all_reduce --gpus 8 -b 1X
expect2 "expected all_reduce, reduce_scatter" "$ex" --op broadcast --gpus 8
expect2 "expected CONFIG.json, --op and --gpus" "$ex" --op all_reduce
expect2 "no/such.json" no/such.json --op all_reduce --gpus 8
exit $fail
