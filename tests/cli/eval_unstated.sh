#!/bin/bash
# eval_unstated.sh SAX RUNS - `sax eval` on a configuration that leaves software settings to sax's
# defaults: Megatron-LM's Llama 3 70B on 64 H100 of RUNS without its tp_comm_overlap. The text lists
# the settings that move the answer by 1 % or more (TP overlap among them, the one the run set); each
# entry of --json's `unstated`, written into the file, gives the time it says, and the key it writes is
# not listed again. A key the file states is never listed.
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
RUNS=$2
work=$(mktemp -d /tmp/sax-eval-unstated.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

"$PY" - "$RUNS" <<'PYEOF'
import json, sys
row = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "mlm-llama3-70b-64")
cfg = row["config"]
cfg["training"].pop("tp_comm_overlap")
json.dump(cfg, open("open.json", "w"))
PYEOF
check "the configuration is written" test -s open.json

"$SAX" eval open.json > open.txt 2> open.err
check "it evaluates (exit 0)" test $? -eq 0
check "the text names what the file leaves to sax's defaults" grep -q "settings the file leaves to sax's defaults" open.txt
check "TP overlap, which the run set, is among them" grep -Eq "^  training.tp_comm_overlap +true +[0-9.]+ s +-[0-9.]+ %$" open.txt
check "a stated key is not listed" bash -c "test -s open.txt && ! grep -q 'training.dropout ' open.txt"
"$SAX" eval open.json --json > open.out 2>> open.err
check "--json evaluates" test $? -eq 0

"$PY" - "$SAX" open.json open.out <<'PYEOF'
import json, subprocess, sys
sax, path, out = sys.argv[1:4]
r = json.load(open(out))
un = r["unstated"]
keys = {u["key"] for u in un}
assert "training.tp_comm_overlap" in keys, keys
for stated in ("training.dropout", "training.cross_entropy_loss_fusion"):
    assert stated not in keys, (stated, keys)
for u in un:
    cfg = json.load(open(path))
    section, name = u["key"].split(".")
    cfg[section][name] = u["value"]
    json.dump(cfg, open("one.json", "w"))
    e = json.loads(subprocess.run([sax, "eval", "one.json", "--json"], capture_output=True, text=True,
                                  check=True).stdout)
    assert e["feasible"] is u["feasible"], (u, e["infeasible_reason"])
    if u["feasible"]:
        assert abs(e["iteration_time_s"] - u["iteration_time_s"]) <= 1e-9 * u["iteration_time_s"], u
        assert abs(u["change"] - (u["iteration_time_s"] / r["iteration_time_s"] - 1)) <= 1e-9, u
        assert u["key"] not in {v["key"] for v in e["unstated"]}, u
    else:
        assert e["infeasible_reason"] == u["infeasible_reason"], u
print(len(un), "other values, each as it says when written into the file")
PYEOF
check "each entry of unstated, written into the file, gives the time it says" test $? -eq 0
check_summary eval_unstated
