#!/bin/bash
# bench_sweep.sh SAX [REPEAT] - the sweep benchmarks of docs/performance.md ("Sweep"). Not a test:
# prints the figures, with the load average, so they can be read in context.
#   1. candidates/s of example (a) and of a 4x larger variant (36 scenarios) on 1 and 2 ranks
#   2. peak RSS per rank (GNU time) at three space sizes
#   3. pruned vs exhaustive evaluation counts on every example
set -u
SAX=${1:?usage: bench_sweep.sh SAX [REPEAT]}
REPEAT=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$HERE/../../jobs/examples
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d /tmp/sax-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# variants of example (a) with more scenarios: 36 (x4 candidates) and 180 (x20)
"$PY" - "$EXAMPLES/campus-3bldg-llama405b.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
bw = ["2 Tbit/s", "4 Tbit/s", "8 Tbit/s", "16 Tbit/s", "32 Tbit/s", "64 Tbit/s"]
lat = ["0.1 ms", "0.2 ms", "0.5 ms", "1 ms", "2 ms", "5 ms"]
d["space"]["scenarios"] = {"site_links[0].bandwidth": bw, "site_links[0].latency": lat}
json.dump(d, open("campus-x4.json", "w"))
d["space"]["scenarios"]["site_links[0].loss"] = [0, 1e-6, 1e-5, 1e-4, 1e-3]
json.dump(d, open("campus-x20.json", "w"))
# the same 9 scenarios as (a), 10.5 times more candidates each (more network values)
d = json.load(open(sys.argv[1]))
d["space"].update(transport=["roce", "roce-gbn", "roce-sr", "tcp"], connections=[1, 2, 4, 8, 16, 32, 64],
                  compression=["none", "bf16", "fp8"])
json.dump(d, open("campus-wide.json", "w"))
PYEOF

summary() { # FILE: candidates evaluated elapsed_s evaluated/elapsed_s sweep_cpu_s evaluated/sweep_cpu_s
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["candidates"], d["evaluated"], "%.4f" % d["elapsed_s"], "%.0f" % d["candidates_per_s"], "%.4f" % d["cpu_s"], "%.0f" % (d["evaluated"] / d["cpu_s"]))' "$1"
}

echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# each rank under GNU time: wall, user+sys CPU seconds and peak RSS of every rank in t.<rank>
run() { # RANKS CONFIG
    rm -f out.h5 t.*
    mpirun -n "$1" sh -c '/usr/bin/time -f "%e %U %S %M" -o t.$OMPI_COMM_WORLD_RANK "$0" sweep "$1" -o out.h5 --json' \
        "$SAX" "$2" > s.json 2> /dev/null
}
cpu_s() { cat t.* | awk '{ s += $2 + $3 } END { printf "%.2f", s }'; }
rss_kib() { sort t.* | awk '{ printf "%s ", $4 }'; }

echo "# 1. throughput: config ranks candidates evaluated sweep_s evaluated_per_sweep_s sweep_cpu_s evaluated_per_cpu_s process_cpu_s"
for cfg in "$EXAMPLES/campus-3bldg-llama405b.json" campus-x4.json; do
    for n in 1 2; do
        for r in $(seq 1 "$REPEAT"); do
            run "$n" "$cfg"
            echo "$(basename "$cfg") $n $(summary s.json) $(cpu_s)"
        done
    done
done

echo "# 2. peak RSS per rank (KiB): config ranks candidates rss_of_each_rank"
for cfg in "$EXAMPLES/campus-3bldg-llama405b.json" campus-wide.json campus-x4.json campus-x20.json; do
    for n in 1 2; do
        run "$n" "$cfg"
        echo "$(basename "$cfg") $n $(summary s.json | cut -d' ' -f1) $(rss_kib)"
    done
done

echo "# 3. pruned vs exhaustive (1 rank): example exhaustive_evaluated pruned_evaluated bound_evaluations pruned_skipped same_best"
for cfg in "$EXAMPLES"/*.json; do
    rm -f e.h5 p.h5
    "$SAX" sweep "$cfg" -o e.h5 --json > e.json 2> /dev/null
    "$SAX" sweep "$cfg" -o p.h5 --json --search pruned > p.json 2> /dev/null
    "$PY" - "$(basename "$cfg")" e.json p.json <<'PYEOF'
import json, sys
e, p = (json.load(open(f)) for f in sys.argv[2:4])
same = all(a["best"]["index"] == b["best"]["index"] and a["baselines"] == b["baselines"]
           for a, b in zip(e["scenarios"], p["scenarios"]))
print(sys.argv[1], e["evaluated"], p["evaluated"], p["bound_evaluations"], p["pruned"], same,
      "%.3f %.3f" % (e["elapsed_s"], p["elapsed_s"]))
PYEOF
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
