"""Reading input: a typed line, a web page's POST body and the box's button count become commands
(:mod:`shutbox.companion.live.command`). Only the form is checked here; the rules are the referee's.

- :func:`parse_line`: ``3 5`` (the dice), ``4`` (one die), ``= 27`` or ``total 27`` (a drawn total),
  ``shut 3 5`` / ``open 3 5`` / ``tiles 3 5`` (box-less moves), ``end``, ``undo``, ``hint``, ``help``,
  ``quit``;
- :func:`from_post`: ``POST /api/throw {"dice": [3, 5]}``, ``/api/shut {"tiles": [...]}``, ``/api/end``,
  ``/api/undo``;
- :class:`ButtonCounter`: the press count each snapshot carries; a rise is a press.
"""

from __future__ import annotations

import json
import re
from typing import Any

from shutbox.base.text import quoted, shown
from shutbox.companion.live.command import Command, End, Help, Hint, Move, Quit, Source, Throw, Undo
from shutbox.firmware.host.protocol import PRESSES_MODULO
from shutbox.kit.model import MAX_DICE

#: one die or several (as many as the rules' dice; the rules engine checks the count), each at most 4 digits
_DICE = re.compile(rf"^\s*[0-9]{{1,4}}(?:\s*[ ,+]\s*[0-9]{{1,4}}){{0,{MAX_DICE - 1}}}\s*$")
_TILES = re.compile(r"^(shut|open|uncover|tiles)\b(.*)$")  #: ``tiles``: the web page's move, either way
#: a throw by its total (a domino or a card drawn instead of dice): ``= 27`` or ``total 27`` (rules helper)
_TOTAL = re.compile(r"^\s*(?:=|total\b)\s*([0-9]{1,4})\s*$")
_WORDS: dict[str, type[Command]] = {"end": End, "undo": Undo, "hint": Hint, "help": Help, "?": Help,
                                    "quit": Quit, "q": Quit, "exit": Quit}
#: A count that jumps further than this between two snapshots is a restarted box, not presses.
MAX_PRESSES_BETWEEN = 100


class NotUnderstood(ValueError):
    """A line or a body that is no command; the message says what was wrong."""


def parse_line(text: str, source: Source = "typed") -> Command | None:
    """The command a typed line stands for; None for an empty line; NotUnderstood otherwise."""
    word = text.strip().lower()
    if not word:
        return None
    simple = _WORDS.get(word)
    if simple is not None:
        return simple(source=source)  # type: ignore[call-arg]
    tiles = _TILES.match(word)
    if tiles is not None:
        verb, rest = tiles.group(1), tiles.group(2)
        words = rest.replace(",", " ").replace("+", " ").split()
        if not words or not all(re.fullmatch(r"[0-9]{1,4}", w) for w in words):
            raise NotUnderstood(f"{verb} {quoted(rest.strip())}: give tile numbers, e.g. '{verb} 3 5'")
        kind = {"shut": "shut", "open": "open", "uncover": "open"}.get(verb, "either")
        return Move(tuple(int(w) for w in words), kind, source)  # type: ignore[arg-type]
    total = _TOTAL.match(word)
    if total is not None:
        return Throw(total=int(total.group(1)), source=source)
    if _DICE.match(word) is not None:
        return Throw(tuple(int(d) for d in re.findall(r"[0-9]+", word)), source=source)
    raise NotUnderstood(f"{quoted(text.strip())}: not understood")


def from_post(action: str, body: Any, source: Source = "phone") -> Command:
    """The command a web POST stands for (``throw``, ``shut``, ``end``, ``undo``); ValueError naming what is
    wrong with the body."""
    if action == "end":
        return End(source)
    if action == "undo":
        return Undo(source)
    key = "dice" if action == "throw" else "tiles"
    values = body.get(key) if isinstance(body, dict) else None
    if not isinstance(values, list) or not values or len(values) > 60 or \
            not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10_000 for v in values):
        example = '{"dice": [3, 5]}' if action == "throw" else '{"tiles": [3, 5]}'
        raise ValueError(f"expected {example}, not {shown(json.dumps(body), 80)}")
    if action == "throw":
        if len(values) > MAX_DICE:
            raise ValueError(f"'dice' holds at most {MAX_DICE} dice, not {len(values)}")
        return Throw(tuple(values), source=source)
    return Move(tuple(values), "either", source)


class ButtonCounter:
    """The box's button press count, as last reported on this connection; :meth:`pressed` says whether a
    snapshot's count is a new press."""

    def __init__(self) -> None:
        self.presses: int | None = None  #: None until the connection's first snapshot

    def reset(self) -> None:
        """A new connection: its first count only sets the mark."""
        self.presses = None

    def pressed(self, presses: int) -> bool:
        last, self.presses = self.presses, presses
        return last is not None and 0 < (presses - last) % PRESSES_MODULO <= MAX_PRESSES_BETWEEN
