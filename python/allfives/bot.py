"""A helper for All Fives bots in Python: it speaks protocol 1 so that a bot is one function.

    from allfives.bot import run

    def choose(view):
        return max(view.legal, key=lambda move: move.points)

    run(choose, name="my_bot")

`run` reads the referee's lines on stdin, answers `hello`, and for each `turn` calls
`choose(view)` with a `View` (dataclasses below, every field typed, its rules and history
included; `view.legal` lists the legal moves with what each would score) and writes the move it returns, flushed at once. `choose` may instead return
`(move, info)`: `info` (a short string, or a small dict of your own fields) is then sent on the
move (protocol.md, "move"): the referee logs it and `allfives replay` shows it beside the move,
never to another bot. A bot that never returns one never sends it. Standard library only
(Python 3.8+). Log to stderr: every line on stdout is a message.

Only a Python that has the package installed imports this module: run the bot with the Python
of the environment allfives is installed in (`python3` once it is activated, else its
`bin/python3`; `allfives kit python-helper DIR` prints that command).
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
class Rules:
    """The rules in force (docs/rules.md, or `allfives rules`): the seats, partnerships, the
    tiles dealt to each seat, which doubles spin (`first`, `none`, `all`), how a hand's
    leftover tiles score (`penalty`, `bonus`), the target, whether reaching it ends the game at
    once (`immediate`) or at the hand's end (`end_of_hand`), and the most hands a game lasts."""

    players: int
    teams: bool
    hand_size: int
    spinner: str
    hand_end: str
    target: int
    finish: str
    max_hands: int


@dataclass(frozen=True)
class Play:
    """A tile played: by `seat`, on `end` (None for the lead), the open ends' `sum` after it
    and the `points` it scored."""

    seat: int
    tile: Tile
    end: Optional[str]
    sum: int
    points: int


@dataclass(frozen=True)
class Draw:
    """A tile drawn from the boneyard by `seat`: the tile if it was yours, else None."""

    seat: int
    tile: Optional[Tile]


@dataclass(frozen=True)
class Pass:
    """`seat` could not play and the boneyard was empty."""

    seat: int


@dataclass(frozen=True)
class OtherEvent:
    """An event of a kind this helper does not know (a later referee's): its type and fields."""

    type: str
    fields: Dict[str, Any]


Event = Union[Play, Draw, Pass, OtherEvent]


@dataclass(frozen=True)
class View:
    """All a seat may know at its turn (protocol.md, "The view"). `raw` is the view as the
    referee sent it (a dict), so that a field added later reaches the bot."""

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
    rules: Rules
    history: List[Event]
    raw: Dict[str, Any]


Choice = Union[Move, Tuple[Move, Union[str, Dict[str, Any]]]]


def _tile(raw: List[int]) -> Tile:
    return (raw[0], raw[1])


def rules_from(raw: Dict[str, Any]) -> Rules:
    """Reads a `rules` object into Rules (fields it does not know are left out)."""
    return Rules(**{name: raw[name] for name in Rules.__dataclass_fields__})


def event_from(raw: Dict[str, Any]) -> Event:
    """Reads an event (a `history` entry) into a Play, Draw, Pass or OtherEvent."""
    kind = raw["type"]
    if kind == "play":
        return Play(raw["seat"], _tile(raw["tile"]), raw["end"], raw["sum"], raw["points"])
    if kind == "draw":
        return Draw(raw["seat"], None if raw["tile"] is None else _tile(raw["tile"]))
    if kind == "pass":
        return Pass(raw["seat"])
    return OtherEvent(kind, raw)


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
        rules=rules_from(raw["rules"]),
        history=[event_from(e) for e in raw["history"]],
        raw=raw,
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
