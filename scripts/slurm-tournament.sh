#!/usr/bin/env bash
# Runs a tournament as a Slurm job array on a one-node Slurm cluster (Debian's slurm-wlm and
# munge, started here without systemd) and checks that the standings merged from its shards
# equal those of a single-machine run. Not part of `cargo test`: it needs root, installs
# packages if they are missing, and starts daemons (stopped again at the end).
#
#   sudo scripts/slurm-tournament.sh            # SHARDS=4 DEALS=40 by default
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/target/release/allfives
SHARDS=${SHARDS:-4}
DEALS=${DEALS:-40}
SEED=${SEED:-20261201}
WORK=$(mktemp -d /tmp/allfives-slurm.XXXXXX)
HOST=$(hostname -s)

[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release)
command -v slurmctld >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm

# A one-node cluster: this host is controller and compute node; no cgroups, no accounting.
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/munge /run/munge
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=allfives
SlurmctldHost=$HOST
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$HOST CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
chown -R munge:munge /etc/munge /run/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key

pids=()
stop_daemons() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_daemons EXIT
runuser -u munge -- munged --foreground & pids+=($!)
sleep 1
slurmctld -D -i & pids+=($!)
slurmd -D & pids+=($!)
for _ in $(seq 60); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && break
    sleep 1
done
sinfo

ENTRANTS=(a=builtin:greedy b=builtin:random c=builtin:random)
cat > "$WORK/shard.sh" <<JOB
#!/usr/bin/env bash
#SBATCH --array=1-$SHARDS
#SBATCH --output=$WORK/slurm-%a.out
exec "$BIN" tournament ${ENTRANTS[*]} --deals $DEALS --seed $SEED -j 1 --quiet \\
  --shard "\$SLURM_ARRAY_TASK_ID/$SHARDS" --out "$WORK/shard-\$SLURM_ARRAY_TASK_ID"
JOB
sbatch --wait "$WORK/shard.sh"

"$BIN" standings --json "$WORK"/shard-* > "$WORK/merged.json"
"$BIN" tournament "${ENTRANTS[@]}" --deals "$DEALS" --seed "$SEED" --json --quiet \
    --out "$WORK/whole" > "$WORK/whole.json"

python3 - "$WORK/merged.json" "$WORK/whole.json" "$SHARDS" <<'PY'
import json, sys
def timeless(path):
    report = json.load(open(path))
    for row in report["standings"]["entrants"]:
        row.pop("mean_ms"); row.pop("p99_ms")
    return report
merged, whole = timeless(sys.argv[1]), timeless(sys.argv[2])
assert merged["complete"], "a shard is missing games"
assert merged["standings"] == whole["standings"], "the merged standings differ"
print(f"ok: {merged['standings']['games']} games in {sys.argv[3]} array tasks; "
      "their merged standings equal the single-machine run's")
PY
echo "results in $WORK"
