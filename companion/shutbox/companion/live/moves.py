"""Turn what the box shows into moves: compare the tiles shut on the box with the game's board.

The referee is stateless: every verdict follows from the game (replayed from its events) and the
latest snapshot of the box, so an unplug, a replug or a restart of the scorekeeper changes nothing.

- Before a turn's first throw the box must show the board the turn starts from (every tile open,
  or, in the long game, the board as the last turn left it); until then the player is asked to
  put the tiles right (kind ``setup``) and no throw is taken.
- After a throw, the tiles changed since the throw are the move in progress: shut tiles (or,
  uncovering in the long game, reopened tiles) that add up to less than the throw are *partial*;
  once they add up to the throw the move is *complete* and becomes a ``shut``/``open`` event, checked
  once, by the game (:meth:`~shutbox.game.replay.Game.check`): the verdict carries the
  :class:`~shutbox.game.replay.CheckedMove` that is committed without checking it again.
- Tiles that overshoot the throw, a partial move no open tile can complete, a scored tile
  reopened (or, uncovering, a tile shut), tiles moved with no throw, or a move the rules refuse
  (too many tiles) are *flagged* with the reason; putting the offending tiles back clears the flag.
- Throws optional (``optional=True``): tiles moved with no throw entered are no fault but the turn's moves
  (kind ``unverified``, with their ``unverified`` event, held by the referee until the turn ends), and a
  move that shuts (or uncovers) every tile in play is ``complete`` at once. ``started`` says the box was
  set up for the turn already (the referee remembers it), so tiles moved before any event of the turn are
  moves, not a board still to be put right.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from shutbox.game import events as ev
from shutbox.game.replay import PHASE_WORDS, UNCOVER, CheckedMove, Game
from shutbox.game.rules import IllegalMove, legal_moves, plus, sum_text, tiles_out

VerdictKind = Literal["idle", "setup", "partial", "complete", "unverified", "flag", "over"]


@dataclass(frozen=True)
class Verdict:
    """What the box means right now; ``tiles`` are the tiles concerned, ``event`` is set when a move is complete
    (or held, throws optional), ``checked`` when it is complete: the game's ruling on ``event``, to commit."""

    kind: VerdictKind
    message: str
    tiles: tuple[int, ...] = ()
    event: ev.Move | None = None
    checked: CheckedMove | None = field(default=None, compare=False)  #: bookkeeping, not what the box means


def _names(tiles: Iterable[int]) -> str:
    items = sorted(tiles)
    word = "tile" if len(items) == 1 else "tiles"
    return f"{word} {', '.join(str(t) for t in items)}"


def _them(tiles: Iterable[int]) -> str:
    return "it" if len(list(tiles)) == 1 else "them"


def expected_shut(game: Game) -> frozenset[int]:
    """The tiles the game has shut on its board (what the box should show)."""
    return frozenset(tiles_out(game.rules, game.board))


def judge(game: Game, box_shut: Iterable[int], *, optional: bool = False, started: bool = False) -> Verdict:
    """The verdict for the box showing ``box_shut`` tiles shut, given the game so far (``optional``,
    ``started``: see the module docstring)."""
    if game.finished:
        return Verdict("over", "the game is over")
    if not game.players:
        return Verdict("idle", "waiting for players")
    box = frozenset(box_shut)
    board_shut = expected_shut(game)
    if game.current_turn is None and not (optional and started):
        return _between_turns(game, box, board_shut)
    uncovering = game.phase == UNCOVER
    # Tiles moved the wrong way: a scored tile reopened, or (uncovering) a tile shut.
    wrong_way = (box - board_shut) if uncovering else (board_shut - box)
    if wrong_way:
        return _wrong_way(game, wrong_way, uncovering)
    moved = (board_shut - box) if uncovering else (box - board_shut)
    pending = game.pending
    words = PHASE_WORDS[game.phase]
    undo = "shut" if uncovering else "open"
    if pending is None or pending.total is None:
        if moved and optional:
            tiles = tuple(sorted(moved))
            event = ev.uncover(*tiles, unverified=True) if uncovering else ev.shut(*tiles, unverified=True)
            message = f"{words.done} {plus(moved)} with no throw entered (unverified)"
            if moved != set(game.in_play):
                return Verdict("unverified", message, tiles, event)
            return _checked(game, Verdict("complete", message, tiles, event), undo)
        if moved:
            return Verdict("flag", f"{_names(moved)} {words.done} with no throw: "
                                   f"{undo} {_them(moved)} again and enter the throw first", tuple(sorted(moved)))
        return Verdict("idle", f"{game.current_player}: throw the dice")
    if not moved:
        return Verdict("idle", f"{game.current_player}: {words.verb} tiles adding up to {pending.total}")
    return _with_throw(game, moved, pending.total, uncovering)


