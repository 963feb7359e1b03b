#!/bin/bash
# split_merge.sh SAX SOURCE_DIR - jobs/split.py and jobs/merge.py without Slurm: a study split into
# parts in several ways (cuts of the first scenario variable, of a later one under fixed earlier ones,
# one scenario per part), each part swept by a plain `sax sweep`, merged: every dataset equals one
# sweep of the whole study (with /rows in one case). Then the refusals: bad input to split.py, a
# missing part, a part of another study.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
SRC=$2
JOBS=$SRC/jobs
PY=/usr/bin/python3
same_results() { "$PY" "$SRC/tests/jobs/same_results.py" "$@"; }
work=$(mktemp -d /tmp/sax-split-merge.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# Sweeps every part of DIR (a plain process each) into the results file the manifest names.
sweep_parts() { # DIR [SWEEP ARGS...]
    local dir=$1 cfg name
    shift
    for cfg in "$dir"/part-*.json; do
        name=$(basename "$cfg" .json)
        mkdir -p "$dir/$name"
        "$SAX" sweep "$cfg" -o "$dir/$name/results.h5" "$@" > /dev/null 2> "$dir/$name/err" || {
            echo "sax sweep $cfg failed: $(tail -n 3 "$dir/$name/err")" >&2
            return 1
        }
    done
}
parts_of() { "$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["parts"]))' "$1/manifest.json"; }

# split, sweep, merge, compare: CONFIG PARTS EXPECTED_PART_COUNT REFERENCE [SWEEP ARGS...]
round_trip() {
    local cfg=$1 n=$2 expect=$3 ref=$4 name
    name=$(basename "$1")
    local dir=p-${name%%-*}-$2 # p-campus-6
    shift 4
    "$PY" "$JOBS/split.py" "$cfg" --parts "$n" -o "$dir" > /dev/null
    check "split.py $(basename "$cfg") --parts $n exits 0" test $? -eq 0
    check "split.py $(basename "$cfg") --parts $n makes $expect parts" test "$(parts_of "$dir")" = "$expect"
    sweep_parts "$dir" "$@"
    check "every part of $dir sweeps" test $? -eq 0
    "$PY" "$JOBS/merge.py" "$dir" -o "$dir.h5" > /dev/null
    check "merge.py $dir exits 0" test $? -eq 0
    check "$dir merged equals one sweep (but /answer, which merge.py leaves out)" \
        same_results "$ref" "$dir.h5" --except answer
    check "$dir merged has no /answer" "$PY" -c 'import h5py, sys; sys.exit("answer" in h5py.File(sys.argv[1], "r"))' "$dir.h5"
}

campus=$JOBS/examples/campus-3bldg-llama405b.json # scenarios 3 x 3
regions=$JOBS/examples/regions-2-llama405b.json  # scenarios 2 x 2 x 2
"$SAX" sweep "$campus" -o campus.h5 > /dev/null 2>&1 || { echo "FAILED: sax sweep $campus" >&2; exit 1; }
"$SAX" sweep "$regions" -o regions.h5 --store all > /dev/null 2>&1 ||
    { echo "FAILED: sax sweep $regions" >&2; exit 1; }

round_trip "$campus" 2 2 campus.h5   # first variable cut [0,1) [1,3)
round_trip "$campus" 4 3 campus.h5   # at most 4: one value of the first variable each
round_trip "$campus" 6 6 campus.h5   # first fixed, second cut in 2
round_trip "$campus" 100 9 campus.h5 # one scenario each
round_trip "$regions" 3 2 regions.h5 --store all
round_trip "$regions" 6 4 regions.h5 --store all # first two fixed, the third whole

"$PY" - p-campus-6.h5 << 'EOF'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["merged_parts"] == 6, f.attrs["merged_parts"]
assert len(f.attrs["merged_from"]) == 6
assert "part-0005.json" in f.attrs["merged_from"][5]
assert str(f.attrs["command_line"]).startswith("jobs/merge.py")
EOF
check "the merged file records its parts" test $? -eq 0
"$SAX" report p-campus-6.h5 > /dev/null 2>&1
check "sax report reads a merged file" test $? -eq 0

# refusals
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["space"]; json.dump(d, open("nospace.json", "w"))' \
    "$campus"
"$PY" "$JOBS/split.py" nospace.json --parts 2 -o x > /dev/null 2> err.txt
check "split.py without a space section exits 2" test $? -eq 2
check "... naming the file and the section" grep -q 'nospace.json: "space"' err.txt
"$PY" "$JOBS/split.py" "$campus" --parts 0 -o x > /dev/null 2> err.txt
check "split.py --parts 0 exits 2" test $? -eq 2
"$PY" "$JOBS/split.py" "$campus" --parts 2 -o p-campus-2 > /dev/null 2> err.txt
check "split.py refuses to overwrite a manifest" test $? -eq 2
rm p-campus-6/part-0003/results.h5
"$PY" "$JOBS/merge.py" p-campus-6 -o y.h5 > /dev/null 2> err.txt
check "merge.py with a part missing exits 2" test $? -eq 2
check "... naming the task and the file" grep -q "task 3: p-campus-6/part-0003/results.h5" err.txt
check "... and writing nothing" test ! -e y.h5
cp p-regions-6/part-0003/results.h5 p-campus-6/part-0003/results.h5
"$PY" "$JOBS/merge.py" p-campus-6 -o y.h5 > /dev/null 2> err.txt
check "merge.py with a part of another study exits 2" test $? -eq 2
check "... saying what differs" grep -q "part-0003/results.h5: /space/.* differs\|part-0003/results.h5: attribute\|part-0003/results.h5: holds" err.txt

check_summary split_merge
