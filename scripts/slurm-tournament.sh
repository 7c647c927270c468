#!/usr/bin/env bash
# Runs a tournament as a Slurm job array on a one-node Slurm cluster (Debian's slurm-wlm and
# munge, started here without systemd) and checks that the standings merged from its shards
# equal those of a single-machine run. Not part of `cargo test`: it needs root, installs
# packages if they are missing, and starts daemons (stopped again at the end).
#
#   sudo scripts/slurm-tournament.sh            # SHARDS=4 DEALS=40 by default
#
# An existing /etc/slurm/slurm.conf is moved aside (the script says where) and put back at the
# end. The job array is bounded: WAIT_MINUTES (default 30) for `sbatch --wait`, after which the
# job is cancelled and the script fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/target/release/allfives
SHARDS=${SHARDS:-4}
DEALS=${DEALS:-40}
SEED=${SEED:-20261201}
WAIT_MINUTES=${WAIT_MINUTES:-30}
WORK=$(mktemp -d /tmp/allfives-slurm.XXXXXX)
HOST=$(hostname -s)

[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release)
command -v slurmctld >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm

CONF_FILE=/etc/slurm/slurm.conf
SAVED_CONF=""
pids=()
stop_daemons() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "$SAVED_CONF" ]; then
        mv "$SAVED_CONF" "$CONF_FILE" && echo "note: $CONF_FILE put back"
    else
        rm -f "$CONF_FILE"
    fi
}
trap stop_daemons EXIT

# A one-node cluster: this host is controller and compute node; no cgroups, no accounting.
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/munge /run/munge
if [ -e "$CONF_FILE" ]; then
    SAVED_CONF="$CONF_FILE.allfives-saved.$$"
    mv "$CONF_FILE" "$SAVED_CONF"
    echo "note: $CONF_FILE moved to $SAVED_CONF; it is put back when this script ends"
fi
cat > "$CONF_FILE" <<CONF
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
# Each entrant's command line quoted for the job's shell (a command may hold spaces or quotes).
QUOTED=$(printf '%q ' "${ENTRANTS[@]}")
JOB_NAME=allfives-$$
cat > "$WORK/shard.sh" <<JOB
#!/usr/bin/env bash
#SBATCH --array=1-$SHARDS
#SBATCH --job-name=$JOB_NAME
#SBATCH --time=$WAIT_MINUTES
#SBATCH --output=$WORK/slurm-%a.out
exec "$BIN" tournament $QUOTED --deals $DEALS --seed $SEED --deal-key "$WORK/deal-key" -j 1 \\
  --quiet --shard "\$SLURM_ARRAY_TASK_ID/$SHARDS" --out "$WORK/shard-\$SLURM_ARRAY_TASK_ID"
JOB
if ! timeout "$((WAIT_MINUTES * 60))" sbatch --wait "$WORK/shard.sh"; then
    scancel --name "$JOB_NAME" || true
    echo "the job array did not finish within $WAIT_MINUTES minutes (or failed): cancelled" >&2
    exit 1
fi

"$BIN" standings --json "$WORK"/shard-* > "$WORK/merged.json"
# The same seed and key file as the shards: the same deals.
"$BIN" tournament "${ENTRANTS[@]}" --deals "$DEALS" --seed "$SEED" --deal-key "$WORK/deal-key" \
    --json --quiet --out "$WORK/whole" > "$WORK/whole.json"

python3 - "$WORK" "$SHARDS" <<'PY'
import glob, json, sys
work, shards = sys.argv[1], sys.argv[2]
# Results, never timings: each game's outcome by id, and the standings without the *_ms fields.
OUTCOME = ("group", "deal", "arrangement", "seed", "seats", "scores", "hands", "ending", "faults")
def outcomes(folders):
    games = {}
    for folder in folders:
        for line in open(f"{folder}/results.jsonl"):
            game = json.loads(line)
            for seat in game["seats"]:
                for timing in ("time_us", "time_buckets"):
                    seat.pop(timing, None)
            games[game["id"]] = {k: game[k] for k in OUTCOME}
    return games
def timeless(path):
    report = json.load(open(path))
    for row in report["standings"]["entrants"]:
        for key in [k for k in row if k.endswith("_ms")]:
            row.pop(key)
    return report
merged, whole = timeless(f"{work}/merged.json"), timeless(f"{work}/whole.json")
assert merged["complete"], "a shard is missing games"
sharded, single = outcomes(glob.glob(f"{work}/shard-*")), outcomes([f"{work}/whole"])
assert sharded == single, "the shards' games differ from the single-machine run's"
assert merged["standings"] == whole["standings"], "the merged standings differ"
print(f"ok: {len(sharded)} games in {shards} array tasks, each the same as in the "
      "single-machine run; their merged standings equal its standings")
PY
echo "results in $WORK"
