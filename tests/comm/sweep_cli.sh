#!/bin/bash
# sweep_cli.sh SAX MPIEXEC EXAMPLES - `sax space` and `sax sweep` end to end: the JSON summary, refusing
# to overwrite, SIGTERM -> exit 3 with a checkpoint, refusing a foreign checkpoint, --resume giving
# the uninterrupted results, and 2 ranks giving the 1-rank results.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
MPIEXEC=$2
EXAMPLES=$3
work=$(mktemp -d /tmp/sax-sweep-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

campus=$EXAMPLES/campus-3bldg-llama405b.json

"$SAX" space "$campus" --sample 0.05 > space.txt
check "sax space exits 0" test $? -eq 0
check "sax space prints the survivors" grep -q "pass cheap checks" space.txt

"$SAX" sweep "$campus" -o one.h5 --json > one.json 2> one.err
check "sweep exits 0" test $? -eq 0
check "sweep writes the results" test -s one.h5
# the contract's keys; a baseline is a subset of the space, so its best is never faster
"$PY" - one.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("evaluated", "skipped", "infeasible", "elapsed_s", "candidates_per_s", "ranks", "scenarios"):
    assert k in d, k
assert d["ranks"] == 1
assert d["evaluated"] + d["skipped"] == d["candidates"]
assert len(d["scenarios"]) == 9
for s in d["scenarios"]:
    assert set(s["values"]) == {"site_links[0].bandwidth", "site_links[0].latency"}
    b = s["best"]
    assert b["parallelism"]["tp"] in (2, 4, 8) and "transport" in b["network"]
    p = s["baselines"]["production"]
    if p is not None:
        assert p["speedup"] >= 1.0 and abs(p["speedup"] - p["iteration_time_s"] / b["iteration_time_s"]) < 1e-9
PYEOF
check "sweep --json has the contract's summary" test $? -eq 0

# bad usage and bad input: exit 2 with a message naming the problem
"$SAX" sweep "$campus" > /dev/null 2> usage.err
check "sweep without -o exits 2" test $? -eq 2
check "the message asks for -o" grep -q -- "-o RESULTS.h5" usage.err
"$SAX" sweep "$campus" -o x.h5 --search greedy > /dev/null 2> usage.err
check "an unknown --search exits 2" test $? -eq 2
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["space"]; json.dump(d, open("nospace.json", "w"))' \
    "$campus"
"$SAX" sweep nospace.json -o x.h5 > /dev/null 2> nospace.err
check "a configuration without space exits 2" test $? -eq 2
check "the message names the missing section" grep -q '"space"' nospace.err
"$SAX" space nospace.json > /dev/null 2> /dev/null
check "sax space without space exits 2" test $? -eq 2
check "no results file after bad input" test ! -e x.h5

# sax space counts exactly the candidates the sweep evaluates
"$SAX" space "$campus" --json --sample 0 > space.json
"$PY" - space.json one.json <<'PYEOF'
import json, sys
sp, sw = (json.load(open(p)) for p in sys.argv[1:3])
assert sp["candidates"] == sw["candidates"], (sp["candidates"], sw["candidates"])
assert sp["valid"] == sw["evaluated"], (sp["valid"], sw["evaluated"])
assert sum(sp["skipped"].values()) == sw["skipped"]
assert sp["skipped"] == sw["skipped_by"]
PYEOF
check "sax space counts what the sweep evaluates and skips" test $? -eq 0

"$SAX" sweep "$campus" -o one.h5 > /dev/null 2> exists.err
check "an existing results file is refused with exit 2" test $? -eq 2

# 2 ranks give the same summary (apart from ranks and timing)
"$MPIEXEC" -n 2 "$SAX" sweep "$campus" -o two.h5 --json --chunk 1000 > two.json 2> two.err
check "sweep on 2 ranks exits 0" test $? -eq 0
same_summary() {
    "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for k in ("elapsed_s", "candidates_per_s", "cpu_s", "output", "ranks"):
        d.pop(k)
sys.exit(0 if a == b else 1)
PYEOF
}
check "2 ranks give the 1-rank results" same_summary one.json two.json

# a space big enough to interrupt: 36 scenarios
"$PY" - "$campus" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["space"]["scenarios"] = {
    "site_links[0].bandwidth": ["2 Tbit/s", "4 Tbit/s", "8 Tbit/s", "16 Tbit/s", "32 Tbit/s", "64 Tbit/s"],
    "site_links[0].latency": ["0.1 ms", "0.2 ms", "0.5 ms", "1 ms", "2 ms", "5 ms"]}
json.dump(d, open("big.json", "w"))
PYEOF
"$SAX" sweep big.json -o full.h5 --json > full.json 2> /dev/null
check "uninterrupted big sweep exits 0" test $? -eq 0

"$SAX" sweep big.json -o part.h5 --json --progress 0.02 > /dev/null 2> part.err &
pid=$!
for _ in $(seq 1 600); do # wait until the sweep reports progress, then interrupt it
    grep -q "candidates (" part.err 2> /dev/null && break
    sleep 0.01
done
kill -TERM "$pid"
wait "$pid"
status=$?
check "SIGTERM exits 3" test "$status" -eq 3
check "SIGTERM leaves a checkpoint" test -s part.h5.ckpt
check "SIGTERM leaves no results file" test ! -e part.h5
check "the message says how to resume" grep -q -- "--resume" part.err

"$SAX" sweep big.json -o part.h5 > /dev/null 2> again.err
check "a new sweep over a checkpoint is refused with exit 2" test $? -eq 2
"$SAX" sweep big.json -o part.h5 --resume --top 5 > /dev/null 2> foreign.err
check "a checkpoint of different options is refused with exit 2" test $? -eq 2
check "the refusal says why" grep -q "different sweep" foreign.err

"$SAX" sweep big.json -o part.h5 --resume --json > resumed.json 2> resumed.err
check "--resume exits 0" test $? -eq 0
check "--resume removes the checkpoint" test ! -e part.h5.ckpt
check "--resume gives the uninterrupted results" same_summary full.json resumed.json
cmp -s <(h5dump -d /best -d /pareto -d /best_per_value -d /baseline_best full.h5 | tail -n +2) \
       <(h5dump -d /best -d /pareto -d /best_per_value -d /baseline_best part.h5 | tail -n +2)
check "--resume writes the uninterrupted reductions to HDF5" test $? -eq 0

check_summary sweep_cli
