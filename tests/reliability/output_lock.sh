#!/usr/bin/env bash
# output_lock.sh SAX MPIEXEC CONFIG.json - two sweeps on one output name (docs/reliability.md, "One
# sweep per output"). A first sweep of a 36-scenario version of CONFIG (several seconds) runs in
# the background; while it runs, a second sweep to the same -o - without and with --force, as a
# plain process and on 2 ranks - must exit 2 within 10 s naming the other sweep, and the first must
# go on to exit 0 with results identical to a sweep run alone. Then a lock file left by a sweep
# killed with SIGKILL must not stop the next sweep, which removes it.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
sax=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mpiexec=$2
config=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=/usr/bin/python3
work=$(mktemp -d /tmp/sax-lock.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# 3 x 12 scenarios: long enough for the second sweeps to start while the first runs
"$py" - "$config" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["space"]["scenarios"]["site_links[0].latency"] = [f"{x} ms" for x in
    (0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 7, 10)]
json.dump(d, open("slow.json", "w"), indent=1)
EOF

# Wait until FILE contains TEXT (at most 60 s).
wait_for() {
    local i
    for i in $(seq 1 6000); do
        grep -q -- "$2" "$1" 2> /dev/null && return 0
        sleep 0.01
    done
    return 1
}

"$sax" sweep slow.json -o out.h5 --progress 0.05 > first.out 2> first.err &
first=$!
wait_for first.err "candidates ("
check "the first sweep is under way" test $? -eq 0

second() { # LABEL COMMAND...: exit 2 within 10 s, naming the other sweep, while the first still runs
    local label=$1 out status t0 t1
    shift
    t0=$(date +%s.%N)
    out=$(timeout 60 "$@" 2>&1 > /dev/null)
    status=$?
    t1=$(date +%s.%N)
    echo "--- $label: exit $status after $("$py" -c "print(round($t1 - $t0, 2))") s: $(head -n 2 <<<"$out")"
    check "$label: exit 2" test "$status" -eq 2
    check "$label: says another sax sweep holds out.h5.lock" \
        grep -q "found another sax sweep (pid $first on .*) holding .*out.h5.lock" <<<"$out"
    check "$label: within 10 s" "$py" -c "import sys; sys.exit(0 if $t1 - $t0 < 10 else 1)"
    check "$label: while the first still runs" kill -0 "$first"
}
second "a second sweep to the same -o" "$sax" sweep slow.json -o out.h5
second "a second sweep to the same -o with --force" "$sax" sweep slow.json -o out.h5 --force
second "a second sweep to ./out.h5 on 2 ranks with --force" \
    "$mpiexec" -n 2 "$sax" sweep slow.json -o ./out.h5 --force

wait "$first"
status=$?
check "the first sweep exits 0" test "$status" -eq 0
check "its log has no error" test -z "$(grep -v 'candidates (' first.err)"
check "the lock file is removed at the end" test ! -e out.h5.lock
"$sax" sweep slow.json -o alone.h5 > /dev/null 2>&1
check "a sweep alone exits 0" test $? -eq 0
"$py" "$here/h5_same.py" out.h5 alone.h5
check "the first sweep's results are intact (identical to the sweep alone)" test $? -eq 0

# a killed sweep leaves its lock file; the lock died with it
"$sax" sweep slow.json -o killed.h5 --progress 0.05 > /dev/null 2> killed.err &
victim=$!
wait_for killed.err "candidates ("
kill -KILL "$victim"
wait "$victim" 2> /dev/null
check "a sweep killed with SIGKILL leaves killed.h5.lock" test -e killed.h5.lock
"$sax" sweep "$config" -o killed.h5 > /dev/null 2> after.err
check "the next sweep to that name is not stopped by it (exit 0)" test $? -eq 0
check "and removes it" test ! -e killed.h5.lock

# a symbolic link as the lock file is refused (the lock file is written: it would write through it)
ln -s alone.h5 sym.h5.lock
sum=$(cksum < alone.h5)
out=$("$sax" sweep "$config" -o sym.h5 2>&1 > /dev/null)
check "a symbolic link at sym.h5.lock: exit 2" test $? -eq 2
check "the message says so" grep -q "sym.h5.lock: expected a regular file .* found a symbolic link" <<<"$out"
check "the link and its target are left alone" test -L sym.h5.lock -a "$(cksum < alone.h5)" == "$sum" -a ! -e sym.h5
check_summary output_lock
