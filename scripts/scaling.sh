#!/usr/bin/env bash
# The scaling curve and the referee's share of CPU (docs/benchmarks.md, "Scaling across cores").
#
#   scripts/scaling.sh                 # -j 1 2 4 8 16, full sizes (about 10 minutes on 16 cores)
#   JOBS="1 2" SCALE=0.25 scripts/scaling.sh   # a small machine, a quarter of the games
#
# For each -j: tournaments of four builtins (--pack-logs), of two instant C bots, and of the
# Python sample bots (greedy against random), contained and --no-sandbox; then the referee's
# CPU per asked move against the raw pipe round trip (instant C bots, one CPU, three runs); then
# the referee's own share of all the CPU in matches of two Python sample bots, by default and
# with --reuse-processes; then the one collecting thread against the workers (CPU by thread,
# scripts/thread_cpu.py) in tournaments of four builtins, a ladder of 1,000 entrants and a slice
# of a round-robin of 1,000. Prints markdown tables on stdout, the machine and its load first.
# TABLES picks the tables (default "curve moves share threads").
#
# How CPU is measured: the referee runs as the child of a small Python helper, which waits for
# it with waitid(WNOWAIT) and reads its /proc/PID/stat while it is a zombie: utime + stime are
# the referee's own CPU (every thread), cutime + cstime its reaped descendants' (the bots, their
# interpreters and the sandbox's processes). Ticks of 1/CLK_TCK s (10 ms): the runs are long
# enough for that. Wall time is the helper's monotonic clock around the run.
#
# Environment: MOVES_FLAGS (the per-move match's flags, below), MOVES_BOT=filtered (the
# per-move match's bots each under a seccomp filter that allows every call, installed by a
# small wrapper before it execs the instant bot: what any filter costs, apart from the
# sandbox), ALLFIVES (the binary; default
# target/release/allfives, built if missing),
# PYTHON (the bots' interpreter; default /usr/bin/python3, no version-manager shim), JOBS,
# SCALE (multiplies every game count), WORK (a folder for the runs; default a new one under
# /dev/shm, removed at the end, so the file system's syncs cost nothing), KEEP=1 keeps it.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

JOBS=${JOBS:-"1 2 4 8 16"}
TABLES=${TABLES:-"curve moves share threads"}
wants() { [[ " $TABLES " == *" $1 "* ]]; }
SCALE=${SCALE:-1}
PYTHON=${PYTHON:-/usr/bin/python3}
ALLFIVES=${ALLFIVES:-$REPO/target/release/allfives}
if [ ! -x "$ALLFIVES" ]; then
    cargo build --release --bin allfives >&2
fi
scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { v = int(n * s + 0.5); print (v < 1 ? 1 : v) }'; }
# Four builtins play 6 pairs x 2 seatings a deal: 3,334 deals are 40,008 games.
BUILTIN_DEALS=$(scaled 3334)
C_DEALS=$(scaled 2000)
PY_DEALS=$(scaled 150)
SHARE_GAMES=$(scaled 600)
PER_MOVE_GAMES=$(scaled 300)
# The per-move table's match flags: by default the referee's floor (no sandbox, one process a
# bot); MOVES_FLAGS="" measures a contained match as a user starts one.
MOVES_FLAGS=${MOVES_FLAGS-"--reuse-processes --no-sandbox"}
LADDER_GAMES=$(scaled 12000)

base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
WORK=${WORK:-$(mktemp -d "$base/allfives-scaling.XXXXXX")}
mkdir -p "$WORK"
cleanup() { [ -n "${KEEP:-}" ] || rm -rf "$WORK"; }
trap cleanup EXIT

# An instant bot in C: each turn answered with its first legal move as soon as it is read.
cat > "$WORK/instant.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char line[1 << 20];
int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "{\"type\":\"bye\"", 13)) return 0;
        char *id = strstr(line, "\"id\":");
        if (!id) continue;
        long n = strtol(id + 5, NULL, 10);
        if (!strncmp(line, "{\"type\":\"hello\"", 15)) {
            printf("{\"type\":\"hello\",\"id\":%ld,\"name\":\"instant-c\"}\n", n);
        } else if (!strncmp(line, "{\"type\":\"turn\"", 14)) {
            char *t = strstr(line, "\"legal\":[{\"tile\":[");
            int a, b;
            char end[64] = "null";
            if (!t || sscanf(t + 18, "%d,%d]", &a, &b) != 2) continue;
            char *e = strstr(t, "\"end\":");
            if (e) {
                size_t k = strcspn(e + 6, ",}");
                if (k < sizeof end) { memcpy(end, e + 6, k); end[k] = 0; }
            }
            printf("{\"type\":\"move\",\"id\":%ld,\"tile\":[%d,%d],\"end\":%s}\n", n, a, b, end);
        } else {
            continue;
        }
        fflush(stdout);
    }
    return 0;
}
EOF
cc -O2 -o "$WORK/instant" "$WORK/instant.c"

