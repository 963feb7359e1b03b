# check.sh - sourced by the shell tests: one way to count what passed and to report what failed.
#   check NAME COMMAND...   runs COMMAND; a zero status passes ("ok: NAME" on stdout), any other
#                           fails ("FAIL: NAME" on stdout and stderr)
#   fail NAME               a failure found without a command
#   check_summary LABEL     prints "LABEL: P passed, F failed" and returns 0 only without failures
passes=0
failures=0

check() {
    local name=$1
    shift
    if "$@"; then
        passes=$((passes + 1))
        echo "ok: $name"
    else
        fail "$name"
    fi
}

fail() {
    failures=$((failures + 1))
    echo "FAIL: $1"
    echo "FAIL: $1" >&2
}

check_summary() {
    echo "$1: $passes passed, $failures failed"
    [[ $failures -eq 0 ]]
}
