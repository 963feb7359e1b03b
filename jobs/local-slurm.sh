#!/usr/bin/env bash
# jobs/local-slurm.sh - a private single-node Slurm cluster (munged, slurmctld, slurmd) in a directory
# of your choice, to try sax's job scripts on a laptop or a CI machine and to test them.
#
#   jobs/local-slurm.sh start DIR   write DIR/slurm.conf, start the three daemons, wait until the node
#                                   is idle, print the `export SLURM_CONF=...` line every client needs
#   jobs/local-slurm.sh stop DIR    cancel DIR's jobs, stop its daemons (by the PIDs recorded there) and
#                                   any job process left behind (found by its SLURM_CONF=DIR/slurm.conf)
#   jobs/local-slurm.sh status DIR  which of DIR's daemons run; exit 0 when all three do
#
# Needs root (slurmd starts the jobs' processes; munged runs as the munge user) and Debian's slurm-wlm
# and munge packages. Nothing outside DIR is touched: munged gets its own key and socket in
# DIR/munge (the system's /run/munge and /etc/munge are left alone), slurmctld and slurmd get their
# own ports (free ones, chosen at start), state, spool, logs and PID files in DIR/slurm, so
# several clusters (several test runs) can coexist. Every PID this script kills is checked first:
# its command line must name DIR.
# Environment: SAX_SLURM_CPUS=N CPUs of the node (default: nproc); SAX_SLURM_WAIT=S seconds to wait
# for the node (default 30).
# Exit status: 0 done; 1 a daemon did not start or stop (its log is printed); 2 bad usage;
# 4 Slurm cannot run here (not root, packages missing): the message says what is missing.
set -euo pipefail

say() { printf 'local-slurm: %s\n' "$*" >&2; }
die() { # MESSAGE [EXIT_STATUS]
    printf 'local-slurm: %s\n' "$1" >&2
    exit "${2:-1}"
}

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

