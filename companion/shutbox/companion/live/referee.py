"""The referee: the one place a command (:mod:`shutbox.companion.live.command`) is ruled on.

:class:`Referee` keeps what the table shows besides the game — the tiles the box reports, whether it is
connected, the verdict on them (:func:`shutbox.companion.live.moves.judge`) — and answers each command with a
:class:`Ruling`: the events to record (checked by the rules engine when they are committed), a refusal
with its reason, or a question to the players. It never records anything itself.

Throws ``required`` (typed throws; today's play): a throw is taken only while the box agrees with the game;
tiles moved with no throw are flagged; ``end`` (the button, the page) is refused with the reason, as a
throw that admits no move ends the turn by itself.

Throws ``optional`` (docs/RULES.md, "Throws optional"): tiles moved with no throw entered are the turn's
moves, held until the turn ends (recorded *unverified*; the session saves them as held tiles meanwhile,
:meth:`Referee.held_turn`, and :meth:`Referee.resume_held` takes the turn up again after a restart); an End
records them and ends the turn, refused only while an entered throw is unused and can still move tiles. An End
in a turn where nothing was shut asks first: a second End within :data:`CONFIRM_S` seconds ends it. A throw
entered after tiles were moved counts for them when they fit it (a part of one of its moves, or one);
otherwise they are recorded first, as the moves of throws nobody entered, and the throw is for what follows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from shutbox.companion.live.command import Command, End, Move, Throw, Undo
from shutbox.companion.live.moves import Verdict, expected_shut, judge
from shutbox.companion.live.wording import confirm_end
from shutbox.game import events as ev
from shutbox.game.replay import PHASE_WORDS, UNCOVER, Game
from shutbox.game.rules import legal_moves

#: Seconds within which a second End confirms ending a turn in which nothing was shut.
CONFIRM_S = 5.0


@dataclass(frozen=True)
class Ruling:
    """The referee's answer: events to record, or a refusal, or a question (``prompt``; nothing done)."""

    events: tuple[ev.Event, ...] = ()
    refused: str | None = None
    prompt: str | None = None


