#!/usr/bin/env bash
# check_command.sh SAX CMD - the contract for one subcommand, whether or not it is implemented yet:
#   `sax CMD --help` exits 0 and starts with "usage: sax CMD";
#   if that help marks CMD "(not implemented yet)", `sax CMD x` says "sax CMD: not implemented yet"
#   on stderr and exits 2; otherwise `sax CMD` without its required argument is bad usage (exit 2)
#   and must not claim to be unimplemented.
set -uo pipefail
sax=$1
cmd=$2
fail=0
help=$("$sax" "$cmd" --help 2>&1)
status=$?
if [[ $status -ne 0 ]]; then
    echo "FAIL: 'sax $cmd --help' exited $status"
    fail=1
fi
if [[ $(head -n 1 <<<"$help") != "usage: sax $cmd "* ]]; then
    echo "FAIL: 'sax $cmd --help' does not start with 'usage: sax $cmd ': $(head -n 1 <<<"$help")"
    fail=1
fi
if grep -q "(not implemented yet)" <<<"$help"; then
    err=$("$sax" "$cmd" x 2>&1 >/dev/null)
    status=$?
    echo "sax $cmd is marked not implemented; 'sax $cmd x' -> $status: $err"
    if [[ $status -ne 2 || $err != "sax $cmd: not implemented yet" ]]; then
        echo "FAIL: expected exit 2 and exactly 'sax $cmd: not implemented yet' on stderr"
        fail=1
    fi
else
    err=$("$sax" "$cmd" 2>&1 >/dev/null)
    status=$?
    echo "sax $cmd is implemented; 'sax $cmd' without arguments -> $status: $err"
    if [[ $status -ne 2 ]]; then
        echo "FAIL: a missing required argument must exit 2"
        fail=1
    fi
    if grep -q "not implemented" <<<"$err"; then
        echo "FAIL: an implemented command says 'not implemented'"
        fail=1
    fi
fi
exit $fail
