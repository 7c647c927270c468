#!/usr/bin/env python3
"""Measures what the page cache still carries by timing alone (docs/fair-play.md, "Covert
channels that remain"), once the filter refuses the probes that need no clock.

1. Reads: times reads of single pages of a file of its own, half of them cached and half
   evicted, in random order, and prints each kind's median and the error rate at the
   fixture's threshold (20 µs), so the bits a timed read carries.
2. Memory across a restart: plays tests/fixtures/bots/cheat_remembers_through_the_cache.py in
   `timing` mode (its first process reads a page for a 1, its second times the reads) against
   builtin:greedy in a contained 2-player match of 16 games (8 deals in both seatings, at
   most 2 hands a game), on a file of 4 MiB evicted first, and counts the claims that were the
   opponent's hand exactly (28 bits each).

Usage: scripts/page_cache_timing.py [ALLFIVES] [SEED]  (defaults: target/debug/allfives, 5)
A measurement, not a test. Run it as a user who may evict the file's pages (its owner).
"""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOT = os.path.join(ROOT, "tests/fixtures/bots/cheat_remembers_through_the_cache.py")
PAGE = 4096
COLD_NS = 20_000


def book(path, mib=4):
    with open(path, "wb") as f:
        f.write(os.urandom(mib << 20))
        f.flush()
        os.fsync(f.fileno())
    evict(path)


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def reads(path, pages=512):
    """Times one read of `pages` pages (every other one cached), in random order."""
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    warm = set(range(0, pages, 2))
    for p in warm:
        os.pread(fd, 1, p * 2 * PAGE)
    order = list(range(pages))
    random.shuffle(order)
    times = {True: [], False: []}
    for p in order:
        start = time.perf_counter_ns()
        os.pread(fd, 1, p * 2 * PAGE)
        times[p in warm].append(time.perf_counter_ns() - start)
    os.close(fd)
    return times


def h(p):
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def hands(logs):
    deals = []
    for name in os.listdir(logs):
        if name.endswith(".jsonl"):
            with open(os.path.join(logs, name)) as f:
                for line in f:
                    m = json.loads(line)
                    if m.get("type") == "hand_start":
                        deals.append([{tuple(sorted(t)) for t in hand} for hand in m["deal"]["hands"]])
    return deals


def across_a_restart(allfives, seed, tmp):
    path = os.path.join(tmp, "shelf", "book.bin")
    os.makedirs(os.path.dirname(path))
    book(path)
    logs = os.path.join(tmp, "logs")
    command = [
        allfives, "match", f"python3 {BOT} {path} timing", "builtin:greedy", "--games", "16",
        "--seed", str(seed), "--max-hands", "2", "--log-dir", logs,
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    deals = hands(logs)
    with open(os.path.join(logs, "cheat_remembers_through_the_cache.stderr")) as f:
        text = f.read().splitlines()
    held = text.count("HELD")
    claims = [l.split(" ", 2)[1:] for l in text if l.startswith("CLAIM ")]
    right = 0
    for mine, theirs in claims:
        mine = {tuple(t) for t in json.loads(mine)}
        theirs = {tuple(t) for t in json.loads(theirs)}
        right += any(mine in d and theirs in d for d in deals)
    return held, len(claims), right


def main():
    allfives = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/allfives")
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/var/tmp")) as tmp:
        path = os.path.join(tmp, "reads.bin")
        book(path)
        times = reads(path)
        wrong = sum(t >= COLD_NS for t in times[True]) + sum(t < COLD_NS for t in times[False])
        n = len(times[True]) + len(times[False])
        p = wrong / n
        print(
            f"reads: cached median {statistics.median(times[True]) / 1000:.1f} µs, on disk median "
            f"{statistics.median(times[False]) / 1000:.1f} µs; {wrong} of {n} misread at 20 µs: "
            f"{1 - h(p):.3f} bits a read; mean read {sum(times[True] + times[False]) / n / 1000:.1f} µs"
        )
        os.remove(path)
        held, claims, right = across_a_restart(allfives, seed, tmp)
        print(
            f"across a restart, contained: {held} hands held, {claims} claims, {right} exactly the "
            f"opponent's hand ({28 * right} bits carried)"
        )


main()