class Referee:
    """See the module docstring."""

    def __init__(self, *, throws: str, boxless: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self.throws = throws
        self.boxless = boxless
        self.clock = clock
        self.box: frozenset[int] | None = None  #: tiles shut on the box, as last reported
        self.connected = False
        self.verdict: Verdict | None = None
        self._ready_for: int | None = None  #: the turn number the box was last seen set up for
        self._asked: tuple[int, float] | None = None  #: (turn number, when) an End asked to be confirmed

    @property
    def optional(self) -> bool:
        return self.throws == "optional"

    # -- the box -------------------------------------------------------------------------------

    def seen(self, shut: frozenset[int]) -> None:
        self.box = shut
        self.connected = True

    def judge(self, game: Game | None) -> Verdict | None:
        """The verdict on the box now (kept in :attr:`verdict`)."""
        if self.boxless and game is not None:
            self.box = expected_shut(game)  # the board is the game's own
            self.connected = True
        if game is None or self.box is None:
            self.verdict = None
            return None
        upcoming = _turn_number(game)
        started = self.optional and (game.current_turn is not None or self._ready_for == upcoming)
        verdict = judge(game, self.box, optional=self.optional, started=started)
        if game.current_turn is None and verdict.kind == "idle":
            self._ready_for = upcoming
        self.verdict = verdict
        return verdict

    def held_turn(self, game: Game) -> int | None:
        """Throws optional: the turn the box is in (set up for it, or moves made), where tiles may be held."""
        if not self.optional or self.boxless or game.finished or not game.players:
            return None
        upcoming = _turn_number(game)
        return upcoming if game.current_turn is not None or self._ready_for == upcoming else None

    def resume_held(self, game: Game, turn: int) -> bool:
        """After a restart: the box was in ``turn`` with tiles held (:meth:`held_turn`); go on with it if that
        is still the game's turn. Whether it is."""
        if not self.optional or self.boxless or game.finished or turn != _turn_number(game):
            return False
        self._ready_for = turn
        return True

    def held(self, game: Game) -> ev.Move | None:
        """Throws optional: the tiles moved on the box with no throw entered, as their (unverified) event."""
        verdict = self.verdict
        if verdict is not None and verdict.kind == "unverified" and not self.boxless:
            return verdict.event
        return None

    # -- commands ------------------------------------------------------------------------------

    def rule(self, command: Command, game: Game | None) -> Ruling:
        """The ruling on a throw, a move, an end or an undo."""
        if isinstance(command, Undo):
            return self._undo(game)
        refusal = self.not_ready(game)
        if refusal is not None:
            return Ruling(refused=refusal)
        assert game is not None
        if isinstance(command, Throw):
            return self._throw(command, game)
        if isinstance(command, Move):
            return self._move(command, game)
        if isinstance(command, End):
            return self._end(command, game)
        raise TypeError(f"the referee does not rule on {command!r}")

    def not_ready(self, game: Game | None) -> str | None:
        """Why nothing may be entered now, or None."""
        if game is None:
            return "no players yet"
        if game.finished:
            return "the game is over"
        if self.boxless:
            return None
        if self.box is None or not self.connected:
            return "waiting for the box: the throw counts once the box is connected"
        verdict = self.verdict
        if verdict is not None and verdict.kind in ("setup", "flag"):
            return f"put the box right first: {verdict.message}"
        return None

    def end_accepted(self, game: Game | None) -> bool:
        """Would an End be taken now (ending the turn, or asking to confirm)?"""
        if not self.optional or self.not_ready(game) is not None:
            return False
        assert game is not None
        return game.declared_end_refusal() is None

    def _throw(self, command: Throw, game: Game) -> Ruling:
        event = ev.throw(total=command.total) if command.total is not None else ev.throw(*command.dice)
        held = self.held(game)
        if held is not None and not _fits(game, held.tiles, command.value):
            return Ruling(events=(held, event))  # the tiles were an earlier throw's, nobody entered it
        return Ruling(events=(event,))

    def _move(self, command: Move, game: Game) -> Ruling:
        if not self.boxless:
            return Ruling(refused="move the tiles on the box: it reports them (entering tiles is for box-less "
                                  "play, --port none)")
        uncovering = game.phase == UNCOVER
        verb = command.verb
        words = " ".join(str(t) for t in command.tiles)
        if verb == "shut" and uncovering:
            return Ruling(refused=f"{game.current_player} uncovers tiles: type 'open {words}'")
        if verb == "open" and not uncovering:
            return Ruling(refused=f"{game.current_player} shuts tiles: type 'shut {words}'")
        unverified = game.pending is None
        if unverified and not self.optional:
            return Ruling(refused=f"enter the throw first, then {PHASE_WORDS[game.phase].verb} its tiles")
        tiles = command.tiles
        event = ev.uncover(*tiles, unverified=unverified) if uncovering else ev.shut(*tiles, unverified=unverified)
        return Ruling(events=(event,))

    def _end(self, command: End, game: Game) -> Ruling:
        if not self.optional:  # throws are typed, so a dead throw has ended the turn already
            return Ruling(refused=game.end_refusal(typed=True) or "the turn is over")
        refusal = game.declared_end_refusal()
        if refusal is not None:
            return Ruling(refused=refusal)
        held = self.held(game)
        turn = game.current_turn
        moved = held is not None or (turn is not None and any(t.tiles for t in turn.throws))
        number, now = _turn_number(game), self.clock()
        if not moved:
            asked, self._asked = self._asked, (number, now)
            if asked is None or asked[0] != number or now - asked[1] > CONFIRM_S:
                return Ruling(prompt=confirm_end(command.source))
        self._asked = None
        return Ruling(events=(*([held] if held is not None else []), ev.end_turn(declared=True)))

    def _undo(self, game: Game | None) -> Ruling:
        if game is None:
            return Ruling(refused="no players yet")
        if game.finished:
            return Ruling(refused="the game is over: its result stands, and undo cannot reopen it")
        live = game.effective_events()
        if len(live) <= 1:
            return Ruling(refused="there is nothing to undo")
        if isinstance(live[-1], (ev.ShutEvent, ev.OpenEvent)) and not self.boxless:
            return Ruling(refused="a move made on the box stands; undo withdraws only a typed throw or end")
        return Ruling(events=(ev.undo(),))


def _turn_number(game: Game) -> int:
    """The number of the turn in progress, or of the next one."""
    turn = game.current_turn
    return turn.number if turn is not None else len(game.turns) + 1


def _fits(game: Game, tiles: tuple[int, ...], total: int) -> bool:
    """Tiles moved before a throw was entered are its move, or a part of one."""
    return any(set(tiles) <= set(m) for m in legal_moves(game.rules, game.in_play, total))
