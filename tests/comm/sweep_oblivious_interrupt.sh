#!/bin/bash
# sweep_oblivious_interrupt.sh SAX EXAMPLES - SIGTERM while `sax sweep` runs its second,
# network-oblivious sweep (after the main sweep, before the results are written): the sweep still
# writes its results, exits 0, says the oblivious pick is not reported, and the file has /answer
# without /answer/oblivious; `sax report` reads it and shows no oblivious pick.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
EXAMPLES=$2
work=$(mktemp -d /tmp/sax-oblivious-int.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3

# the MoE example: its oblivious sweep takes a good share of the run (docs/decisions.md)
"$SAX" sweep "$EXAMPLES/moe-2bldg-deepseekv3.json" -o moe.h5 --progress 0.05 > out.txt 2> err.txt &
pid=$!
# the main sweep's last progress line ends in "(done)"; the oblivious sweep starts right after it
for _ in $(seq 1 6000); do
    grep -q "(done)" err.txt 2> /dev/null && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.01
done
kill -TERM "$pid" 2> /dev/null
wait "$pid"
status=$?
if ! grep -q "interrupted during the network-oblivious sweep" err.txt; then
    cat err.txt
    # exit 0: the oblivious sweep ended before the signal came, nothing to check on this machine;
    # 3: the signal came during the main sweep (a checkpoint, as docs/sweep.md says)
    [[ $status -eq 0 || $status -eq 3 ]] || { fail "sweep exits $status"; exit 1; }
    echo "SKIPPED: the signal did not land in the oblivious sweep (exit $status)"
    exit 77
fi
check "sweep exits 0" test "$status" -eq 0
check "the results are written" test -f moe.h5
check "no checkpoint is left" test ! -e moe.h5.ckpt
check "the file has /answer but not /answer/oblivious" "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
sys.exit(not ("answer/ties" in f and "answer/robust" in f and "answer/oblivious" not in f))' moe.h5
"$SAX" report moe.h5 > report.txt 2>&1
check "sax report reads it" test $? -eq 0
check "the report shows the ties" grep -q "  tied: " report.txt
check "the report shows no oblivious pick" bash -c '! grep -q "network-oblivious pick" report.txt'
check_summary sweep_oblivious_interrupt
