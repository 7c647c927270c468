#!/bin/sh
# What a contained start costs, and whether it grows with history: a one-game match of two
# compiled bots under `strace -f -c`, contained and with --no-sandbox, with no earlier run and
# with N earlier runs (default 10,000), each in a folder of its own under /tmp, registered as
# the referee registers them. Prints the system calls of each run and the referee's CPU
# (user + system of the whole process tree, from /usr/bin/time).
#
# strace -c leaves out the calls it does not know: an strace older than Linux 6.15's
# open_tree_attr (`strace -V`) misses one call a bind at each start; count them in a full
# trace (`strace -f -o FILE`, lines with syscall_0x1d3) and add them.
#
#   g++ -O2 -o /tmp/starter_bot sample_bots/cpp/starter_bot.cpp
#   scripts/start_cost.sh target/release/allfives /tmp/starter_bot [N]
set -eu
referee=$(realpath "$1")
bot=$(realpath "$2")
runs=${3:-10000}
place=$(mktemp -d /tmp/allfives-start-cost-XXXXXX)
trap 'rm -rf "$place"' EXIT
# Ended by a signal (`| head` closing the pipe, Ctrl-C), it still removes its folder.
trap 'exit 1' INT TERM HUP PIPE
mkdir -p "$place/state-0/allfives" "$place/state-$runs/allfives" "$place/bots"
: > "$place/state-0/allfives/runs"
if [ "$runs" -gt 0 ]; then
    seq 0 $((runs - 1)) | sed "s|.*|$place/runs/&/logs|" > "$place/state-$runs/allfives/runs"
    xargs mkdir -p < "$place/state-$runs/allfives/runs"
    sed 's|$|/game-1.jsonl|' "$place/state-$runs/allfives/runs" | xargs touch
fi
cp "$bot" "$place/bots/bot"
cd "$place/bots"
n=0
for state in 0 "$runs"; do
    for how in contained --no-sandbox; do
        n=$((n + 1))
        extra=""
        [ "$how" = --no-sandbox ] && extra=--no-sandbox
        XDG_STATE_HOME="$place/state-$state" /usr/bin/time -f "%U %S" -o "$place/time" \
            strace -f -c -o "$place/strace" "$referee" match a=./bot b=./bot --max-hands 1 \
            --seed 1 --log-dir "$place/logs-$n" $extra > /dev/null
        calls=$(awk '$NF == "total" {print $4}' "$place/strace")
        mounts=$(awk '$NF == "mount" || $NF == "open_tree" || $NF == "move_mount" {s += $4} END {print s + 0}' "$place/strace")
        echo "$state earlier runs, $how: $calls system calls ($mounts mount, open_tree, move_mount), CPU (user sys, s, under strace): $(cat "$place/time")"
    done
done
