#!/usr/bin/env bash
# bad_input.sh SAX CORPUS_DIR NAME.json [MPIEXEC NP] - one bad configuration through every command
# that reads it (docs/reliability.md, "Bad input"). CORPUS_DIR/expected.txt says which commands and
# what must follow the file name in the message. For each command: exit status 2, the file named
# with its JSON path, no sanitizer report, and no file created, changed or removed in the working
# directory - in particular `sax sweep -o out.h5` leaves no out.h5 (nor out.h5.tmp.*, nor a
# checkpoint), and an existing out.h5 (with and without --force, and with --resume and an existing
# checkpoint) stays byte-identical. With MPIEXEC NP, sweeps run on NP ranks.
#
# sax eval and sax space do not start MPI, so under the ASan build they run with LeakSanitizer on
# (a leak on an error path fails the test); sweeps start MPI and run with detect_leaks=0 (stack.md
# section 10; valgrind covers them, tests/reliability/valgrind.sh).
set -u
sax=$1
corpus=$(cd "$2" && pwd)
name=$3
mpiexec=${4:-}
np=${5:-1}
file=$corpus/$name

entry=$(grep -E "^${name//./\\.}[[:space:]]" "$corpus/expected.txt")
if [[ -z $entry ]]; then
    echo "FAIL: $name has no line in $corpus/expected.txt (every corpus file says where its error is)"
    exit 1
fi
read -r _ commands location <<<"$entry"
[[ $commands == all ]] && commands=eval,space,sweep

work=$(mktemp -d /tmp/sax-bad.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# A fingerprint of the working directory: every name with its checksum.
snapshot() { find . -mindepth 1 -printf '%p\n' | LC_ALL=C sort | while read -r p; do
    if [[ -f $p ]]; then echo "$p $(cksum < "$p")"; else echo "$p"; fi
done; }

# run LABEL COMMAND... : exit 2, the file and its location named, no sanitizer report, nothing
# written to the working directory.
run() {
    local label=$1
    shift
    local before after out status
    before=$(snapshot)
    out=$("$@" 2>&1)
    status=$?
    after=$(snapshot)
    printf '%s\n' "--- $label: exit $status" "$out" | head -c 2000
    echo
    [[ $status -eq 2 ]] || fail "$label: exit status $status, expected 2"
    grep -qF -- "$name$location" <<<"$out" || fail "$label: the message does not name '$name$location'"
    if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|core dumped' <<<"$out"; then
        fail "$label: sanitizer or crash report"
    fi
    [[ $before == "$after" ]] || fail "$label: the working directory changed:"$'\n'"$(diff <(echo "$before") <(echo "$after"))"
}

sweep() {
    if [[ -n $mpiexec ]]; then
        env ASAN_OPTIONS=detect_leaks=0 "$mpiexec" -n "$np" "$sax" sweep "$@"
    else
        env ASAN_OPTIONS=detect_leaks=0 "$sax" sweep "$@"
    fi
}

IFS=, read -r -a cmds <<<"$commands"
for cmd in "${cmds[@]}"; do
    case $cmd in
    eval)
        run "sax eval" "$sax" eval "$file"
        run "sax eval --json --trace" "$sax" eval "$file" --json --trace trace.json
        ;;
    space)
        run "sax space" "$sax" space "$file"
        ;;
    sweep)
        run "sax sweep, no output file yet" sweep "$file" -o out.h5
        # an existing output file (any content: it must not even be opened for writing)
        printf 'an existing results file\n' > out.h5
        head -c 4096 /dev/urandom >> out.h5
        run "sax sweep, existing output" sweep "$file" -o out.h5
        run "sax sweep --force, existing output" sweep "$file" -o out.h5 --force
        printf 'an existing checkpoint\n' > out.h5.ckpt
        run "sax sweep --resume, existing output and checkpoint" sweep "$file" -o out.h5 --resume
        rm -f out.h5 out.h5.ckpt
        ;;
    *)
        fail "unknown command '$cmd' in $corpus/expected.txt"
        ;;
    esac
done
echo "=== $name: $failures failure(s)"
[[ $failures -eq 0 ]]
