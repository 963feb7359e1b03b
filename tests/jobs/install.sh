#!/bin/bash
# install.sh BUILD_DIR SOURCE_DIR - `cmake --install BUILD_DIR --prefix DIR` as a site module would:
# DIR/bin/sax and DIR/share/sax (README, docs, job scripts, examples); the installed sax runs the
# installed examples as the build's sax runs the source tree's; the installed jobs/setup.sh, run
# outside any source tree, finds sax on PATH and the installed examples (and refuses `test`).
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
BUILD=$1
SRC=$2
SAX=$BUILD/bin/sax
work=$(mktemp -d /tmp/sax-install.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
share=$prefix/share/sax

cmake --install "$BUILD" --prefix "$prefix" > "$work/install.log" 2>&1
check "cmake --install exits 0" test $? -eq 0
check "bin/sax is installed" test -x "$prefix/bin/sax"
check "the README is installed" cmp -s "$SRC/README.md" "$share/README.md"
for f in "$SRC"/docs/*.md; do
    check "docs/$(basename "$f") is installed" cmp -s "$f" "$share/docs/$(basename "$f")"
done
for f in "$SRC"/jobs/examples/*.json; do
    check "examples/$(basename "$f") is installed" cmp -s "$f" "$share/examples/$(basename "$f")"
done
for f in setup.sh sweep.sbatch split.py merge.py local-slurm.sh; do
    check "jobs/$f is installed, executable" test -x "$share/jobs/$f"
done

"$prefix/bin/sax" --help > "$work/help.txt" 2>&1
check "the installed sax --help exits 0" test $? -eq 0
check "... and prints the build's help" cmp -s "$work/help.txt" <("$SAX" --help 2>&1)
ex=campus-3bldg-llama405b.json
"$prefix/bin/sax" eval "$share/examples/$ex" > "$work/eval-installed.txt" 2>&1
check "the installed sax evaluates an installed example" test $? -eq 0
# the first line names the file
check "... as the build's sax evaluates the source tree's" \
    cmp -s <(tail -n +2 "$work/eval-installed.txt") <("$SAX" eval "$SRC/jobs/examples/$ex" 2>&1 | tail -n +2)

# the installed setup.sh, from a directory outside any source tree
mkdir -p "$work/run" && cd "$work/run" || exit 1
PATH=$prefix/bin:$PATH SAX_EXAMPLE=$share/examples/hetero-h100-b200.json \
    "$share/jobs/setup.sh" example > setup.out 2>&1
check "installed setup.sh example exits 0 with sax on PATH" test $? -eq 0
check "... writes ./out/hetero-h100-b200.h5" test -s out/hetero-h100-b200.h5
check "... with the sax on PATH" grep -q "next: $prefix/bin/sax report" setup.out
"$share/jobs/setup.sh" --help > help.out 2>&1
check "installed setup.sh --help names the installed examples" grep -qF "$share/examples/$ex" help.out
PATH=/usr/bin:/bin "$share/jobs/setup.sh" example > nosax.out 2>&1
check "installed setup.sh example without sax on PATH exits 2" test $? -eq 2
check "... saying so" grep -q "no sax on PATH" nosax.out
"$share/jobs/setup.sh" test > test.out 2>&1
check "installed setup.sh test exits 2 (needs the source tree)" test $? -eq 2

check_summary install
