"""allfives: the referee for bots playing the domino game All Fives, packaged for Python.

Installing the package puts the `allfives` command on the environment's PATH (the same binary
`cargo build --release` makes). `allfives.bot` is an optional helper for writing a bot in
Python: `from allfives.bot import run`.
"""
