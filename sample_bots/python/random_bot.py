#!/usr/bin/env python3
"""A random All Fives bot: it plays one of the legal moves at random, from a seeded generator.

Run it against a builtin bot:
    allfives match "python3 sample_bots/python/random_bot.py" builtin:greedy
    allfives match "python3 sample_bots/python/random_bot.py 42" builtin:greedy   # seed 42

Each game reseeds the generator from game_start's bot_seed (mixed with the optional argument,
default 1), so a game plays the same whatever games this process played before: a tournament
gives the same results with -j1 and -j2, and a game rerun alone plays as it did. It speaks protocol 1 (see protocol.md): one JSON object a line on stdin and
stdout. Python 3.8+, no dependencies.
"""
import json
import random
import sys


def main():
    base = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rng = random.Random(base)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "game_start":
            # bot_seed < 2^53: the argument goes above it, so both count.
            rng = random.Random((base << 53) | msg.get("bot_seed", 0))
            continue
        if msg["type"] == "hello":
            reply = {"type": "hello", "id": msg["id"], "name": "random_bot"}
        elif msg["type"] == "turn":
            pick = rng.choice(msg["view"]["legal"])
            reply = {"type": "move", "id": msg["id"], "tile": pick["tile"], "end": pick["end"]}
        elif msg["type"] == "bye":
            return
        else:
            continue  # hand_start, event, hand_end, game_end: nothing to do
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