# MOVES_BOT=filtered: the instant bot under a seccomp filter of four instructions that refuses
# nothing (one made-up call number aside), as a contained bot runs under the sandbox's.
cat > "$WORK/filtered.c" <<'EOF'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 9999, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog p = {sizeof f / sizeof f[0], f};
    if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p))
        return 1;
    execv(argv[1], argv + 1);
    return 1;
}
EOF
cc -O2 -o "$WORK/filtered" "$WORK/filtered.c"
printf '#!/bin/sh\nexec "%s" "%s"\n' "$WORK/filtered" "$WORK/instant" > "$WORK/instant-filtered"
chmod +x "$WORK/instant-filtered"
MOVES_BOT_PATH=$WORK/instant
[ "${MOVES_BOT:-}" = filtered ] && MOVES_BOT_PATH=$WORK/instant-filtered

# The raw pipe round trip: a turn-sized line (1,556 bytes) to an echo child, 56 bytes back,
# blocking write and read; prints the median wall time of 20,000 (after 5,000 untimed), in us.
cat > "$WORK/round_trip.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#define OUT 1556
#define BACK 56
#define N 20000
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
int main(void) {
    int to[2], from[2];
    static char line[OUT], back[BACK], buf[65536];
    static double t[N];
    if (pipe(to) || pipe(from)) return 1;
    memset(line, 'x', OUT); line[OUT - 1] = '\n';
    memset(back, 'y', BACK); back[BACK - 1] = '\n';
    pid_t echo = fork();
    if (echo == 0) {
        close(to[1]);
        close(from[0]);
        size_t have = 0;
        for (;;) {
            ssize_t r = read(to[0], buf + have, sizeof buf - have);
            if (r <= 0) _exit(0);
            for (have += r; have >= OUT; have -= OUT) {
                if (write(from[1], back, BACK) != BACK) _exit(1);
                memmove(buf, buf + OUT, have - OUT);
            }
        }
    }
    close(to[0]);
    close(from[1]);
    for (int i = 0; i < N + N / 4; i++) {
        double s = now();
        if (write(to[1], line, OUT) != OUT) return 1;
        for (size_t got = 0; got < BACK;) {
            ssize_t r = read(from[0], back, BACK - got);
            if (r <= 0) return 1;
            got += r;
        }
        if (i >= N / 4) t[i - N / 4] = now() - s;
    }
    close(to[1]);
    waitpid(echo, NULL, 0);
    qsort(t, N, sizeof t[0], cmp);
    printf("%.2f\n", t[N / 2] / 1e3);
    return 0;
}
EOF
cc -O2 -o "$WORK/round_trip" "$WORK/round_trip.c"

# Runs a command; prints "wall_s own_cpu_s children_cpu_s" (see the top of this file).
cat > "$WORK/measure.py" <<'EOF'
import os, subprocess, sys, tempfile, time
errors = tempfile.TemporaryFile()
start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=errors)
os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
wall = time.monotonic() - start
with open(f"/proc/{child.pid}/stat") as f:
    fields = f.read().rsplit(")", 1)[1].split()
child.wait()
if child.returncode != 0:
    errors.seek(0)
    said = errors.read().decode(errors="replace")[-2000:]
    sys.exit(f"{' '.join(sys.argv[1:])} exited with {child.returncode}:\n{said}")
tick = os.sysconf("SC_CLK_TCK")
own = (int(fields[11]) + int(fields[12])) / tick
kids = (int(fields[13]) + int(fields[14])) / tick
print(f"{wall:.3f} {own:.2f} {kids:.2f}")
EOF
measure() { "$PYTHON" "$WORK/measure.py" "$@"; }

