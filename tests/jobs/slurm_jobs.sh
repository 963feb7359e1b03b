#!/bin/bash
# slurm_jobs.sh SAX MPIEXEC SOURCE_DIR BUILD_DIR - jobs/sweep.sbatch, jobs/split.py and jobs/merge.py against a real
# single-node Slurm started here (jobs/local-slurm.sh: munged, slurmctld, slurmd under a temporary
# directory, on free ports):
#   1. sweep.sbatch with 2 tasks gives the results of a local `mpirun -n 2` run of the same configuration,
#      and records the command, `sax --version`, the configuration and the settings next to them;
#   2. interrupted (SIGTERM to the job's tasks, as --signal=TERM@N delivers it) with SAX_REQUEUE=0: the
#      job ends with exit code 3 and a checkpoint; the command it prints continues it in a new job,
#      which ends with the uninterrupted results;
#   3. interrupted with requeueing on (the default): the job requeues itself and its second run resumes
#      and ends with the uninterrupted results;
#   4. a job array over jobs/split.py's parts, merged by jobs/merge.py, gives the results (with /rows) of
#      one local run;
#   5. installed (cmake --install BUILD_DIR), sweep.sbatch submitted from outside the source tree with
#      neither SAX_BIN nor SAX_CONFIG runs the sax on PATH on the installed campus example.
# Exit 77 (CTest SKIP_RETURN_CODE) only when Slurm cannot run here: not root, packages missing, or the
# daemons do not start (the message says why; SAX_REQUIRE_SLURM=1 turns the last case into a failure).
# Every daemon started is stopped by PID on exit, also on failure; daemons of earlier runs of this test
# whose test process is gone are stopped first (only those: their directories are this test's).
set -u
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../check.sh" # check, fail, check_summary
SAX=$1
MPIEXEC=$2
SRC=$3
BUILD=$4
JOBS=$SRC/jobs
EXAMPLES=$JOBS/examples
PY=/usr/bin/python3
same_results() { "$PY" "$SRC/tests/jobs/same_results.py" "$@"; }
T0=$(date +%s)

note() { printf 'slurm_jobs: [%3d s] %s\n' $(($(date +%s) - T0)) "$*"; }
job_ok() { # LOG STATE - the job ended with exit code 0; else show the end of its log
    grep -q 'JobState=COMPLETED ExitCode=0:0' <<< "$2" && return 0
    echo "--- end of $1:" >&2
    tail -n 15 "$1" >&2
    return 1
}
fatal() { # a step the rest depends on failed: report and stop
    fail "$*"
    exit 1
}

# ---- leftovers of earlier runs: stop their daemons, if their test process is gone ---------------------
for old in /tmp/sax-slurm-test.*; do
    [[ -f $old/owner ]] || continue
    owner=$(cat "$old/owner")
    if [[ -n $owner ]] && ! kill -0 "$owner" 2> /dev/null; then
        note "stopping the daemons of an earlier run in $old (its test process $owner is gone)"
        "$JOBS/local-slurm.sh" stop "$old/cluster" > /dev/null 2>&1
        rm -rf "$old"
    fi
done

if ! "$PY" -c 'import h5py, numpy' 2> /dev/null; then
    fatal "$PY with h5py and numpy is required (Debian: python3-h5py python3-numpy)"
