#!/bin/bash
# messages.sh SAX CONFIG - messages that misled (issue 14, item 15), each checked for what it must
# say now; the configurations with lenient JSON are in tests/data/bad/ (bad_input_*).
#   - a scenario path index beyond a long is quoted as written, not as 9223372036854775807
#   - --checkpoint-every 1e9 says the upper bound, not "expected seconds >= 0"
#   - an existing directory as the output, even with --force, is refused at start (exit 2 within
#     10 s, before any work), not after the sweep when the rename fails
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
CONFIG=$2
work=$(mktemp -d /tmp/sax-messages.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

/usr/bin/python3 - "$CONFIG" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["space"]["scenarios"] = {"site_links[99999999999999999999].bandwidth": ["1 Tbit/s"]}
json.dump(c, open("index.json", "w"), indent=1)
PY
timeout 60 "$SAX" space index.json --sample 0 > out.txt 2> err.txt
check "huge scenario index: exit 2" test $? -eq 2
check "huge scenario index: the index as written" grep -q "index 99999999999999999999 is outside" err.txt
check "huge scenario index: no LONG_MAX" bash -c '! grep -q 9223372036854775807 err.txt'

timeout 60 "$SAX" sweep "$CONFIG" -o out.h5 --checkpoint-every 1e9 > out.txt 2> err.txt
check "--checkpoint-every 1e9: exit 2" test $? -eq 2
check "--checkpoint-every 1e9: says the upper bound" grep -q "less than 1e9" err.txt

mkdir outdir
start=$SECONDS
timeout 60 "$SAX" sweep "$CONFIG" -o outdir --force > out.txt 2> err.txt
rc=$?
check "a directory as output with --force: exit 2 (status $rc)" test $rc -eq 2
check "... within 10 s ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 10
check "... saying it is a directory" grep -q "found a directory" err.txt
check "... the directory untouched" test -d outdir -a -z "$(ls -A outdir)"
check_summary messages
