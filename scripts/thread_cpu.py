#!/usr/bin/env python3
"""CPU of a tournament's threads: the collector (the main thread) against its workers.

    scripts/thread_cpu.py GAMES -- allfives tournament ... -j N -q --out DIR
    scripts/thread_cpu.py DIR/results.jsonl -- allfives tournament ... --out DIR

GAMES is the games played, or a results file whose lines are counted once the run has ended
(a run stopped by a signal). STOP_AFTER=S in the environment sends it SIGINT after S seconds
(the running games finish, no new game starts: a round-robin of 1,000 entrants cut short).

Runs the command, reads every thread's CPU (utime + stime, /proc/PID/task/TID/stat) every 10 ms
while it runs, and its whole CPU from /proc/PID/stat once it has exited (read as a zombie, with
waitid(WNOWAIT)). Prints one line of JSON: wall, the CPU of all its threads, of its workers
(threads named "worker N", each at its last reading), of the collector while the workers ran
(the main thread at the last reading that saw a worker: the standings and the page written after
the last game are left out), of the main thread to the end, and of every other thread (tokio's
blocking threads, the history's fitting thread); each also per game (GAMES, the games played).
A worker's last 10 ms may be missed: a thread is read until it ends, not as it ends.
"""
import json
import os
import signal
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu(stat_path):
    """(name, utime + stime in seconds) of a /proc stat file, or None once gone."""
    try:
        with open(stat_path) as f:
            text = f.read()
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return name, (int(fields[11]) + int(fields[12])) / TICK


def main():
    games = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1 :]
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        # Its stdout (the standings) is not wanted: the figures are.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.execvp(command[0], command)
    stop_after = float(os.environ.get("STOP_AFTER", "inf"))
    seen = {}
    collector = 0.0
    while True:
        done = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if done is not None:
            break
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            tids = []
        workers_alive = False
        for tid in tids:
            read = cpu(f"/proc/{pid}/task/{tid}/stat")
            if read is None:
                continue
            seen[int(tid)] = read
            workers_alive |= read[0].startswith("worker")
        if workers_alive and pid in seen:
            collector = seen[pid][1]
        if time.monotonic() - start > stop_after:
            os.kill(pid, signal.SIGINT)
            stop_after = float("inf")
        time.sleep(0.01)
    wall = time.monotonic() - start
    _, total = cpu(f"/proc/{pid}/stat")
    os.waitpid(pid, 0)
    if games.isdigit():
        games = int(games)
    else:
        with open(games, "rb") as f:
            games = sum(1 for _ in f)
    workers = sum(c for tid, (n, c) in seen.items() if n.startswith("worker"))
    main_thread = max(total - workers - sum(
        c for tid, (n, c) in seen.items() if tid != pid and not n.startswith("worker")), 0.0)
    others = total - workers - main_thread
    per_game = lambda s: round(s / games * 1e6, 1)
    print(json.dumps({
        "games": games,
        "wall_s": round(wall, 3),
        "all_cpu_s": round(total, 3),
        "all_us_a_game": per_game(total),
        "workers_us_a_game": per_game(workers),
        "collector_us_a_game": per_game(collector),
        "main_thread_to_end_us_a_game": per_game(main_thread),
        "other_threads_us_a_game": per_game(others),
    }))


if __name__ == "__main__":
    main()
