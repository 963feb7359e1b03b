#!/bin/bash
# results_fields.sh SAX CONFIG - results files damaged with h5py (results_fields.py): a field missing
# from a dataset, a field of the wrong type, a dataset declaring 2^40 rows in a file of a few hundred
# KiB, baseline names empty, with a control character or twice. `sax pareto`, `sax report` and `sax eval --candidate` must each refuse every file with exit
# status 2 within 60 s, naming the file, the dataset and (for a field) the field; the intact file
# must still be read (exit 0). Skipped (77) without h5py.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
CONFIG=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
/usr/bin/python3 -c 'import h5py' 2> /dev/null || { echo "h5py missing (/usr/bin/python3): skipped"; exit 77; }
work=$(mktemp -d /tmp/sax-fields.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

timeout 120 "$SAX" sweep "$CONFIG" -o good.h5 --store all > /dev/null 2> sweep.err || { cat sweep.err; exit 1; }
for cmd in "pareto good.h5" "report good.h5" "eval good.h5 --candidate 0"; do
    timeout 60 "$SAX" $cmd > out.txt 2> err.txt
    check "intact file: sax $cmd exits 0" test $? -eq 0
done
/usr/bin/python3 "$HERE/results_fields.py" good.h5 "$work" > cases.txt || exit 1
while IFS='|' read -r file dset field kind; do
    name=$(basename "$file")
    for cmd in pareto report eval; do
        args=("$file")
        [[ $cmd == eval ]] && args+=(--candidate 0)
        start=$SECONDS
        timeout 60 "$SAX" $cmd "${args[@]}" > out.txt 2> err.txt
        rc=$?
        check "$name: sax $cmd exits 2 (status $rc, $((SECONDS - start)) s)" test $rc -eq 2
        check "$name: sax $cmd names the file and /$dset" grep -qF "$name: " err.txt
        grep -qF "/$dset" err.txt || fail "$name: sax $cmd does not name /$dset: $(head -c 300 err.txt)"
        if [[ -n $field ]]; then
            grep -qF "'$field'" err.txt || fail "$name: sax $cmd does not name the field '$field': $(head -c 300 err.txt)"
        fi
        case $kind in
        type) grep -q "expected" err.txt || fail "$name: sax $cmd does not say the expected type" ;;
        size) grep -q "declares" err.txt || fail "$name: sax $cmd does not say what /$dset declares" ;;
        name) grep -q "expected a unique, non-empty name" err.txt || fail "$name: sax $cmd does not say what a name must be" ;;
        esac
    done
done < cases.txt
check_summary results_fields
