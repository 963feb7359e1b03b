#!/usr/bin/env bash
# expect.sh STATUS REGEX [!REGEX] -- COMMAND [ARGS...]
# Runs COMMAND, and passes when it exits with STATUS and its stdout+stderr matches the extended
# regular expression REGEX (an empty REGEX matches anything). An optional !REGEX must NOT match.
set -uo pipefail
want_status=$1
want_re=$2
shift 2
reject_re=""
if [[ $# -gt 0 && $1 == '!'* ]]; then
    reject_re=${1#!}
    shift
fi
[[ ${1:-} == -- ]] && shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
echo "--- exit status $status (expected $want_status)"
fail=0
if [[ $status -ne $want_status ]]; then
    echo "FAIL: exit status $status, expected $want_status"
    fail=1
fi
if [[ -n $want_re ]] && ! grep -Eq -- "$want_re" <<<"$out"; then
    echo "FAIL: output does not match /$want_re/"
    fail=1
fi
if [[ -n $reject_re ]] && grep -Eq -- "$reject_re" <<<"$out"; then
    echo "FAIL: output matches /$reject_re/, which it must not"
    fail=1
fi
exit $fail
