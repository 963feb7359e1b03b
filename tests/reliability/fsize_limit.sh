#!/bin/bash
# fsize_limit.sh SAX MPIEXEC CONFIG MEASUREMENTS CAL_CONFIG - under `ulimit -f 1` with stderr
# redirected to a file, sax sweep and sax calibrate as plain processes (singleton MPI) must exit
# within 60 s with a failure status, never hang (they did: Open MPI's PMIx could not create its
# shared-memory store, MPI_Init never returned and the orted spun); sax now picks PMIx's in-memory
# store under a file-size limit. Under mpiexec the PMIx server is mpiexec's, started before sax:
# with PMIX_MCA_gds=hash exported (docs/reliability.md) a 2-rank sweep must exit too.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
MPIEXEC=$2
CONFIG=$3
MEAS=$4
CAL=$5
work=$(mktemp -d /tmp/sax-fsize.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset PMIX_MCA_gds

limited() { # NAME COMMAND...: exits (not the timeout's 124), with a failure status, within 60 s
    local name=$1
    shift
    local start=$SECONDS
    timeout -k 5 60 bash -c 'ulimit -f 1; exec "$@" 2> err.txt > /dev/null' _ "$@"
    local rc=$?
    check "$name under ulimit -f 1: exits within 60 s with a failure (status $rc, $((SECONDS - start)) s)" \
        test $rc -ne 0 -a $rc -ne 124 -a $rc -ne 137
}
limited "sax sweep" "$SAX" sweep "$CONFIG" -o out.h5
check "... nothing under the results name" test ! -e out.h5
limited "sax calibrate" "$SAX" calibrate "$MEAS" -c "$CAL" -o cal.json
check "... nothing under the output name" test ! -e cal.json
PMIX_MCA_gds=hash limited "mpiexec -n 2 sax sweep (PMIX_MCA_gds=hash)" "$MPIEXEC" -n 2 "$SAX" sweep "$CONFIG" -o out2.h5
check_summary fsize_limit
