"""Turn what the box shows into moves: compare the tiles shut on the box with the game's board.

The referee is stateless: every verdict follows from the game (replayed from its events) and the
latest snapshot of the box, so an unplug, a replug or a restart of the scorekeeper changes nothing.

- Before a turn's first throw the box must show the board the turn starts from (every tile open,
  or, in the long game, the board as the last turn left it); until then the player is asked to
  put the tiles right and no throw is taken.
- After a throw, the tiles changed since the throw are the move in progress: shut tiles (or,
  uncovering in the long game, reopened tiles) that add up to less than the throw are *partial*;
  once they add up to the throw the move is *complete* and becomes a ``shut``/``open`` event.
- Tiles that overshoot the throw, a scored tile reopened, tiles moved with no throw, or a move the
  rules refuse (too many tiles) are *flagged* with the reason; reopening the offending tiles puts
  the box right and clears the flag.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from shutbox.companion import events as ev
from shutbox.companion.game import UNCOVER, Game
from shutbox.companion.rules import IllegalMove, check_move, plus

VerdictKind = Literal["idle", "setup", "partial", "complete", "flag", "over"]


@dataclass(frozen=True)
class Verdict:
    """What the box means right now; ``event`` is set when a move is complete."""

    kind: VerdictKind
    message: str
    tiles: tuple[int, ...] = ()
    event: dict[str, object] | None = None


def _names(tiles: Iterable[int]) -> str:
    items = sorted(tiles)
    word = "tile" if len(items) == 1 else "tiles"
    return f"{word} {', '.join(str(t) for t in items)}"


def expected_shut(game: Game) -> frozenset[int]:
    """The tiles the game has shut on its board (what the box should show)."""
    return frozenset(game.rules.tile_numbers) - frozenset(game.board)


def judge(game: Game, box_shut: Iterable[int]) -> Verdict:
    """The verdict for the box showing ``box_shut`` tiles shut, given the game so far."""
    if game.finished:
        return Verdict("over", "the game is over")
    if not game.players:
        return Verdict("idle", "waiting for players")
    box = frozenset(box_shut)
    board_shut = expected_shut(game)
    player = game.current_player
    uncovering = game.phase == UNCOVER
    if game.current_turn is None:
        if box != board_shut:
            wrong = box ^ board_shut
            want = "open" if not board_shut else "set the box as the last turn left it:"
            return Verdict("setup", f"{player}'s turn: {want} {_names(wrong)} first", tuple(sorted(wrong)))
        return Verdict("idle", f"{player}: throw the dice")
    moved_wrong_way = (board_shut - box) if not uncovering else (box - board_shut)
    moved = (box - board_shut) if not uncovering else (board_shut - box)
    verb = "uncovered" if uncovering else "shut"
    if moved_wrong_way:
        undo_word = "shut" if not uncovering else "open"
        wrong = "reopened" if not uncovering else "shut again"
        return Verdict("flag", f"{_names(moved_wrong_way)} {wrong}: {undo_word} "
                               f"{'it' if len(moved_wrong_way) == 1 else 'them'} again", tuple(sorted(moved_wrong_way)))
    pending = game.pending
    if pending is None or pending.total is None:
        if moved:
            return Verdict("flag", f"{_names(moved)} {verb} with no throw: put "
                                   f"{'it' if len(moved) == 1 else 'them'} back and throw first", tuple(sorted(moved)))
        return Verdict("idle", f"{player}: throw the dice")
    throw = pending.total
    total = sum(moved)
    if total < throw:
        if moved:
            return Verdict("partial", f"{plus(moved)} = {total} of {throw}", tuple(sorted(moved)))
        return Verdict("idle", f"{player}: {'uncover' if uncovering else 'shut'} tiles adding up to {throw}")
    if total > throw:
        return Verdict("flag", f"{plus(moved)} = {total}, the throw was {throw}: reopen "
                               f"{_names(moved)} and try again", tuple(sorted(moved)))
    words = ("uncover", "open") if uncovering else ("shut", "shut")
    try:
        check_move(game.rules, game.in_play, throw, sorted(moved), *words)
    except IllegalMove as exc:
        return Verdict("flag", f"{exc}: put {_names(moved)} back", tuple(sorted(moved)))
    event = ev.uncover(*sorted(moved)) if uncovering else ev.shut(*sorted(moved))
    return Verdict("complete", f"{verb} {plus(moved)} = {throw}", tuple(sorted(moved)), event)
