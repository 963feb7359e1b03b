#!/bin/bash
# atomic_outputs.sh SAX SWEEP_CONFIG EVAL_CONFIG MEASUREMENTS CAL_CONFIG - every file a command writes
# replaces the previous one whole or not at all (docs/reliability.md, "Failing writes"): each output
# is first written normally (more than 1 KiB), then written again under `ulimit -f 1` (1 KiB: the
# write fails with EFBIG; sax ignores SIGXFSZ). The second run must exit 1 within 60 s naming the
# file, leave the previous file byte-identical, and leave no temporary file. Outputs: sax pareto --csv
# and --svg, sax report --svg-dir (every plot), sax eval --trace and --write-config, sax calibrate -o.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
SWEEP=$2
EVAL=$3
MEAS=$4
CAL=$5
work=$(mktemp -d /tmp/sax-atomic.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export PMIX_MCA_gds=hash # PMIx's shared-memory store would meet the limit before MPI_Init completes

timeout 120 "$SAX" sweep "$SWEEP" -o results.h5 --store all > /dev/null 2> sweep.err || { cat sweep.err; exit 1; }
mkdir plots
cases=("pareto results.h5 --csv front.csv|front.csv"
    "pareto results.h5 --svg front.svg|front.svg"
    "report results.h5 --svg-dir plots|plots"
    "eval $EVAL --trace trace.json|trace.json"
    "eval $EVAL --write-config written.json|written.json"
    "calibrate $MEAS -c $CAL -o calibrated.json|calibrated.json")
for c in "${cases[@]}"; do
    cmd=${c%|*}
    target=${c##*|}
    # shellcheck disable=SC2086
    timeout 60 "$SAX" $cmd > /dev/null 2> first.err
    rc=$?
    check "sax $cmd: first write exits 0 (status $rc)" test $rc -eq 0
    if [[ -d $target ]]; then files=("$target"/*); else files=("$target"); fi
    big=$(find "${files[@]}" -size +1k | wc -l)
    check "sax $cmd: writes more than 1 KiB (so the limit stops it)" test "$big" -ge 1
    sha256sum "${files[@]}" > before.sum
    start=$SECONDS
    # shellcheck disable=SC2086
    timeout 60 bash -c 'ulimit -f 1; exec "$@"' _ "$SAX" $cmd > /dev/null 2> second.err
    rc=$?
    check "sax $cmd under ulimit -f 1: exits 1 within 60 s (status $rc, $((SECONDS - start)) s)" test $rc -eq 1
    check "sax $cmd under ulimit -f 1: names the output" grep -qF "$target" second.err
    check "sax $cmd under ulimit -f 1: the previous output is intact" sha256sum --quiet -c before.sum
    left=$(find . -name '*.tmp.*')
    check "sax $cmd under ulimit -f 1: no temporary file left (${left:-none})" test -z "$left"
    rm -f $left
done
check_summary atomic_outputs
