#!/usr/bin/env python3
"""Measures the think-time channel between partners (docs/fair-play.md, "Covert channels that
remain"): plays tests/fixtures/bots/cheat_signals_with_time.py as partners (bots 0 and 2)
against two builtin:greedy in 4-player partnership games, contained, at the default clock, for
several (step, levels) codes, and prints for each how many of the partner's moves were timed,
how many symbols were read exactly, and the bits a move that get through (see `bits`).

Usage: scripts/think_time_channel.py [ALLFIVES] [GAMES]  (defaults: target/debug/allfives, 4)
A measurement, not a test: it takes minutes (the sender sleeps up to 0.8 s a move).
"""
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOT = os.path.join(ROOT, "tests/fixtures/bots/cheat_signals_with_time.py")
CODES = [(200, 4), (100, 8), (50, 16), (25, 32), (10, 64), (5, 128)]


def lines(path, word):
    with open(path) as f:
        return [l.split()[1:] for l in f if l.startswith(word + " ")]


def bits(levels, exact):
    """What a channel of `levels` symbols read right with probability `exact` carries a use,
    the errors spread evenly over the other symbols: log2(L) - h(p) - p log2(L - 1), p the
    error rate (a plug-in mutual information would be biased upward by the few samples)."""
    p = 1 - exact
    h = 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
    return max(0.0, math.log2(levels) - h - p * math.log2(levels - 1))


def measure(allfives, games, step, levels):
    with tempfile.TemporaryDirectory() as tmp:
        logs = os.path.join(tmp, "logs")
        command = [
            allfives, "match",
            f"r=python3 {BOT} receive {step} {levels} think-time",
            "b=builtin:greedy",
            f"s=python3 {BOT} send {step} {levels} think-time",
            "d=builtin:greedy",
            "--seed", "7", "-g", str(games), "--log-dir", logs,
        ]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=tmp)
        sent = {(g, h, p): s for g, h, p, s in lines(os.path.join(logs, "s.stderr"), "SENT")}
        got = lines(os.path.join(logs, "r.stderr"), "GOT")
    pairs = [(sent[(g, h, p)], s) for g, h, p, s, _ in got if (g, h, p) in sent]
    exact = sum(a == b for a, b in pairs)
    return len(sent), len(pairs), exact, bits(levels, exact / len(pairs)) if pairs else 0.0


def main():
    allfives = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/allfives"))
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    print("| step | levels (bits sent) | partner moves | timed | read exactly | bits a timed move |")
    print("|---|---|---|---|---|---|")
    for step, levels in CODES:
        moves, timed, exact, carried = measure(allfives, games, step, levels)
        print(
            f"| {step} ms | {levels} ({math.log2(levels):.0f}) | {moves} | {timed} | "
            f"{exact} ({100 * exact / max(timed, 1):.1f}%) | {carried:.2f} |",
            flush=True,
        )


main()