model=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "## $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) CPUs ($model), $(uname -r)"
echo
echo "allfives $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $ALLFIVES; bots' python: $PYTHON ($("$PYTHON" --version 2>&1)); runs in $WORK"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); JOBS=\"$JOBS\" SCALE=$SCALE"
echo

n=0
# One tournament: prints a table row. $1 row name, $2 games, $3 -j, the rest its arguments.
tournament_row() {
    local name=$1 games=$2 j=$3
    shift 3
    n=$((n + 1))
    local out="$WORK/t$n" m wall own kids
    m=$(measure "$ALLFIVES" tournament "$@" --seed 1 --public-seed -q -j "$j" --out "$out")
    read -r wall own kids <<< "$m"
    local played
    played=$(wc -l < "$out/results.jsonl")
    [ "$played" = "$games" ] || echo "warning: $played games played, $games expected" >&2
    rm -rf "$out"
    awk -v name="$name" -v j="$j" -v g="$games" -v w="$wall" -v o="$own" -v k="$kids" -v w1="${WALL1[$name]:-$wall}" \
        'BEGIN { printf "| %s | %d | %d | %.2f s | %.0f | %.2f x | %.1f us | %.1f us | %.1f%% |\n",
                 name, j, g, w, g / w, w1 / w, (o + k) / g * 1e6, o / g * 1e6, o / (o + k + 1e-9) * 100 }'
    [ -n "${WALL1[$name]:-}" ] || WALL1[$name]=$wall
}
declare -A WALL1

if wants curve; then
echo "| run | -j | games | wall | games/s | speed-up over the first -j | CPU a game (all) | referee's CPU a game | referee's share |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for j in $JOBS; do
    tournament_row "4 builtins, --pack-logs" $((BUILTIN_DEALS * 12)) "$j" \
        a=builtin:greedy b=builtin:random c=builtin:mix:0.3 d=builtin:mix:0.7 --deals "$BUILTIN_DEALS" --pack-logs
done
for sandbox in contained --no-sandbox; do
    flag=()
    [ "$sandbox" = contained ] || flag=(--no-sandbox)
    for j in $JOBS; do
        tournament_row "2 instant C bots, $sandbox" $((C_DEALS * 2)) "$j" \
            "a=$WORK/instant" "b=$WORK/instant" --deals "$C_DEALS" --pack-logs "${flag[@]}"
    done
    for j in $JOBS; do
        tournament_row "Python greedy vs random, $sandbox" $((PY_DEALS * 2)) "$j" \
            "g=$PYTHON $REPO/sample_bots/python/greedy_bot.py" \
            "r=$PYTHON $REPO/sample_bots/python/random_bot.py" --deals "$PY_DEALS" --pack-logs "${flag[@]}"
    done
done
echo
fi

