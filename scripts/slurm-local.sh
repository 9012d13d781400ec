#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the farm recipe test (docs/farm.md): munged,
# slurmctld and slurmd with a generated slurm.conf (this machine's CPUs and memory from
# `slurmd -C`) in their own directory and on their own ports, so nothing system-wide is touched.
#
#   scripts/slurm-local.sh start   # start (or reuse) the cluster; prints `export SLURM_CONF=…`
#   scripts/slurm-local.sh stop    # stop the daemons this script started
#   scripts/slurm-local.sh logs    # print the daemons' logs (for a failed test)
#   scripts/slurm-local.sh status  # exit 0 when the cluster is up
#
# Needs Debian's slurm-wlm and munge (scripts/install-deps.sh installs them) and root (the
# daemons run as the invoking user, which Slurm only allows for root). Every wait is bounded.
set -euo pipefail
# The cluster lives in the system temporary directory ($TMPDIR, else the system default, as
# mktemp sees it) unless CINEPACK_SLURM_DIR names another; start, stop and the test agree on it.
DIR="${CINEPACK_SLURM_DIR:-$(dirname "$(mktemp -u)")/cinepack-slurm}"
CONF="$DIR/slurm.conf"
PORT_BASE="${CINEPACK_SLURM_PORT:-16817}"

logs() {
    for f in "$DIR"/log/*.log; do
        [ -f "$f" ] || continue
        echo "==== $f"
        tail -n 60 "$f"
    done
}

running() { [ -f "$DIR/run/$1.pid" ] && kill -0 "$(cat "$DIR/run/$1.pid")" 2>/dev/null; }

stop() {
    for d in slurmd slurmctld munged; do
        if running "$d"; then kill "$(cat "$DIR/run/$d.pid")" 2>/dev/null || true; fi
    done
    for _ in $(seq 1 50); do
        running slurmd || running slurmctld || running munged || break
        sleep 0.1
    done
}

start() {
    for tool in munged slurmctld slurmd sbatch sinfo; do
        command -v "$tool" >/dev/null || { echo "slurm-local: $tool is not installed (apt-get install slurm-wlm munge)" >&2; exit 2; }
    done
    [ "$(id -u)" = 0 ] || { echo "slurm-local: the daemons need root" >&2; exit 2; }
    if running slurmctld && running slurmd && running munged; then
        echo "export SLURM_CONF=$CONF"
        return
    fi
    stop
    rm -rf "$DIR"
    mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/run"
    chmod 700 "$DIR"
    head -c 1024 /dev/urandom >"$DIR/munge.key"
    chmod 400 "$DIR/munge.key"
    # Daemons are detached from the caller's terminal and output (setsid, /dev/null), so a caller
    # that waits for this script, such as a test runner, is not tied to them.
    setsid munged --key-file="$DIR/munge.key" --socket="$DIR/run/munge.socket" --pid-file="$DIR/run/munged.pid" \
        --log-file="$DIR/log/munged.log" --seed-file="$DIR/run/munge.seed" --force </dev/null >/dev/null 2>&1

    local host node
    host="$(hostname -s)"
    # slurmd -C prints this node's line (CPUs, sockets, cores, threads, memory); drop its UpTime line.
    node="$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")"
    cat >"$CONF" <<CONF
ClusterName=cinepack
SlurmctldHost=$host
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 1))
AuthType=auth/munge
AuthInfo=socket=$DIR/run/munge.socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
$node State=UNKNOWN
PartitionName=cinepack Nodes=ALL Default=YES MaxTime=30 State=UP
CONF
    export SLURM_CONF="$CONF"
    setsid slurmctld -f "$CONF" </dev/null >/dev/null 2>&1
    setsid slurmd -f "$CONF" </dev/null >/dev/null 2>&1
    for _ in $(seq 1 60); do
        if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
            echo "export SLURM_CONF=$CONF"
            return
        fi
        sleep 0.5
    done
    echo "slurm-local: the node did not become idle within 30 s" >&2
    sinfo >&2 || true
    logs >&2
    exit 1
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
logs) logs ;;
status) running slurmctld && running slurmd && running munged ;;
*)
    echo "usage: $0 start|stop|logs|status" >&2
    exit 2
    ;;
esac
