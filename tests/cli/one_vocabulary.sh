#!/bin/bash
# one_vocabulary.sh SAX CONFIG - every command prints a candidate and a scenario the same way, in the
# units the configuration wrote (issue "answers users can act on", "one vocabulary"):
#  - the contract's sweep writes its scenarios as "10 Tbit/s"/"40 Tbit/s" and "0.1 ms"/"1 ms": the
#    text of `sax sweep` and of `sax report` label each scenario with exactly those words, never in
#    another unit (10 Tbit/s is 1.25 TB/s: that must not appear);
#  - the results file keeps them: /scenarios' display_units is "Tbit/s"/"ms" and display_unit_si the
#    SI value of one unit (1 Tbit/s = 1e12 bit/s / 8 = 1.25e11 B/s; 1 ms = 1e-3 s), per field;
#  - the best's figures read the same in sweep, eval and report: its time, tokens/s and cross-site
#    bytes, each formatted here from the sweep's --json numbers (4 significant digits, decimal
#    prefixes: the documented vocabulary), appear in all three texts.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh"
SAX=$1
CONFIG=$2
work=$(mktemp -d /tmp/sax-vocab.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$CONFIG" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["space"].update({"tp": [4, 8], "pp": [4, 8], "vpp": [1], "zero": [1], "recompute": ["selective"],
                   "schedule": ["1f1b"], "transport": ["roce-sr"], "connections": [1]})
assert d["space"]["scenarios"] == {"site_links[0].bandwidth": ["10 Tbit/s", "40 Tbit/s"],
                                   "site_links[0].latency": ["0.1 ms", "1 ms"]}, d["space"]["scenarios"]
json.dump(d, open("small.json", "w"))
PYEOF
check "a smaller copy of the contract's sweep" test -s small.json

"$SAX" sweep small.json -o r.h5 > sweep.txt 2> sweep.err
check "sweep exits 0" test $? -eq 0
"$SAX" sweep small.json -o r2.h5 --json > sweep.json 2> /dev/null
check "sweep --json exits 0" test $? -eq 0
"$SAX" report r.h5 > report.txt 2> report.err
check "report exits 0" test $? -eq 0

for label in "site_links[0].bandwidth = 10 Tbit/s, site_links[0].latency = 0.1 ms" \
    "site_links[0].bandwidth = 10 Tbit/s, site_links[0].latency = 1 ms" \
    "site_links[0].bandwidth = 40 Tbit/s, site_links[0].latency = 0.1 ms" \
    "site_links[0].bandwidth = 40 Tbit/s, site_links[0].latency = 1 ms"; do
    check "sweep labels a scenario '$label'" grep -qF ": $label" sweep.txt
    check "report labels a scenario '$label'" grep -qF ": $label" report.txt
done
check "no scenario is relabelled in TB/s by sweep" bash -c '! grep -q "bandwidth = [0-9.]* TB/s" sweep.txt'
check "no scenario is relabelled in TB/s by report" bash -c '! grep -q "bandwidth = [0-9.]* TB/s" report.txt'

"$PY" - r.h5 <<'PYEOF'
import sys
import h5py
s = h5py.File(sys.argv[1], "r")["scenarios"]
names = list(s.dtype.names)
units = [u.decode() if isinstance(u, bytes) else u for u in s.attrs["display_units"]]
si = list(s.attrs["display_unit_si"])
want = {"scenario": ("", 0.0), "site_links[0].bandwidth": ("Tbit/s", 1.25e11), "site_links[0].latency": ("ms", 1e-3)}
ok = True
for n, u, x in zip(names, units, si):
    wu, wx = want[n]
    if u != wu or abs(x - wx) > 1e-12 * max(wx, 1):
        print(f"{n}: display unit {u!r} x {x}, expected {wu!r} x {wx}")
        ok = False
# each stored value shown in its unit is one of the configuration's numbers
for row in s[:]:
    b = row["site_links[0].bandwidth"] / 1.25e11
    l = row["site_links[0].latency"] / 1e-3
    if min(abs(b - 10), abs(b - 40)) > 1e-9 or min(abs(l - 0.1), abs(l - 1)) > 1e-12:
        print("a stored value is not one the configuration wrote:", row)
        ok = False
sys.exit(0 if ok else 1)
PYEOF
check "the results file keeps the configuration's units (display_units, display_unit_si)" test $? -eq 0

# the best of scenario 0 in the documented vocabulary, formatted here from the --json numbers
"$PY" - sweep.json > expect.txt <<'PYEOF'
import json, sys
b = json.load(open(sys.argv[1]))["scenarios"][0]["best"]
d = b["result"]
def q(x, unit):
    if unit == "s":
        sc, u = (1, "s") if x >= 1 or x <= 0 else ((1e-3, "ms") if x >= 1e-3 else (1e-6, "us"))
    else:
        p, sc = 0, 1.0
        while p < 6 and abs(x) >= sc * 1000:
            sc, p = sc * 1000, p + 1
        u = ["", "k", "M", "G", "T", "P", "E"][p] + unit
    return f"{x / sc:.4g}" + (" " + u if u else "")
print(q(d["iteration_time_s"], "s"))
print(q(d["tokens_per_s"], ""))
print(q(d["cross_site_bytes_per_iteration"], "B"))
print(b["index"])
PYEOF
mapfile -t want < expect.txt
"$SAX" eval r.h5 --candidate "${want[3]}" > eval.txt 2>&1
check "eval --candidate exits 0" test $? -eq 0
for t in sweep.txt eval.txt; do
    check "$t: iteration time ${want[0]}" grep -qE "^ *iteration time +${want[0]}\$" "$t"
    check "$t: tokens per s ${want[1]}" grep -qE "^ *tokens per s +${want[1]}\$" "$t"
    check "$t: cross-site bytes ${want[2]}" grep -qE "^ *cross-site bytes +${want[2]} per iteration\$" "$t"
done
check "report: the same best, ${want[0]} per iteration, ${want[1]} tokens/s, cross-site ${want[2]}" \
    grep -qF "best: ${want[0]} per iteration, ${want[1]} tokens/s, MFU" report.txt
check "report: cross-site ${want[2]} per iteration" grep -qF "cross-site ${want[2]} per iteration" report.txt
check_summary one_vocabulary
