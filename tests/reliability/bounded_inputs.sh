#!/bin/bash
# bounded_inputs.sh SAX CONFIG - every text input is read up to a documented bound (64 MiB): an
# endless or huge input (/dev/zero, a 65 MiB file) is refused at once with exit status 2 and the
# bound in the message, for a configuration, a validation dataset, calibration measurements and an
# nccl-tests table; nothing runs for long (60 s timeout).
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
CONFIG=$2
work=$(mktemp -d /tmp/sax-bounded.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

refused() { # NAME COMMAND...: exit 2 within 60 s, saying the bound
    local name=$1
    shift
    timeout 60 "$@" > out.txt 2> err.txt
    local rc=$?
    check "$name exits 2" test $rc -eq 2
    check "$name names the bound" grep -q "expected at most 64 MiB" err.txt
}

refused "eval /dev/zero" "$SAX" eval /dev/zero
refused "validate /dev/zero" "$SAX" validate /dev/zero
head -c $((65 << 20)) /dev/zero | tr '\0' ' ' > big.json
refused "eval of a 65 MiB file" "$SAX" eval big.json
refused "calibrate /dev/zero" "$SAX" calibrate /dev/zero -c "$CONFIG" -o out.json
printf '{"collectives": [{"file": "/dev/zero", "op": "all_reduce", "tier": "scale_up", "gpus": 8, "algorithm": "ring"}]}\n' > meas.json
timeout 60 "$SAX" calibrate meas.json -c "$CONFIG" -o out.json > out.txt 2> err.txt
rc=$?
check "calibrate with a table at /dev/zero exits 2" test $rc -eq 2
check "... naming the bound" grep -q "expected at most 64 MiB" err.txt
check "no output written" test ! -e out.json
check_summary bounded_inputs
