#!/usr/bin/env bash
# interrupt.sh SAX MPIEXEC CONFIG.json - sweeps killed with SIGKILL (docs/reliability.md,
# "Interrupted runs"): one rank of a 2-rank sweep (rank 1, then rank 0) after its first periodic
# checkpoint, rank 1 of a sweep without periodic checkpoints, and a 1-rank sweep while it writes its
# results. Each must leave no file at the results name, and whatever it leaves (RESULTS.h5.tmp.<pid>)
# must be refused by sax pareto and sax report. --resume then completes from the last checkpoint
# with results identical to an uninterrupted run, or - when the sweep saved none - refuses with
# exit 2 naming the missing checkpoint, and a new sweep to the same name completes with the
# identical results.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
sax=$1
mpiexec=$2
config=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=/usr/bin/python3
work=$(mktemp -d /tmp/sax-kill.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
no_results_file() { [[ ! -e $1 ]]; }
same() { "$py" "$here/h5_same.py" "$@"; }

# Wait until FILE contains TEXT (at most 60 s).
wait_for() {
    local i
    for i in $(seq 1 6000); do
        grep -q -- "$2" "$1" 2> /dev/null && return 0
        sleep 0.01
    done
    return 1
}

# A results file that cannot be mistaken for one: sax pareto and sax report exit 2 and say why.
refused() { # FILE
    local cmd out status ok=0
    for cmd in pareto report; do
        out=$("$sax" "$cmd" "$1" 2>&1)
        status=$?
        echo "  sax $cmd $(basename "$1"): exit $status: $(head -n 1 <<<"$out")"
        [[ $status -eq 2 ]] && grep -q "$(basename "$1")" <<<"$out" || ok=1
    done
    return $ok
}

echo "== the uninterrupted reference"
"$sax" sweep "$config" -o ref.h5 > /dev/null 2> ref.err
check "uninterrupted sweep exits 0" test $? -eq 0

# Wait until FILE exists (at most 60 s).
wait_for_file() {
    local i
    for i in $(seq 1 12000); do
        [[ -e $1 ]] && return 0
        sleep 0.005
    done
    return 1
}

kill_rank() { # first|last (rank 0 or 1: mpiexec starts them in order) OUT CHECKPOINT_SECONDS
    local which=$1 out=$2 every=$3 mp victim status
    rm -f "$out" "$out".*
    "$mpiexec" -n 2 "$sax" sweep "$config" -o "$out" --progress 0.02 --checkpoint-every "$every" \
        > "$out.log" 2>&1 &
    mp=$!
    if [[ $every == 0 ]]; then
        wait_for "$out.log" "candidates ("
        check "progress from the 2-rank sweep before the kill" test $? -eq 0
    else # kill it right after its first checkpoint
        wait_for_file "$out.ckpt"
        check "a periodic checkpoint appears before the kill" test $? -eq 0
    fi
    # mpiexec starts the ranks as its children, rank 0 first
    victim=$(pgrep -P "$mp" | sort -n | { if [[ $which == first ]]; then head -n 1; else tail -n 1; fi; })
    if [[ -z $victim ]]; then
        fail "no rank process found under mpiexec $mp"
    else
        kill -KILL "$victim"
        echo "killed pid $victim ($which rank) of mpiexec $mp with SIGKILL"
    fi
    # the job must end by itself (no rank left waiting for the dead one): 60 s at most
    for _ in $(seq 1 600); do
        kill -0 "$mp" 2> /dev/null || break
        sleep 0.1
    done
    if kill -0 "$mp" 2> /dev/null; then
        fail "mpiexec still running 60 s after the kill"
        kill -KILL "$mp"
    fi
    wait "$mp"
    status=$?
    echo "mpiexec exit status $status; left: $(ls "$out"* 2> /dev/null | tr '\n' ' ')"
    check "a killed sweep does not exit 0" test "$status" -ne 0
    check "a killed sweep leaves no $out" no_results_file "$out"
    local leftover
    for leftover in "$out".tmp.*; do
        [[ -e $leftover ]] || continue
        check "a leftover $leftover is refused by sax pareto and sax report" refused "$leftover"
    done
    check "sax pareto and sax report refuse the missing $out" refused "$out"

    # --resume: from the last checkpoint, or without periodic checkpoints a clear refusal
    if [[ $every != 0 ]]; then
        "$sax" sweep "$config" -o "$out" --resume > /dev/null 2> "$out.resume.err"
        check "--resume after SIGKILL exits 0" test $? -eq 0
        grep -h "candidates (" "$out.log" | tail -n 1
        check "the log says what the checkpoint saved" grep -q "checkpoint: [0-9]* of [0-9]* candidates saved in $out.ckpt" "$out.log"
        check "--resume after SIGKILL gives the uninterrupted results" same ref.h5 "$out"
    else
        check "no checkpoint without periodic checkpoints" test ! -e "$out.ckpt"
        "$sax" sweep "$config" -o "$out" --resume > /dev/null 2> "$out.resume.err"
        status=$?
        echo "  --resume: exit $status: $(head -n 1 "$out.resume.err")"
        check "--resume without a checkpoint exits 2" test "$status" -eq 2
        check "--resume without a checkpoint names it" grep -q "$out.ckpt" "$out.resume.err"
        check "--resume without a checkpoint writes no $out" no_results_file "$out"
        # the way on: a new sweep to the same name
        "$mpiexec" -n 2 "$sax" sweep "$config" -o "$out" > /dev/null 2> "$out.again.err"
        check "a new 2-rank sweep to $out after the kill exits 0" test $? -eq 0
        check "it gives the uninterrupted results" same ref.h5 "$out"
    fi
}

echo "== SIGKILL to rank 1 of 2 in the middle of the sweep, after a periodic checkpoint"
kill_rank last rank1.h5 0.05
echo "== SIGKILL to rank 0 of 2 in the middle of the sweep, after a periodic checkpoint"
kill_rank first rank0.h5 0.05
echo "== SIGKILL to rank 1 of 2 in the middle of a sweep without periodic checkpoints"
kill_rank last nockpt.h5 0

echo "== SIGKILL while the results are written (1 rank, --store all)"
"$sax" sweep "$config" -o rows-ref.h5 --store all > /dev/null 2>&1
check "uninterrupted --store all sweep exits 0" test $? -eq 0
caught=0
for delay in 0 0.02 0.1; do
    rm -f w.h5 w.h5.*
    "$sax" sweep "$config" -o w.h5 --store all > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 30000); do # the temporary file appears when the write begins
        compgen -G "w.h5.tmp.*" > /dev/null && break
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.002
    done
    sleep "$delay"
    kill -KILL "$pid" 2> /dev/null
    wait "$pid"
    status=$?
    if [[ $status -ne 137 ]]; then
        echo "  delay $delay: the sweep ended before the kill (exit $status)"
        check "a sweep that ended by itself succeeded" test "$status" -eq 0
        check "a finished write is complete" same rows-ref.h5 w.h5
        continue
    fi
    caught=$((caught + 1))
    echo "  delay $delay: killed (status $status); left: $(ls w.h5* 2> /dev/null | tr '\n' ' ')"
    check "killed while writing: no w.h5" no_results_file w.h5
    for leftover in w.h5.tmp.*; do
        [[ -e $leftover ]] || continue
        check "killed while writing: the partial $leftover is refused" refused "$leftover"
    done
done
check "at least one kill landed inside the write" test "$caught" -ge 1
"$sax" sweep "$config" -o w.h5 --store all > /dev/null 2>&1
check "a new sweep next to a leftover temporary file exits 0" test $? -eq 0
check "and is complete" same rows-ref.h5 w.h5

check_summary interrupt
