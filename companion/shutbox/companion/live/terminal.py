"""The scorekeeper's plain-text output, for a pipe or a log file: each message is printed as one line and
the state block whenever it changes, so the output reads well in a log and is easy to follow from a
script. Typed lines come from a thread reading stdin. (On a terminal, :mod:`shutbox.companion.live.tui`
draws the live screen instead.)
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TextIO

from shutbox.companion.live.livestate import LiveState
from shutbox.companion.live.session import InputClosed, Typed
from shutbox.game.replay import PHASE_WORDS
from shutbox.game.report import game_result_text, standing_lines, throw_text
from shutbox.game.rules import rules_text

#: How each message kind is marked at the start of its line.
MARKS = {"recorded": "*", "turn": "#", "round": "#", "win": "#", "flag": "!", "refused": "!", "hint": "?",
         "info": "-", "link": "~"}


def box_row(tiles: int, shut: frozenset[int] | None, marked: tuple[int, ...] = ()) -> str:
    """``  1  2 --  4 …``: open tiles by number, shut ones as ``--``; tiles the referee points at get a ``*``."""
    if shut is None:
        return "(no snapshot from the box yet)"
    cells = []
    for t in range(1, tiles + 1):
        cell = "--" if t in shut else str(t)
        cells.append(f"{cell:>3}" + ("*" if t in marked else " "))
    return "".join(cells).rstrip()


def render(session: LiveState) -> str:
    """The state block (no messages)."""
    rules = session.rules
    game = session.game
    head = f"Shut the Box — {rules_text(rules, brief=True)}"
    if session.game_id is not None:
        head += f" — game {session.game_id}"
    lines = [head]
    verdict = session.verdict
    if game is not None and game.players:
        if not game.finished:
            r = game.current_round
            doing = PHASE_WORDS[game.phase].doing
            lines.append(f"round {r.number if r else 1} · {game.current_player}'s turn ({doing})")
    link = "" if session.connected else ("  [box unplugged: last seen]" if session.box is not None else "")
    marked = verdict.tiles if verdict is not None and verdict.kind in ("flag", "setup") else ()
    lines.append(f"  box   {box_row(rules.tiles, session.box, marked)}{link}")
    if game is not None and game.pending is not None:
        p = game.pending
        moved = f"   moving: {verdict.message}" if verdict is not None and verdict.kind == "partial" else ""
        lines.append(f"  throw {throw_text(list(p.dice) if p.dice else None, p.total)}{moved}")
    if game is not None:  # the result is its own message ("# game over: ..."), not repeated here
        result = game_result_text(game) if game.finished else None
        lines.extend(f"  {line}" for line in standing_lines(game) if line != result)
    if verdict is not None and verdict.kind not in ("partial", "over"):
        mark = "!!" if verdict.kind == "flag" else ">>"  # a hand-over (setup) is an instruction, not an error
        lines.append(f"  {mark} {verdict.message}")
    elif verdict is None and game is not None and session.box is None:
        lines.append("  >> waiting for the box")
    return "\n".join(lines)


class TextView:
    """Shows a session on a text stream, one line per message; see the module docstring."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self._shown = ""

    def note(self, kind: str, text: str) -> None:
        self._write(f"{MARKS.get(kind, '-')} {text}\n")

    def show(self, state: LiveState) -> None:
        block = render(state)
        if block != self._shown:
            self._shown = block
            self._write(block + "\n")

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


class Notes:
    """A view that keeps the messages (for ``shutbox sim --json``) and shows nothing."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def note(self, kind: str, text: str) -> None:
        self.items.append((kind, text))

    def show(self, state: LiveState) -> None:
        pass


def read_input(stream: TextIO, sink: Callable[[Typed | InputClosed], None]) -> threading.Thread:
    """Start a daemon thread passing each line of ``stream`` to ``sink`` (:class:`Typed`, then :class:`InputClosed`)."""

    def run() -> None:
        try:
            for line in stream:
                sink(Typed(line.rstrip("\r\n")))
        except (OSError, ValueError, UnicodeDecodeError):
            pass
        sink(InputClosed())

    thread = threading.Thread(target=run, name="shutbox-input", daemon=True)
    thread.start()
    return thread
