#!/usr/bin/env bash
# corrupt_checkpoint.sh SAX CONFIG.json - a damaged checkpoint is refused (docs/reliability.md,
# "Corrupt checkpoints"). A sweep of CONFIG is interrupted with SIGTERM (exit 3, RESULTS.h5.ckpt);
# then, one at a time in its place: 50 copies with 8 random bytes overwritten at a random offset
# (fixed seed), 6 truncations, a byte appended, a BEL as the format byte, the older format 1, and
# 11 forgeries whose CRC-64 is recomputed (only the range checks can refuse them). Each
# `sax sweep CONFIG -o part.h5 --resume` must exit 2 with a message naming the checkpoint (and,
# for a forgery, the field), leave it byte-identical and write no results. Last, the intact
# checkpoint must resume with exit 0 (the refusals are not a refusal of every checkpoint).
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
sax=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
config=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
py=/usr/bin/python3
work=$(mktemp -d /tmp/sax-ckpt.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# the checkpoint of an interrupted sweep
"$sax" sweep "$config" -o part.h5 --progress 0.02 --checkpoint-every 0 > /dev/null 2> part.err &
pid=$!
for _ in $(seq 1 3000); do
    grep -q "candidates (" part.err 2> /dev/null && break
    sleep 0.01
done
kill -TERM "$pid"
wait "$pid"
status=$?
check "the interrupted sweep exits 3" test "$status" -eq 3
check "it leaves a checkpoint" test -s part.h5.ckpt
[[ -s part.h5.ckpt ]] || { check_summary corrupt_checkpoint; exit 1; }
cp part.h5.ckpt intact.ckpt
echo "checkpoint: $(stat -c %s intact.ckpt) bytes, $(grep -o 'after [0-9]* of [0-9]*' part.err)"

# the damaged copies: corrupt/NN-what
mkdir corrupt
"$py" - intact.ckpt corrupt <<'EOF'
import random, sys
src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
rng = random.Random(20261203)
for i in range(50):
    at = rng.randrange(0, len(data) - 8 + 1)
    new = bytes(rng.randrange(256) for _ in range(8))
    while new == data[at:at + 8]:
        new = bytes(rng.randrange(256) for _ in range(8))
    open(f"{out}/{i:02d}-bytes-{at}", "wb").write(data[:at] + new + data[at + 8:])
for n in (0, 7, 40, len(data) // 2, len(data) - 8, len(data) - 1):
    open(f"{out}/trunc-{n}", "wb").write(data[:n])
open(f"{out}/append-1", "wb").write(data + b"\0")
assert data[:8] == b"SAXCKPT2" or data[:8] == b"SAXCKPT1", data[:8]
open(f"{out}/format-1", "wb").write(b"SAXCKPT1" + data[8:])
open(f"{out}/format-byte-bel", "wb").write(b"SAXCKPT\a" + data[8:])  # never echoed to the terminal
EOF

# Forged checkpoints: a field out of range, with the CRC-64 made to match again, so that the range
# checks behind the checksum are what refuses them (forged/NAME.expect: what the message must say).
mkdir forged
space=$(grep -o 'after [0-9]* of [0-9]*' part.err | awk '{print $4}')
"$py" - intact.ckpt forged "$space" <<'EOF'
import math, struct, sys
src, out, space = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(src, "rb").read())
old = data[:8] == b"SAXCKPT1"  # format 1 (sax before the CRC): no CRC to strip or recompute
if not old:
    data = data[:-8]
def crc64(b):  # CRC-64/XZ, bit by bit
    c = 0xFFFFFFFFFFFFFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0xC96C5795D7870F42 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFFFFFFFFFF
assert crc64(b"123456789") == 0x995DC9BBDF1939FA
rec_size, counts_size = struct.unpack_from("<QQ", data, 8)
n_ranges, n_records = struct.unpack_from("<qq", data, 40)
lo_at, hi_at = 56, 56 + 8 * n_ranges
counts_at = 56 + 16 * n_ranges
recs_at = counts_at + counts_size
assert n_records >= 1 and len(data) == recs_at + rec_size * n_records
def forge(name, at, fmt, value, expect):
    d = bytearray(data)
    struct.pack_into(fmt, d, at, value)
    open(f"{out}/{name}", "wb").write(bytes(d) + (b"" if old else struct.pack("<Q", crc64(d))))
    open(f"{out}/{name}.expect", "w").write(expect)
q = lambda at: struct.unpack_from("<q", data, at)[0]
forge("range-beyond-space", hi_at, "<q", space + 1, "finished range 0 is")
forge("range-negative", lo_at, "<q", -1, "finished range 0 is")
forge("range-empty", hi_at, "<q", q(lo_at), "finished range 0 is")
forge("evaluated-plus-one", counts_at, "<q", q(counts_at) + 1, "its counts account for")
forge("evaluated-negative", counts_at, "<q", -1, "a candidate count is negative")
forge("record-index-beyond-space", recs_at, "<q", space + 5, "record 0 has candidate index")
forge("record-scenario", recs_at + 8, "<i", struct.unpack_from("<i", data, recs_at + 8)[0] + 1,
      "is not a feasible candidate of scenario")
forge("elapsed-nan", 32, "<d", math.nan, "elapsed time")
forge("ranges-count-huge", 40, "<q", 1 << 62, "finished ranges, expected 0 to")
# a checkpoint from a build whose records or counts have another size: the CRC matches, so the sizes
# in the header are what refuses it (one of the two sizes changed at a time)
forge("record-size", 8, "<Q", rec_size + 8, "written by a different build of sax")
forge("counts-size", 16, "<Q", counts_size + 8, "written by a different build of sax")
EOF
for bad in forged/*; do
    [[ $bad == *.expect ]] && continue
    cp "$bad" part.h5.ckpt
    sum=$(cksum < part.h5.ckpt)
    out=$(timeout 120 "$sax" sweep "$config" -o part.h5 --resume 2>&1 > /dev/null)
    status=$?
    echo "$(basename "$bad"): exit $status: $(grep -m 1 'sax sweep:' <<<"$out" | cut -c 1-220)"
    check "forged $(basename "$bad"): exit 2, refused for it" \
        test "$status" -eq 2 -a -n "$(grep -F -- "$(cat "$bad.expect")" <<<"$out")"
    check "forged $(basename "$bad"): left byte-identical, no results" \
        test -e part.h5.ckpt -a "$(cksum < part.h5.ckpt)" == "$sum" -a ! -e part.h5
    rm -f part.h5
done

exit2=0 named=0 kept=0 nothing=0 n=0
for bad in corrupt/*; do # the random damage: the CRC-64 refuses it
    n=$((n + 1))
    cp "$bad" part.h5.ckpt
    sum=$(cksum < part.h5.ckpt)
    out=$(timeout 120 "$sax" sweep "$config" -o part.h5 --resume 2>&1 > /dev/null)
    status=$?
    label="$(basename "$bad"): exit $status: $(grep -m 1 'sax sweep:' <<<"$out" | cut -c 1-220)"
    echo "$label"
    [[ $status -eq 2 ]] && exit2=$((exit2 + 1)) || echo "FAIL (exit): $label"
    grep -q "part.h5.ckpt:" <<<"$out" && named=$((named + 1)) || echo "FAIL (message): $label"
    [[ -e part.h5.ckpt && $(cksum < part.h5.ckpt) == "$sum" ]] && kept=$((kept + 1)) ||
        echo "FAIL (checkpoint changed): $label"
    [[ ! -e part.h5 ]] && nothing=$((nothing + 1)) || echo "FAIL (results written): $label"
    rm -f part.h5
done
check "every damaged checkpoint: --resume exits 2 ($exit2 of $n)" test "$exit2" -eq "$n"
check "every damaged checkpoint: the message names it ($named of $n)" test "$named" -eq "$n"
check "every damaged checkpoint: left byte-identical ($kept of $n)" test "$kept" -eq "$n"
check "every damaged checkpoint: no results file ($nothing of $n)" test "$nothing" -eq "$n"

cp corrupt/format-1 part.h5.ckpt
out=$("$sax" sweep "$config" -o part.h5 --resume 2>&1 > /dev/null)
check "a checkpoint of format 1 is refused as an older format" grep -q "format 1, written by an older sax" <<<"$out"
rm -f part.h5

cp intact.ckpt part.h5.ckpt
"$sax" sweep "$config" -o part.h5 --resume > /dev/null 2> resume.err
check "the intact checkpoint resumes with exit 0" test $? -eq 0
check "and writes the results" test -s part.h5
check "and removes the checkpoint" test ! -e part.h5.ckpt
check_summary corrupt_checkpoint