# The referee's CPU per asked move against the raw round trip: a match of two instant C bots
# and the round trip, each on one CPU (the last one allowed), as `allfives match` places a match.
if wants moves; then
cpu=$(taskset -pc $$ | sed 's/.*: //; s/.*[,-]//')
echo "| per asked move, 2 instant C bots${MOVES_BOT:+ ($MOVES_BOT)} on CPU $cpu, $PER_MOVE_GAMES games, ${MOVES_FLAGS:-contained, default lifetime} | referee's CPU | the bots' CPU | raw round trip, median | referee's CPU / round trip |"
echo "|---|---:|---:|---:|---:|"
for run in 1 2 3; do
    n=$((n + 1))
    logs="$WORK/m$n"
    m=$(taskset -c "$cpu" "$PYTHON" "$WORK/measure.py" "$ALLFIVES" match "$MOVES_BOT_PATH" "$MOVES_BOT_PATH" \
        --games "$PER_MOVE_GAMES" --seed 1 --public-seed $MOVES_FLAGS --log-dir "$logs")
    read -r wall own kids <<< "$m"
    asked=$(cat "$logs"/*.jsonl | grep -c '"type":"play".*"id":' || true)
    rm -rf "$logs"
    rt=$(taskset -c "$cpu" "$WORK/round_trip")
    awk -v r="$run" -v o="$own" -v k="$kids" -v a="$asked" -v rt="$rt" \
        'BEGIN { printf "| run %d (%d asked) | %.2f us | %.2f us | %.2f us | %.2f |\n", r, a, o / a * 1e6, k / a * 1e6, rt, o / a * 1e6 / rt }'
done
echo
fi

# The referee's share with two Python sample bots: a match, as a user starts one.
if wants share; then
echo "| match of 2 Python sample bots, $SHARE_GAMES games | wall | referee's CPU | the bots' CPU (and sandbox) | referee's share | asked moves | referee's CPU an asked move | the bots' CPU an asked move |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for lifetime in default --reuse-processes; do
    flag=()
    [ "$lifetime" = default ] || flag=(--reuse-processes)
    n=$((n + 1))
    logs="$WORK/m$n"
    m=$(measure "$ALLFIVES" match "$PYTHON $REPO/sample_bots/python/greedy_bot.py" \
        "$PYTHON $REPO/sample_bots/python/random_bot.py" --games "$SHARE_GAMES" --seed 1 \
        --public-seed --log-dir "$logs" "${flag[@]}")
    read -r wall own kids <<< "$m"
    asked=$(cat "$logs"/*.jsonl | grep -c '"type":"play".*"id":' || true)
    rm -rf "$logs"
    awk -v name="$lifetime" -v w="$wall" -v o="$own" -v k="$kids" -v a="$asked" \
        'BEGIN { printf "| %s | %.2f s | %.2f s | %.2f s | %.1f%% | %d | %.1f us | %.1f us |\n",
                 name, w, o, k, o / (o + k) * 100, a, o / a * 1e6, k / a * 1e6 }'
done
echo
fi

# The collector against its workers: each thread's CPU a game. One collecting thread records
# every worker's games (its results line appended and synced, the standings counted): its CPU a
# game against a worker's bounds the speed-up, so it should stay flat and small at any -j.
if wants threads; then
"$PYTHON" -c "import json
json.dump({'bots': [{'name': f'm{i}', 'command': f'builtin:mix:{i / 999:.4f}'} for i in range(1000)]}, open('$WORK/mix1000.json', 'w'))
json.dump({'bots': [{'name': f'r{i}', 'command': 'builtin:random'} for i in range(1000)]}, open('$WORK/random1000.json', 'w'))"
echo "| run (--pack-logs) | -j | games | wall | games/s | speed-up over the first -j | CPU a game (all threads) | the workers' | the collector's | other threads' (the history's fits) | collector / workers |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
declare -A SPEED1
threads_row() {
    local name=$1 j=$2
    shift 2
    n=$((n + 1))
    local out="$WORK/t$n"
    "$PYTHON" "$REPO/scripts/thread_cpu.py" "$out/results.jsonl" -- "$ALLFIVES" tournament "$@" \
        --seed 1 --public-seed -q -j "$j" --pack-logs --out "$out" 2>/dev/null | tail -1 > "$WORK/threads.json"
    rm -rf "$out"
    local speed
    speed=$("$PYTHON" -c "import json; r = json.load(open('$WORK/threads.json')); print(r['games'] / r['wall_s'])")
    [ -n "${SPEED1[$name]:-}" ] || SPEED1[$name]=$speed
    "$PYTHON" -c "import json; r = json.load(open('$WORK/threads.json'))
print('| $name | $j | %d | %.2f s | %.0f | %.2f x | %.1f us | %.1f us | %.1f us | %.1f us | %.1f%% |' % (
    r['games'], r['wall_s'], $speed, $speed / ${SPEED1[$name]}, r['all_us_a_game'], r['workers_us_a_game'],
    r['collector_us_a_game'], r['other_threads_us_a_game'],
    # A run too short for a tick of the workers' CPU (a small SCALE) has no ratio.
    100 * r['collector_us_a_game'] / r['workers_us_a_game'] if r['workers_us_a_game'] else float('nan')))"
}
for j in $JOBS; do
    threads_row "4 builtins" "$j" a=builtin:greedy b=builtin:random c=builtin:mix:0.3 d=builtin:mix:0.7 --deals "$BUILTIN_DEALS"
done
for j in $JOBS; do
    threads_row "ladder of 1,000" "$j" --format ladder --bots "$WORK/mix1000.json" --games "$LADDER_GAMES"
done
# 999,000 games a deal: slice 1 of 50 is about 20,000 (whole duplicate sets).
for j in $JOBS; do
    threads_row "round-robin of 1,000, slice 1/50" "$j" --bots "$WORK/random1000.json" --deals 1 --shard 1/50
done
echo
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
