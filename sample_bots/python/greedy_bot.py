#!/usr/bin/env python3
"""A greedy All Fives bot: it plays the legal move that scores most now, ties to the heaviest tile.

Run it against a builtin bot:
    allfives match "python3 sample_bots/python/greedy_bot.py" builtin:random

It speaks protocol 1 (see protocol.md): one JSON object a line on stdin and stdout. The referee
plays forced moves itself, so every turn offers at least two legal moves in view["legal"], each
with the points it would score. Python 3.8+, no dependencies.
"""
import json
import sys


def choose(legal):
    # max() keeps the first of equal keys: most points, then most pips, then first listed.
    return max(legal, key=lambda c: (c["points"], sum(c["tile"])))


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            reply = {"type": "hello", "id": msg["id"], "name": "greedy_bot"}
        elif msg["type"] == "turn":
            legal = msg["view"]["legal"]
            best = choose(legal)
            reply = {"type": "move", "id": msg["id"], "tile": best["tile"], "end": best["end"],
                     # What it was thinking, for the log and the replay (never shown to the
                     # other bots): the points it takes now, out of how many choices.
                     "info": {"points": best["points"], "choices": len(legal)}}
        elif msg["type"] == "bye":
            return
        else:
            continue  # game_start, hand_start, event, hand_end, game_end: nothing to do
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
