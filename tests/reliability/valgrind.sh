#!/usr/bin/env bash
# valgrind.sh VALGRIND SUPP MPIEXEC NP WORKDIR -- COMMAND [ARGS...] - runs COMMAND on NP ranks, each
# under valgrind memcheck with the project's suppressions (tests/valgrind.supp) and Open MPI's, and
# passes when every rank exits 0 and reports no error and no leak (docs/reliability.md, "valgrind").
# NP 0 runs COMMAND as a plain process (no mpiexec). Exits 77 (CTest: skipped) without valgrind.
set -u
valgrind=$1
supp=$2
mpiexec=$3
np=$4
work=$5
shift 5
[[ ${1:-} == -- ]] && shift
if ! command -v "$valgrind" > /dev/null 2>&1; then
    echo "SKIP: no valgrind (Debian: apt-get install valgrind)"
    exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
vg=("$valgrind" --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=no --num-callers=30
    --suppressions="$supp" --log-file="$work/vg.%p.log")
ompi_supp=/usr/share/openmpi/openmpi-valgrind.supp
[[ -f $ompi_supp ]] && vg+=(--suppressions="$ompi_supp")
export HWLOC_COMPONENTS=-x86 # hwloc's x86 backend cannot run under valgrind and says so
if [[ $np -eq 0 ]]; then
    "${vg[@]}" "$@"
else
    "$mpiexec" -n "$np" "${vg[@]}" "$@"
fi
status=$?
fail=0
logs=("$work"/vg.*.log)
echo "--- exit status $status; ${#logs[@]} valgrind log(s) in $work"
[[ $status -eq 0 ]] || { echo "FAIL: exit status $status (valgrind's --error-exitcode is 9)"; fail=1; }
[[ $np -eq 0 || ${#logs[@]} -ge $np ]] || { echo "FAIL: ${#logs[@]} logs for $np ranks"; fail=1; }
for log in "${logs[@]}"; do
    summary=$(grep -E "ERROR SUMMARY" "$log")
    echo "$(basename "$log"): $summary"
    if ! grep -q "ERROR SUMMARY: 0 errors" "$log"; then
        echo "FAIL: $log reports errors:"
        cat "$log"
        fail=1
    fi
done
exit $fail
