"""A helper for All Fives bots in Python: it speaks protocol 1 so that a bot is one function.

    from allfives.bot import run

    def choose(view):
        return max(view.legal, key=lambda move: move.points)

    run(choose, name="my_bot")

`run` reads the referee's lines on stdin, answers `hello`, and for each `turn` calls
`choose(view)` with a `View` (dataclasses below; `view.legal` lists the legal moves with what
each would score) and writes the move it returns, flushed at once. `choose` may instead return
`(move, info)`: `info` (a short string, or a small dict of your own fields) is then sent on the
move (protocol.md, "move"): the referee logs it and `allfives replay` shows it beside the move,
never to another bot. A bot that never returns one never sends it. Standard library only (Python 3.8+). Log to stderr: every line on stdout is a message.
"""
import json
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, TextIO, Tuple, Union

Tile = Tuple[int, int]


@dataclass(frozen=True)
class Move:
    """A legal move: the tile, the end it goes on (None for a lead), and the sum of the open
    ends and the points it would score after it."""

    tile: Tile
    end: Optional[str]
    sum: int
    points: int


@dataclass(frozen=True)
class OpenEnd:
    """An open end: its name, the number a tile must show there, what it adds to the sum."""

    end: str
    number: int
    counts: int


@dataclass(frozen=True)
class Placement:
    """A tile on the table and the end it went on (None for the lead)."""

    tile: Tile
    end: Optional[str]


@dataclass(frozen=True)
class View:
    """All a seat may know at its turn (protocol.md, "The view"). `rules` and `history` stay
    as the referee sent them (dicts), so that a field added later reaches the bot."""

    seat: int
    game: int
    hand_number: int
    leader: int
    turn: int
    hand: List[Tile]
    drawn: List[Tile]
    forced: Optional[Tile]
    layout: List[Placement]
    ends: List[OpenEnd]
    sum: int
    hand_sizes: List[int]
    boneyard: int
    scores: List[int]
    legal: List[Move]
    rules: Dict[str, Any]
    history: List[Dict[str, Any]]


Choice = Union[Move, Tuple[Move, Union[str, Dict[str, Any]]]]


def _tile(raw: List[int]) -> Tile:
    return (raw[0], raw[1])


def view_from(raw: Dict[str, Any]) -> View:
    """Reads a turn's `view` object into a View."""
    return View(
        seat=raw["seat"],
        game=raw["game"],
        hand_number=raw["hand_number"],
        leader=raw["leader"],
        turn=raw["turn"],
        hand=[_tile(t) for t in raw["hand"]],
        drawn=[_tile(t) for t in raw["drawn"]],
        forced=None if raw["forced"] is None else _tile(raw["forced"]),
        layout=[Placement(_tile(p["tile"]), p["end"]) for p in raw["layout"]],
        ends=[OpenEnd(e["end"], e["number"], e["counts"]) for e in raw["ends"]],
        sum=raw["sum"],
        hand_sizes=list(raw["hand_sizes"]),
        boneyard=raw["boneyard"],
        scores=list(raw["scores"]),
        legal=[Move(_tile(m["tile"]), m["end"], m["sum"], m["points"]) for m in raw["legal"]],
        rules=raw["rules"],
        history=raw["history"],
    )


def answer(turn_id: int, choice: Choice) -> Dict[str, Any]:
    """The `move` message for what `choose` returned: a Move, or (Move, info)."""
    move, info = choice if isinstance(choice, tuple) else (choice, None)
    reply: Dict[str, Any] = {"type": "move", "id": turn_id, "tile": list(move.tile), "end": move.end}
    if info is not None:
        reply["info"] = info
    return reply


def run(
    choose: Callable[[View], Choice],
    name: str = "python_bot",
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> None:
    """Plays a whole match: answers `hello` with `name`, each `turn` with `choose(view)`, and
    returns at `bye` or when stdin closes."""
    for line in stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            reply = {"type": "hello", "id": msg["id"], "name": name}
        elif kind == "turn":
            reply = answer(msg["id"], choose(view_from(msg["view"])))
        elif kind == "bye":
            return
        else:
            continue  # game_start, hand_start, event, hand_end, game_end: information only
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()