def _between_turns(game: Game, box: frozenset[int], board_shut: frozenset[int]) -> Verdict:
    """Before a turn's first throw: the box must show the board the turn starts from."""
    player = game.current_player
    if box == board_shut:
        return Verdict("idle", f"{player}: throw the dice")
    steps = []
    if box - board_shut:
        steps.append(f"open {_names(box - board_shut)}")
    if board_shut - box:
        steps.append(f"shut {_names(board_shut - box)}")
    start = "from the board as the last turn left it" if board_shut else "with every tile open"
    return Verdict("setup", f"{player}'s turn: {' and '.join(steps)} to start {start}",
                   tuple(sorted(box ^ board_shut)))


def _wrong_way(game: Game, wrong_way: frozenset[int], uncovering: bool) -> Verdict:
    if uncovering:
        why = f"{_names(wrong_way)} shut: {game.current_player} uncovers tiles, open {_them(wrong_way)} again"
    else:
        why = f"{_names(wrong_way)} reopened: {'it was' if len(wrong_way) == 1 else 'they were'} " \
              f"shut earlier, shut {_them(wrong_way)} again"
    return Verdict("flag", why, tuple(sorted(wrong_way)))


def _with_throw(game: Game, moved: frozenset[int], throw: int, uncovering: bool) -> Verdict:
    """Tiles ``moved`` so far for the pending ``throw``: too much, a complete move, a part of one, or no way on."""
    total = sum(moved)
    tiles = tuple(sorted(moved))
    put_back = f"{'shut' if uncovering else 'open'} {_names(moved)} again"
    if total > throw:
        return Verdict("flag", f"{sum_text(moved)}, the throw was {throw}: {put_back}", tiles)
    state_word = "open" if uncovering else "shut"
    verb = PHASE_WORDS[game.phase].verb
    if total == throw:
        event = ev.uncover(*tiles) if uncovering else ev.shut(*tiles)
        return _checked(game, Verdict("complete", f"{verb} {plus(moved)} = {throw}", tiles, event),
                        "shut" if uncovering else "open")
    if not any(moved <= set(m) for m in legal_moves(game.rules, game.in_play, throw)):
        limit = game.rules.max_tiles_per_throw
        if limit is not None and len(moved) >= limit:
            why = f"at most {limit} tiles may be {state_word} with one throw"
        else:
            why = f"no {'shut' if uncovering else 'open'} tiles left add up to the {throw - total} missing"
        return Verdict("flag", f"{sum_text(moved)} cannot make {throw} ({why}): {put_back}", tiles)
    return Verdict("partial", f"{sum_text(moved)} of {throw}", tiles)


def _checked(game: Game, verdict: Verdict, undo: str) -> Verdict:
    """A complete move ruled on by the game, once: the verdict with its checked move, or flagged with the reason
    (``undo``: how the tiles are put back)."""
    assert verdict.event is not None
    try:
        checked = game.check(verdict.event)
    except IllegalMove as exc:
        return Verdict("flag", f"{exc}: {undo} {_names(verdict.tiles)} again", verdict.tiles)
    return Verdict(verdict.kind, verdict.message, verdict.tiles, verdict.event, checked)
