#!/usr/bin/env bash
# bad_targets.sh SAX DATA_DIR SWEEP_CONFIG - bad input beyond configurations (docs/reliability.md,
# "Bad input" and "Output targets"), every case: exit status 2, a message naming the file, and
# nothing written, replaced or removed.
#   dups     a key given twice in a dataset of measured runs (`sax validate`) and in calibration
#            measurements (`sax calibrate`): refused when the text is read, with its JSON path.
#   targets  an output that is not a regular file (a FIFO, a directory) for every command that
#            writes (`sweep -o`, `eval --trace`, `pareto --csv/--svg`, `calibrate -o`), and an output
#            that is one of the command's own inputs (`pareto R.h5 --csv R.h5`, `eval C.json --trace
#            C.json`, `calibrate M.json -c C.json -o M.json` or `-o C.json`), and a symbolic link
#            (to a file that is no input, or dangling). Never the real /dev/null: a FIFO made here
#            stands for a device.
set -u
sax=$1
data=$(cd "$2" && pwd)
sweep_config=$3
what=${4:-all}
source "$(dirname "$0")/../check.sh"

work=$(mktemp -d /tmp/sax-targets.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

snapshot() { find . -mindepth 1 -printf '%p %y\n' | LC_ALL=C sort | while read -r p t; do
    if [[ $t == f ]]; then echo "$p $(cksum <"$p")"; else echo "$p $t"; fi
done; }

# refused LABEL NEEDLE COMMAND...: exit 2 within 20 s (a writer that opens a FIFO would block),
# NEEDLE in the message, the directory unchanged (a FIFO still a FIFO, a directory still one).
refused() {
    local label=$1 needle=$2
    shift 2
    local before after out status
    before=$(snapshot)
    out=$(timeout 20 "$@" 2>&1 </dev/null)
    status=$?
    after=$(snapshot)
    printf '%s\n' "--- $label: exit $status" "$out" | head -c 1500
    echo
    check "$label: exit 2" test "$status" -eq 2
    check "$label: names '$needle'" grep -qF -- "$needle" <<<"$out"
    check "$label: nothing written" test "$before" == "$after"
}

if [[ $what == all || $what == dups ]]; then
    # cases[0].measured holds iteration_time_s twice; collectives[0] holds gpus twice
    python3 - "$data" <<'EOF'
import sys
data = sys.argv[1]
t = open(data + "/validation/published-runs.json").read()
open("dup-dataset.json", "w").write(t.replace('"measured": {', '"measured": {"iteration_time_s": 1.0, ', 1))
t = open(data + "/calibration/measurements.json").read()
assert '"gpus": 8' in t
open("dup-measurements.json", "w").write(t.replace('"gpus": 8', '"gpus": 8, "gpus": 16', 1))
EOF
    refused "validate, duplicate key" "dup-dataset.json: cases[0].measured.iteration_time_s: expected each key once" \
        "$sax" validate dup-dataset.json
    refused "calibrate, duplicate key" "dup-measurements.json: collectives[0].gpus: expected each key once" \
        "$sax" calibrate dup-measurements.json -c "$data/calibration/cluster.json" -o calibrated.json
    rm -f dup-dataset.json dup-measurements.json
fi

if [[ $what == all || $what == targets ]]; then
    cp "$sweep_config" C.json
    cp "$data/configs/contract-eval.json" E.json
    cp "$data/calibration/cluster.json" cluster.json
    # the measurements name their nccl-tests files relative to themselves
    cp "$data"/calibration/*.txt .
    cp "$data/calibration/measurements.json" M.json
    timeout 120 "$sax" sweep C.json -o R.h5 >/dev/null 2>&1 || fail "setup: sax sweep C.json -o R.h5"
    mkfifo fifo
    mkdir dir
    for target in fifo dir; do
        refused "sweep -o $target" "$target: expected a regular file" "$sax" sweep C.json -o $target --force
        refused "eval --trace $target" "$target: expected a regular file" "$sax" eval E.json --trace $target
        refused "pareto --csv $target" "$target: expected a regular file" "$sax" pareto R.h5 --csv $target
        refused "pareto --svg $target" "$target: expected a regular file" "$sax" pareto R.h5 --svg $target
        refused "calibrate -o $target" "$target: expected a regular file" \
            "$sax" calibrate M.json -c cluster.json -o $target
    done
    refused "pareto R.h5 --csv R.h5" "R.h5: expected an output other than the input" "$sax" pareto R.h5 --csv R.h5
    refused "pareto R.h5 --svg ./R.h5" "./R.h5: expected an output other than the input" \
        "$sax" pareto R.h5 --svg ./R.h5
    refused "eval E.json --trace E.json" "E.json: expected an output other than the input" \
        "$sax" eval E.json --trace E.json
    ln -s E.json link.json
    refused "eval E.json --trace link.json" "link.json: expected an output other than the input" \
        "$sax" eval E.json --trace link.json
    refused "calibrate -o M.json" "M.json: expected an output other than the input" \
        "$sax" calibrate M.json -c cluster.json -o M.json
    refused "calibrate -o cluster.json" "cluster.json: expected an output other than the input" \
        "$sax" calibrate M.json -c cluster.json -o cluster.json
    refused "sweep C.json -o C.json --force" "C.json: expected an output other than the input" \
        "$sax" sweep C.json -o C.json --force
    # a symbolic link as output, to a file that is no input and dangling: refused (the rename would
    # replace the link, and the dangling one would become a file), the link and its target unchanged
    echo "a result kept elsewhere" > kept.txt
    ln -s kept.txt to-file
    ln -s nowhere.h5 dangling
    for target in to-file dangling; do
        refused "sweep -o $target --force" "$target: expected a regular file (or a new name) to write the output to, found a symbolic link" \
            "$sax" sweep C.json -o $target --force
        refused "eval --trace $target" "$target: expected a regular file (or a new name) to write the output to, found a symbolic link" \
            "$sax" eval E.json --trace $target
        refused "pareto --csv $target" "found a symbolic link" "$sax" pareto R.h5 --csv $target
        refused "calibrate -o $target" "found a symbolic link" "$sax" calibrate M.json -c cluster.json -o $target
    done
    check "the links are still links" test -L to-file -a -L dangling
    check "the dangling link's target was not created" test ! -e nowhere.h5
    check "the file behind the link is unchanged" grep -qx "a result kept elsewhere" kept.txt
    check "the FIFO is still a FIFO" test -p fifo
    check "the directory is still a directory" test -d dir
fi
check_summary "bad_targets $what"
