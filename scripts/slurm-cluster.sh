#!/usr/bin/env bash
# A private one-node Slurm cluster for testing: its own munge key and socket, its own
# slurm.conf, ports, spool, state and logs, all in one folder. Nothing of an installed Slurm's
# configuration (/etc/slurm, /etc/munge, /run/munge) is read for it or changed.
#
#   eval "$(scripts/slurm-cluster.sh start DIR)"   # as root; exports SLURM_CONF
#   sbatch league.sbatch                          # README's job array, your bots.toml
#   scripts/slurm-cluster.sh stop DIR    # stops the daemons started in DIR (by their pid files)
#
# Needs Debian's slurm-wlm (slurmctld, slurmd, the client commands) and munge. A machine where a
# Slurm daemon runs already is refused: a test has no business beside a real cluster's node.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR | stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
DIR=$2

# Stops each daemon named by a pid file in DIR, and waits for it to be gone.
stop() {
    local file pid
    for file in "$DIR"/run/slurmd.pid "$DIR"/run/slurmctld.pid "$DIR"/run/munged.pid; do
        [ -s "$file" ] || continue
        pid=$(cat "$file")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    done
}

# A TCP port on the loopback address that nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local running
    # Zombies (<defunct>, exited and not yet reaped) run nothing: only living daemons count.
    running=$(ps -e -o pid=,stat=,comm= |
        awk '$2 !~ /^Z/ && ($3 == "slurmctld" || $3 == "slurmd" || $3 == "slurmdbd") { print $1, $3 }') || true
    if [ -n "$running" ]; then
        echo "a Slurm daemon runs on this machine already ($running): this script starts a private test cluster only where none runs; it leaves a real cluster alone" >&2
        exit 1
    fi
    for command in munged slurmctld slurmd sbatch sinfo; do
        command -v "$command" >/dev/null || {
            echo "$command is missing: apt-get install slurm-wlm munge" >&2
            exit 1
        }
    done
    mkdir -p "$DIR"/{munge,run,log,state,spool}
    chmod 700 "$DIR" "$DIR/munge"
    DIR=$(cd "$DIR" && pwd)
    local host
    host=$(hostname -s)
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$DIR/munge/munge.key"
    # munged refuses root without --force: here root is the only user the cluster serves.
    munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/socket" \
        --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/seed"
    cat >"$DIR/slurm.conf" <<CONF
# A private one-node cluster (scripts/slurm-cluster.sh): controller and compute node on the
# loopback address, no cgroups, no accounting.
ClusterName=allfives
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
AuthType=auth/munge
# A requeued job waits cred_expire seconds (120 by default) before it runs again.
AuthInfo=socket=$DIR/munge/socket,cred_expire=5
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
# A requeued job waits for the scheduler's next pass (every 60 s by default); a task that was
# running when its node was lost counts as lost BatchStartTimeout + MessageTimeout seconds
# after it started (10 + 10 by default), once its node registers again.
SchedulerParameters=sched_interval=2
BatchStartTimeout=2
MessageTimeout=3
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=10
MinJobAge=600
KillWait=5
MailProg=/bin/true
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$DIR/slurm.conf
    slurmctld -f "$SLURM_CONF" -i
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 300); do
        if sinfo -h -o %T 2>/dev/null | grep -q idle; then
            echo "export SLURM_CONF=$SLURM_CONF"
            echo "a one-node Slurm cluster is up: its logs are in $DIR/log; stop it with $0 stop $DIR" >&2
            return
        fi
        sleep 0.1
    done
    echo "the private cluster in $DIR did not come up within 30 s; its logs: $DIR/log/" >&2
    stop
    exit 1
}

case $action in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