fi
work=$(mktemp -d /tmp/sax-slurm-test.XXXXXX) || exit 1
echo $$ > "$work/owner"
chmod 0711 "$work" # munged (the munge user) must reach its socket below it
cleanup() {
    if [[ $failures -gt 0 ]]; then # the job logs, for a failure in CI
        for f in "$work"/*.out; do
            [[ -f $f ]] || continue
            echo "--- $(basename "$f") (last 20 lines)" >&2
            tail -n 20 "$f" >&2
        done
        for f in "$work"/cluster/slurm/log/*.log; do
            echo "--- $(basename "$f") (errors, last 30)" >&2
            grep -iE 'error|fail|requeue' "$f" | tail -n 30 >&2
        done
    fi
    "$JOBS/local-slurm.sh" stop "$work/cluster"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cd "$work" || exit 1

# ---- the cluster ------------------------------------------------------------------------------------
"$JOBS/local-slurm.sh" start "$work/cluster" > cluster.env 2> cluster.err
status=$?
if [[ $status -eq 4 ]]; then
    echo "SKIPPED: Slurm cannot run here: $(cat cluster.err)"
    exit 77
fi
if [[ $status -ne 0 ]]; then
    # Installed but not startable here (a container without the privileges slurmd needs, ...): a skip,
    # unless SAX_REQUIRE_SLURM=1 says this machine must run it.
    [[ ${SAX_REQUIRE_SLURM:-0} == 1 ]] && fatal "jobs/local-slurm.sh start: exit $status: $(cat cluster.err)"
    echo "SKIPPED: Slurm is installed but could not be started here (SAX_REQUIRE_SLURM=1 makes this a failure):"
    cat cluster.err
    exit 77
fi
# shellcheck disable=SC1091
source cluster.env
export SLURM_CONF
note "cluster up ($(grep -o 'port [0-9]*' cluster.err | head -n 1))"

# Waits for job JOB (all tasks of an array) to end; prints each task's final JobState and ExitCode.
wait_job() { # JOB TIMEOUT_S
    local end=$(($(date +%s) + $2)) info states
    while (($(date +%s) < end)); do
        info=$(scontrol show job -o "$1" 2> /dev/null)
        states=$(grep -o 'JobState=[A-Z_]*' <<< "$info")
        if [[ -n $states ]] && ! grep -qvE \
            'JobState=(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$' \
            <<< "$states"; then
            grep -o 'JobState=[A-Z_]* \|ExitCode=[0-9:]*' <<< "$info" | tr -d ' ' | tr '\n' ' '
            return 0
        fi
        sleep 0.2
    done
    echo "TIMEOUT: $(tr '\n' ' ' <<< "$states")"
    scancel "$1" 2> /dev/null
    return 1
}
# Waits until FILE shows that the sweep runs (a progress line), so its signal handlers are in place.
wait_progress() { # FILE TIMEOUT_S
    local end=$(($(date +%s) + $2))
    while (($(date +%s) < end)); do
        grep -q 'candidates (' "$1" 2> /dev/null && return 0
        sleep 0.1
    done
    return 1
}
elapsed_since() { # START (date +%s.%N) -> seconds since, one decimal
    awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# ---- the example: the campus study, grown until a 2-rank sweep takes several seconds ----------------
# More network options than the bundled example, and as many bandwidth scenarios as it takes for `sax
# space` to estimate about 4 s on 2 ranks on this machine (fewer on a slow build such as ASan).
"$PY" - "$EXAMPLES/campus-3bldg-llama405b.json" base.json << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["space"]
s["connections"] = [1, 2, 4, 8, 16, 32, 64]
s["transport"] = ["roce", "roce-gbn", "roce-sr", "tcp"]
s["compression"] = ["none", "bf16", "fp8"]
s["sequence_parallel"] = [True, False]
s["scenarios"] = {"site_links[0].bandwidth": ["8 Tbit/s"], "site_links[0].latency": ["0.1 ms", "0.5 ms", "1 ms"]}
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF
"$SAX" space base.json --json --ranks 2 --sample 0.3 > base.space.json || fatal "sax space base.json"
"$PY" - base.json base.space.json study.json << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
per_block = json.load(open(sys.argv[2]))["estimated_sweep_s"]  # 3 scenarios
pool = ["1 Tbit/s", "2 Tbit/s", "3 Tbit/s", "4 Tbit/s", "6 Tbit/s", "8 Tbit/s", "12 Tbit/s", "16 Tbit/s",
        "24 Tbit/s", "32 Tbit/s", "48 Tbit/s", "64 Tbit/s"]
n = max(1, min(len(pool), round(4.0 / max(per_block, 1e-3))))
d["space"]["scenarios"]["site_links[0].bandwidth"] = pool[:n]
# a build too slow for even one block in about 4 s (ASan: about 55 s) sweeps fewer connection counts, the
# space shrinking in proportion, so that every job of this test ends well inside its wait
conns = d["space"]["connections"]
keep = max(1, min(len(conns), round(len(conns) * 8.0 / max(per_block, 1e-3))))
d["space"]["connections"] = conns[:keep]
json.dump(d, open(sys.argv[3], "w"), indent=1)
EOF
scenarios=$("$PY" -c 'import json; d = json.load(open("study.json"))["space"]["scenarios"]; print(len(d["site_links[0].bandwidth"]) * 3)')
note "study.json: $scenarios scenarios, $("$SAX" space study.json --sample 0 | grep -o 'total *[0-9]* candidates')"

# ---- 0. the reference: a local mpirun of the same configuration -----------------------------------
t=$(date +%s.%N)
"$MPIEXEC" -n 2 "$SAX" sweep study.json -o ref.h5 --json > ref.json 2> ref.err ||
    fatal "local mpirun -n 2 sax sweep study.json: $(tail -n 5 ref.err)"
note "reference: mpirun -n 2 sax sweep took $(elapsed_since "$t") s"

common=(SAX_BIN="$SAX" SAX_CONFIG=study.json SAX_SWEEP_ARGS="--progress 0.5")
# --time well above sweep.sbatch's --signal=TERM@300, so that no warning signal comes by itself
sbatch_opts=(--ntasks=2 --time=15 --chdir="$work")

# ---- 1. one uninterrupted job -----------------------------------------------------------------------
j1=$(env "${common[@]}" sbatch --parsable "${sbatch_opts[@]}" --output="$work/job1.out" "$JOBS/sweep.sbatch")
[[ -n $j1 ]] || fatal "sbatch jobs/sweep.sbatch did not submit"
state=$(wait_job "$j1" 120)
note "job $j1 (uninterrupted): $state"
check "the uninterrupted job completes with exit code 0" job_ok job1.out "$state"
out1=$work/sax-runs/$j1
check "the results go to sax-runs/<job id>/results.h5" test -s "$out1/results.h5"
check "the job's results equal the local mpirun run's" same_results ref.h5 "$out1/results.h5"
check "the job echoes the srun command" grep -q "running: srun --nodes=1 --ntasks=2 --mpi=pmix .*sweep study.json" job1.out
check "command.sh holds that command" grep -q "^srun --nodes=1 --ntasks=2 --mpi=pmix .* sweep study.json -o sax-runs/$j1/results.h5" "$out1/command.sh"
check "sax-version.txt is sax --version" cmp -s <("$SAX" --version) "$out1/sax-version.txt"
check "config.json is the submitted configuration" cmp -s study.json "$out1/config.json"
check "settings.env records the settings" grep -q "^SAX_CONFIG=study.json$" "$out1/settings.env"
"$PY" -c 'import h5py, json, sys; sys.exit(json.load(open(sys.argv[1])) != json.loads(h5py.File(sys.argv[2], "r").attrs["config_json"]))' \
    "$out1/config.effective.json" ref.h5
check "config.effective.json is the effective configuration" test $? -eq 0
ranks=$("$PY" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r").attrs["ranks"])' "$out1/results.h5")
check "the job ran 2 ranks" test "$ranks" = 2

# resubmitting a finished sweep does nothing
j1b=$(env "${common[@]}" SAX_OUT_DIR="sax-runs/$j1" sbatch --parsable "${sbatch_opts[@]}" --output="$work/job1b.out" \
    "$JOBS/sweep.sbatch")
state=$(wait_job "$j1b" 60)
check "a finished sweep resubmitted exits 0" grep -q 'ExitCode=0:0' <<< "$state"
check "... saying the results exist" grep -q "results.h5 exists: the sweep is done" job1b.out

# ---- 2. interrupted, not requeued: exit code 3, the printed command continues it --------------------
j2=$(env "${common[@]}" SAX_REQUEUE=0 sbatch --parsable "${sbatch_opts[@]}" --output="$work/job2.out" "$JOBS/sweep.sbatch")
wait_progress job2.out 60 || fatal "job $j2 showed no progress in 60 s: $(tail -n 5 job2.out)"
# the delivery of --signal=TERM@N: SIGTERM to every task of the job's steps, not to the batch shell
scancel --signal=TERM "$j2"
state=$(wait_job "$j2" 60)
note "job $j2 (SIGTERM, SAX_REQUEUE=0): $state"
out2=$work/sax-runs/$j2
check "the interrupted job ends with exit code 3" grep -q 'JobState=FAILED ExitCode=3:0' <<< "$state"
check "the interrupted job leaves a checkpoint" test -s "$out2/results.h5.ckpt"
check "the interrupted job leaves no results file" test ! -e "$out2/results.h5"
check "run.log records the exit status 3" grep -q "exit 3 after" "$out2/run.log"
resume=$(sed -n 's/^sweep.sbatch: continue with: //p' job2.out)
check "the job prints the command that continues it" test -n "$resume"
# run it as printed, with this test's log file added to its sbatch options
j2b=$(bash -c "${resume/ sbatch / sbatch --output=$(printf '%q' "$work/job2b.out") }" | sed -n 's/^Submitted batch job //p')
[[ -n $j2b ]] || fatal "the printed command did not submit a job: $resume"
state=$(wait_job "$j2b" 120)
note "job $j2b (the printed command): $state"
check "the continuing job completes" job_ok job2b.out "$state"
check "the continuing job resumed from the checkpoint" grep -q -- "--resume" job2b.out
check "the checkpoint is gone" test ! -e "$out2/results.h5.ckpt"
check "interrupted + continued equals the uninterrupted results" same_results ref.h5 "$out2/results.h5"

# ---- 3. interrupted, requeued by the job itself, resumed in its second run --------------------------
j3=$(env "${common[@]}" sbatch --parsable "${sbatch_opts[@]}" --output="$work/job3.out" "$JOBS/sweep.sbatch")
wait_progress job3.out 60 || fatal "job $j3 showed no progress in 60 s: $(tail -n 5 job3.out)"
scancel --signal=TERM "$j3"
requeued=
for _ in $(seq 1 300); do
    info=$(scontrol show job -o "$j3")
    if grep -q 'JobState=PENDING' <<< "$info" && grep -q 'Restarts=1' <<< "$info"; then
        requeued=yes
        break
    fi
    sleep 0.2
done
check "the interrupted job requeues itself" test -n "$requeued"
# Slurm holds a requeued job for about two minutes (BeginTime); release it sooner, but not in the second
# in which slurmd revoked the first run's credential: slurmd refuses to launch a job whose credential
# is not newer than the revocation ("Job N already killed, do not launch batch job").
for _ in $(seq 1 100); do
    [[ $(sinfo -h -N -o '%t' | head -n 1) == idle ]] && break
    sleep 0.1
done
sleep 2
scontrol update JobId="$j3" StartTime=now
state=$(wait_job "$j3" 120)
note "job $j3 (SIGTERM, requeued): $state"
out3=$work/sax-runs/$j3
check "the requeued job completes" job_ok job3.out "$state"
check "run.log: the first run exited 3 and requeued" grep -q "restart 0: requeued" "$out3/run.log"
check "run.log: the second run resumed and exited 0" \
    grep -q "restart 1: start: srun .* --resume" "$out3/run.log"
check "interrupted + requeued equals the uninterrupted results" same_results ref.h5 "$out3/results.h5"

# ---- 4. a job array over split parts, merged ---------------------------------------------------------
small=$EXAMPLES/hetero-h100-b200.json
"$MPIEXEC" -n 2 "$SAX" sweep "$small" -o small-ref.h5 --store all --json > /dev/null 2> small-ref.err ||
    fatal "local mpirun of $small: $(tail -n 5 small-ref.err)"
"$PY" "$JOBS/split.py" "$small" --parts 4 -o parts > split.out 2>&1
check "split.py exits 0" test $? -eq 0
nparts=$("$PY" -c 'import json; print(len(json.load(open("parts/manifest.json"))["parts"]))')
check "hetero's 2 x 2 scenarios in 4 parts" test "$nparts" = 4
ja=$(env SAX_BIN="$SAX" SAX_PARTS=parts SAX_SWEEP_ARGS="--store all" sbatch --parsable --array=0-$((nparts - 1)) \
    --ntasks=1 --time=15 --chdir="$work" --output="$work/array-%A_%a.out" "$JOBS/sweep.sbatch")
state=$(wait_job "$ja" 120)
note "array $ja: $state"
check "every array task completes" test "$(grep -o 'JobState=COMPLETED ExitCode=0:0' <<< "$state" | wc -l)" -eq "$nparts"
"$PY" "$JOBS/merge.py" parts -o merged.h5 > merge.out 2>&1
check "merge.py exits 0" test $? -eq 0
check "the merged array equals one run (with /rows; /answer is not merged)" same_results small-ref.h5 merged.h5 \
    --except answer
"$SAX" report merged.h5 > /dev/null 2>&1
check "sax report reads the merged file" test $? -eq 0
"$PY" "$JOBS/merge.py" parts -o merged.h5 > /dev/null 2>&1
check "merge.py refuses to overwrite (exit 2)" test $? -eq 2
mv parts/part-0002/results.h5 parts/part-0002/moved.h5
"$PY" "$JOBS/merge.py" parts -o merged2.h5 > missing.out 2>&1
check "merge.py refuses a missing part (exit 2)" test $? -eq 2
check "... naming it" grep -q "part-0002/results.h5" missing.out

# ---- 5. the installed scripts: sax only on PATH, the installed example ----------------------------------
prefix=$work/prefix
cmake --install "$BUILD" --prefix "$prefix" > install.log 2>&1 || fatal "cmake --install $BUILD: $(tail -n 5 install.log)"
mkdir -p inst
ji=$(env -u SAX_BIN -u SAX_CONFIG PATH="$prefix/bin:$PATH" sbatch --parsable --ntasks=2 --time=15 \
    --chdir="$work/inst" --output="$work/job-installed.out" "$prefix/share/sax/jobs/sweep.sbatch")
state=$(wait_job "$ji" 180)
note "job $ji (installed sweep.sbatch): $state"
outi=$work/inst/sax-runs/$ji
check "the installed sweep.sbatch completes" job_ok job-installed.out "$state"
check "... with the sax on PATH" grep -qx "sax=$prefix/bin/sax" "$outi/settings.env"
check "... on the installed campus example" \
    grep -qx "config=$prefix/share/sax/examples/campus-3bldg-llama405b.json" "$outi/settings.env"
check "... writing its results" test -s "$outi/results.h5"

note "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
