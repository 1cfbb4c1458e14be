"""The script ``shutbox sim --script FILE`` plays: one action per line, ``#`` starts a comment.

- ``players NAME [NAME …]`` — the players, in turn order (once, before any throw)
- ``throw A [B …]`` — the dice shown: one value for one die, or as many as the rules' dice
- ``total N`` — a throw entered by its total (a domino or a card drawn instead of dice; ``= N`` in play)
- ``shut T [T …]`` — flip those tiles to shut on the box, one after another
- ``open T [T …]`` or ``open all`` — flip tiles back open
- ``end`` — type ``end``: under throws ``optional`` it ends the turn (typed twice in a turn where nothing
  was shut); under ``required`` it is refused with the reason
- ``press`` — press the box's button (the same as ``end``: under ``optional`` the way a turn ends)
- ``undo`` — withdraw the latest typed throw
- ``hint`` — ask for the solver's best move (shown, never scored)

These are the actions a player has in ``shutbox play``.

Parsing checks the form of every line against the settings (dice 1 to 6, tiles on the box) before
anything runs; whether a throw or a move is legal is for the scorekeeper to say while it plays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import quoted
from shutbox.base.userfile import read_user_text
from shutbox.kit.model import Rules

ACTIONS = ("players", "throw", "total", "shut", "open", "end", "press", "undo", "hint")


@dataclass(frozen=True)
class Action:
    line: int
    kind: str
    names: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()  #: dice for ``throw``; tiles for ``shut``/``open`` (``open all``: every tile)


class _Bad(Exception):
    """One script line's problem (parse_script adds where and which line)."""


def parse_script(text: str, rules: Rules, where: str) -> list[Action]:
    """The actions of a script; ShutboxError naming ``where:line`` for the first bad line."""
    actions: list[Action] = []
    players_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        kind, args = words[0].lower(), words[1:]
        parse = _PARSERS.get(kind)
        try:
            if parse is None:
                raise _Bad(f"unknown action {quoted(words[0])}; allowed: {', '.join(ACTIONS)} (and # comments)")
            if kind == "players" and players_line:
                raise _Bad(f"'players' again (the players were set on line {players_line})")
            if kind not in ("players", "shut", "open") and not players_line:  # a throw or a command
                raise _Bad(f"'{kind}' before 'players': name the players first")
            action = parse(number, kind, args, rules)
        except _Bad as exc:
            raise ShutboxError(f"{where}:{number}: {exc}") from None
        players_line = players_line or (number if kind == "players" else 0)
        actions.append(action)
    if not players_line:
        raise ShutboxError(f"{where}: no 'players' line; the script must name the players, e.g. 'players Ann Bob'")
    return actions


def _players(number: int, kind: str, args: list[str], rules: Rules) -> Action:
    if not args:
        raise _Bad("'players' needs at least one name, e.g. 'players Ann Bob'")
    return Action(number, kind, names=tuple(args))


def _throw(number: int, kind: str, args: list[str], rules: Rules) -> Action:
    if len(args) not in (1, rules.dice):
        example = " ".join(["3", "5", "2", "6", "1", "4", "6", "2", "5"][:rules.dice])
        raise _Bad(f"'throw' takes one die or {rules.dice}, e.g. 'throw {example}' or 'throw 4', not {len(args)}")
    return Action(number, kind, numbers=tuple(_number(a, 1, 6, "a die shows") for a in args))


def _total(number: int, kind: str, args: list[str], rules: Rules) -> Action:
    if len(args) != 1:
        raise _Bad(f"'total' takes one number, the total drawn, e.g. 'total 27', not {len(args)}")
    return Action(number, kind, numbers=(_number(args[0], 1, 6 * rules.dice, "a throw totals"),))


def _tiles(number: int, kind: str, args: list[str], rules: Rules) -> Action:
    if kind == "open" and [a.lower() for a in args] == ["all"]:
        return Action(number, kind, numbers=rules.tile_numbers)
    if not args:
        example = "'open 3 5' or 'open all'" if kind == "open" else "'shut 3 5'"
        raise _Bad(f"'{kind}' needs tile numbers, e.g. {example}")
    tiles = tuple(_number(a, 1, rules.tiles, "tiles are") for a in args)
    if len(set(tiles)) != len(tiles):
        raise _Bad(f"'{kind}' lists a tile twice")
    return Action(number, kind, numbers=tiles)


def _bare(number: int, kind: str, args: list[str], rules: Rules) -> Action:
    """``end``, ``press``, ``undo``, ``hint``: a word alone."""
    if args:
        raise _Bad(f"'{kind}' takes nothing, not {quoted(' '.join(args))}")
    return Action(number, kind)


_PARSERS = {"players": _players, "throw": _throw, "total": _total, "shut": _tiles, "open": _tiles, "end": _bare,
            "press": _bare, "undo": _bare, "hint": _bare}


def _number(text: str, low: int, high: int, what: str) -> int:
    if not re.fullmatch(r"[0-9]{1,4}", text) or not low <= int(text) <= high:
        raise _Bad(f"{quoted(text)}: {what} {low} to {high}")
    return int(text)


def read_script(path: Path, rules: Rules) -> list[Action]:
    return parse_script(read_user_text(path, "script", "--script"), rules, str(path))
