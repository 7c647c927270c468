#!/usr/bin/env bash
# The Slurm test (tests/slurm_tests.rs, ignored by a plain `cargo test`): starts a private
# one-node cluster in a new folder (scripts/slurm-cluster.sh: its own config, ports and munge
# key; an installed Slurm's configuration is never touched), runs the test against it, stops
# the cluster, and says how long each part took. As root. The cluster's logs are kept, and
# named, when anything fails (or KEEP_SLURM_LOGS is set).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=$(mktemp -d /tmp/allfives-slurm.XXXXXX)
ok=0
finish() {
    scripts/slurm-cluster.sh stop "$DIR" || true
    if [ ! -d "$DIR/log" ]; then
        # The cluster never started: there are no logs to keep or to point to.
        rm -rf "$DIR"
    elif [ "$ok" = 1 ] && [ -z "${KEEP_SLURM_LOGS:-}" ]; then
        rm -rf "$DIR"
    elif [ "$ok" = 1 ]; then
        echo "slurm test: the cluster's logs are in $DIR/log (KEEP_SLURM_LOGS)"
    else
        echo "slurm test failed: the cluster's logs are in $DIR/log (slurmctld.log, slurmd.log, munged.log)" >&2
    fi
}
trap finish EXIT

begin=$(date +%s%N)
# Not `eval "$(...)"`: eval of an empty output succeeds, and the test would then run against
# whatever cluster SLURM_CONF (or /etc/slurm) names. The assignment fails with the start.
if ! exports=$(scripts/slurm-cluster.sh start "$DIR"); then
    echo "slurm test: the private cluster did not start (the reason is above); no test was run" >&2
    exit 1
fi
eval "$exports"
if [ "${SLURM_CONF:-}" != "$DIR/slurm.conf" ]; then
    echo "slurm test: the cluster's start did not name its own slurm.conf ($DIR/slurm.conf); no test was run" >&2
    exit 1
fi
up=$(date +%s%N)
export ALLFIVES_SLURM_DIR=$DIR
cargo test --test main -- --ignored --nocapture slurm_tests
end=$(date +%s%N)
ok=1
echo "slurm test: cluster up in $(((up - begin) / 1000000)) ms, the test (its build included) in $(((end - up) / 1000000)) ms"
