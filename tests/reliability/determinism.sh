#!/usr/bin/env bash
# determinism.sh SAX MPIEXEC CONFIG.json RANKS:CHUNK[:CHECKPOINT_S],... [STORE] - the same sweep
# repeated at the given rank counts, --chunk sizes (0: adaptive) and --checkpoint-every intervals
# (default 0: none; periodic checkpoints need STORE none), storing STORE rows (default all): every
# results file must hold byte-identical datasets and attributes apart from when, where and on how
# many ranks it ran (tests/reliability/h5_same.py; docs/reliability.md, "Determinism").
set -u
sax=$1
mpiexec=$2
config=$3
IFS=, read -r -a runs <<<"$4"
store=${5:-all}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/sax-determinism.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
name=$(basename "$config" .json)
files=()
for i in "${!runs[@]}"; do
    IFS=: read -r np chunk every <<<"${runs[$i]}"
    every=${every:-0}
    out=$work/$name-$i-np$np-chunk$chunk.h5
    args=(sweep "$config" -o "$out" --store "$store" --chunk "$chunk" --checkpoint-every "$every")
    if [[ $np -eq 1 ]]; then
        "$sax" "${args[@]}" > /dev/null 2> "$out.err"
    else
        "$mpiexec" -n "$np" "$sax" "${args[@]}" > /dev/null 2> "$out.err"
    fi
    status=$?
    echo "$name: $np rank(s), --chunk $chunk, --checkpoint-every $every: exit $status"
    if [[ $status -ne 0 ]]; then
        cat "$out.err"
        failures=$((failures + 1))
    fi
    files+=("$out")
done
/usr/bin/python3 "$here/h5_same.py" "${files[@]}"
case $? in
0) ;;
77) exit 77 ;;
*) failures=$((failures + 1)) ;;
esac
echo "=== $failures failure(s)"
[[ $failures -eq 0 ]]