# True when something accepts TCP connections on 127.0.0.1:PORT.
port_busy() {
    (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null
}

# Prints a port P such that P and P+1 are free (slurmctld, slurmd).
free_ports() {
    local p tries
    for tries in $(seq 1 200); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        if ! port_busy "$p" && ! port_busy $((p + 1)); then
            echo "$p"
            return 0
        fi
    done
    die "no two consecutive free TCP ports found in 200 tries"
}

# The PID recorded in FILE when that process is alive and its command line names DIR; else nothing.
owned_pid() { # FILE DIR
    local pid
    [[ -s $1 ]] || return 0
    pid=$(tr -dc '0-9' < "$1")
    [[ -n $pid && -r /proc/$pid/cmdline ]] || return 0
    if tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$2"; then
        echo "$pid"
    fi
}

check_can_run() {
    local missing=() c
    for c in munged mungekey slurmctld slurmd sbatch srun squeue scontrol; do
        command -v "$c" > /dev/null 2>&1 || missing+=("$c")
    done
    [[ ${#missing[@]} -eq 0 ]] ||
        die "missing ${missing[*]}: install Debian's slurm-wlm and munge packages (apt-get install slurm-wlm munge)" 4
    [[ $(id -u) -eq 0 ]] || die "must run as root (slurmd starts the jobs' processes); running as $(id -un)" 4
    id munge > /dev/null 2>&1 || die "no 'munge' user: reinstall the munge package" 4
}

write_conf() { # DIR PORT
    local dir=$1 port=$2 cpus=${SAX_SLURM_CPUS:-$(nproc)}
    # A random first job id keeps the job ids (and PMIx's /tmp/spmix_appdir_<uid>_<job>.<step>
    # directories) of coexisting clusters apart.
    local first_job=$(((RANDOM * 32768 + RANDOM) % 1000000 + 1000))
    cat > "$dir/slurm.conf" << EOF
# written by jobs/local-slurm.sh: a single-node cluster private to $dir
ClusterName=saxlocal
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
FirstJobId=$first_job
StateSaveLocation=$dir/slurm/state
SlurmdSpoolDir=$dir/slurm/spool
SlurmctldPidFile=$dir/slurm/slurmctld.pid
SlurmdPidFile=$dir/slurm/slurmd.pid
SlurmctldLogFile=$dir/slurm/log/slurmctld.log
SlurmdLogFile=$dir/slurm/log/slurmd.log
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() { # DIR
    local dir=$1
    # munged insists that its key and socket directories belong to the munge user and that no
    # other user can write on the way there; DIR itself only needs to be searchable.
    chmod 0711 "$dir"
    runuser -u munge -- test -x "$dir" ||
        die "the munge user cannot enter $dir: make its parent directories searchable (chmod o+x)"
    # (the socket's directory must be searchable by all, the key's by munge only).
    install -d -o munge -g munge -m 0755 "$dir/munge"
    install -d -o munge -g munge -m 0700 "$dir/munge/private"
    mungekey --create --keyfile="$dir/munge/private/munge.key" --bits=1024 2> /dev/null ||
        dd if=/dev/urandom of="$dir/munge/private/munge.key" bs=128 count=1 status=none
    chown munge:munge "$dir/munge/private/munge.key"
    chmod 0600 "$dir/munge/private/munge.key"
    runuser -u munge -- /usr/sbin/munged --socket="$dir/munge/munge.socket" \
        --key-file="$dir/munge/private/munge.key" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/private/munged.seed" ||
        {
            cat "$dir/munge/munged.log" >&2 2> /dev/null || true
            die "munged did not start"
        }
    munge -n --socket="$dir/munge/munge.socket" | unmunge --socket="$dir/munge/munge.socket" > /dev/null ||
        die "munged started but does not answer on $dir/munge/munge.socket"
}

wait_idle() { # DIR
    local dir=$1 state tries=$((${SAX_SLURM_WAIT:-30} * 10))
    for _ in $(seq 1 "$tries"); do
        state=$(SLURM_CONF=$dir/slurm.conf sinfo -h -N -o '%t' 2> /dev/null | head -n 1 || true)
        [[ $state == idle ]] && return 0
        sleep 0.1
    done
    cat "$dir/slurm/log/slurmctld.log" "$dir/slurm/log/slurmd.log" >&2 2> /dev/null || true
    die "the node is '${state:-unknown}', not idle, after ${SAX_SLURM_WAIT:-30} s (logs above)"
}

start() { # DIR
    local dir=$1
    check_can_run
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -n $(owned_pid "$dir/slurm/slurmctld.pid" "$dir") ]]; then
        die "a cluster already runs in $dir: stop it first (jobs/local-slurm.sh stop $dir)"
    fi
    rm -rf "$dir/slurm" "$dir/munge"
    mkdir -p "$dir/slurm/state" "$dir/slurm/spool" "$dir/slurm/log"
    local port
    port=$(free_ports)
    write_conf "$dir" "$port"
    start_munge "$dir"
    SLURM_CONF=$dir/slurm.conf /usr/sbin/slurmctld -f "$dir/slurm.conf" ||
        die "slurmctld did not start: $(tail -n 5 "$dir/slurm/log/slurmctld.log" 2> /dev/null)"
    SLURM_CONF=$dir/slurm.conf /usr/sbin/slurmd -f "$dir/slurm.conf" ||
        die "slurmd did not start: $(tail -n 5 "$dir/slurm/log/slurmd.log" 2> /dev/null)"
    wait_idle "$dir"
    say "node idle (slurmctld port $port, slurmd port $((port + 1)))"
    echo "export SLURM_CONF=$dir/slurm.conf"
}

# Sends SIGTERM to DIR's process recorded in FILE and waits up to 10 s for it, then SIGKILL.
stop_one() { # FILE DIR NAME
    local pid
    pid=$(owned_pid "$1" "$2")
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2> /dev/null || return 0
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2> /dev/null || return 0
        sleep 0.1
    done
    say "$3 (PID $pid) ignored SIGTERM for 10 s: SIGKILL"
    kill -KILL "$pid" 2> /dev/null || true
}

# PIDs of the job processes of DIR's cluster: slurmstepd and the jobs' tasks (slurmd hands its
# SLURM_CONF to slurmstepd, and the jobs inherit it), which outlive slurmd when it stops.
job_pids() { # DIR
    local conf="SLURM_CONF=$1/slurm.conf" p env
    for p in /proc/[0-9]*; do
        env=$(tr '\0' '\n' 2> /dev/null < "$p/environ") || continue
        grep -qxF "$conf" <<< "$env" || continue
        if grep -q '^SLURM_JOB_ID=' <<< "$env" || [[ $(tr '\0' ' ' 2> /dev/null < "$p/cmdline") == slurmstepd* ]]; then
            echo "${p#/proc/}"
        fi
    done
}

stop() { # DIR
    local dir pids
    [[ -d $1 ]] || return 0
    dir=$(cd "$1" && pwd)
    # Jobs still running are cancelled first, while the daemons can still end them cleanly.
    if [[ -n $(owned_pid "$dir/slurm/slurmctld.pid" "$dir") ]]; then
        local jobs
        jobs=$(SLURM_CONF=$dir/slurm.conf squeue -h -o '%A' 2> /dev/null | sort -u | tr '\n' ' ')
        if [[ -n ${jobs// /} ]]; then
            say "cancelling the jobs still in the queue: $jobs"
            # shellcheck disable=SC2086
            SLURM_CONF=$dir/slurm.conf scancel $jobs 2> /dev/null || true
            for _ in $(seq 1 100); do
                [[ -z $(SLURM_CONF=$dir/slurm.conf squeue -h -o '%A' 2> /dev/null) ]] && break
                sleep 0.1
            done
        fi
    fi
    stop_one "$dir/slurm/slurmd.pid" "$dir" slurmd
    stop_one "$dir/slurm/slurmctld.pid" "$dir" slurmctld
    stop_one "$dir/munge/munged.pid" "$dir" munged
    # Whatever of the jobs survived (a step whose slurmd is gone lingers): SIGTERM, then SIGKILL.
    pids=$(job_pids "$dir")
    if [[ -n $pids ]]; then
        say "stopping job processes left behind: $(tr '\n' ' ' <<< "$pids")"
        # shellcheck disable=SC2086
        kill -TERM $pids 2> /dev/null || true
        sleep 1
        pids=$(job_pids "$dir")
        # shellcheck disable=SC2086
        [[ -z $pids ]] || kill -KILL $pids 2> /dev/null || true
    fi
}

status() { # DIR
    local dir n=0 pid name file
    dir=$(cd "$1" && pwd)
    for name in munged slurmctld slurmd; do
        case $name in
        munged) file=$dir/munge/munged.pid ;;
        *) file=$dir/slurm/$name.pid ;;
        esac
        pid=$(owned_pid "$file" "$dir")
        if [[ -n $pid ]]; then
            echo "$name: running (PID $pid)"
            n=$((n + 1))
        else
            echo "$name: not running"
        fi
    done
    [[ $n -eq 3 ]]
}

case ${1:-} in
start | stop | status)
    [[ $# -eq 2 ]] || {
        usage >&2
        exit 2
    }
    "$1" "$2"
    ;;
-h | --help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
