#!/usr/bin/env python3
"""A greedy All Fives bot written with the helper of the Python package (`pip install
allfives`, or PYTHONPATH=python from the repository): it plays the legal move that scores most
now, ties to the heaviest tile, as greedy_bot.py does without the helper.

    allfives check "python3 sample_bots/python/helper_bot.py"
    allfives match "python3 sample_bots/python/helper_bot.py" builtin:greedy --games 10

Run it with the Python of the environment allfives is installed in (`python3` once the
environment is activated, else its `bin/python3`): another Python cannot import the helper.
"""
import sys

try:
    from allfives.bot import run
except ImportError:
    sys.exit(
        "This Python (%s) cannot import the allfives package: run the bot with the Python of the "
        "environment allfives is installed in (its bin/python3), or pip install allfives for "
        "this Python." % sys.executable
    )


def choose(view):
    # max() keeps the first of equal keys: most points, then most pips, then first listed.
    return max(view.legal, key=lambda move: (move.points, sum(move.tile)))


if __name__ == "__main__":
    run(choose, name="helper_bot")
