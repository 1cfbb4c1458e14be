"""The public state of a live table, the one thing every view reads (terminal, live screen, web page).

:class:`LiveState` is a snapshot a :class:`~shutbox.companion.live.session.LiveSession` hands its views after
every change; the game in it is the session's own and must only be read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from shutbox.companion.live.moves import Verdict
from shutbox.game.replay import Game
from shutbox.kit.model import Rules

if TYPE_CHECKING:
    from shutbox.companion.store.database import GameStore


@dataclass(frozen=True)
class LiveState:
    """What the table shows right now."""

    rules: Rules
    game: Game | None  #: read only
    game_id: int | None
    boxless: bool  #: no box: the board is the game's own, the tiles are entered
    throws: str  #: ``required`` or ``optional``
    box: frozenset[int] | None  #: tiles shut on the box as last reported (None: no snapshot yet)
    connected: bool
    device: str
    firmware: str
    verdict: Verdict | None  #: what the box means now
    help: str  #: what may be entered
    end_accepted: bool  #: an End (the button, ``end``, the page's End) would be taken now
    hint: str | None = None  #: the solver's best move for the pending throw, when hints are on
    review: dict[str, Any] | None = None  #: the players' review summaries once the game is over

    @property
    def verified(self) -> bool:
        """The current turn has a throw entered (so far its moves are checked against the throws)."""
        game = self.game
        if game is None or game.finished:
            return False
        turn = game.current_turn
        return game.pending is not None or (turn is not None and any(t.total is not None for t in turn.throws))

    @property
    def legal(self) -> list[list[int]] | None:
        """The moves the pending throw allows, or None when no throw is pending."""
        game = self.game
        if game is None or game.pending is None or game.pending.total is None or game.finished:
            return None
        return [list(m) for m in game.legal_moves()]


class View(Protocol):
    """Where a session shows itself."""

    def note(self, kind: str, text: str) -> None:
        """One message: kind is recorded, turn, round, win, flag, refused, hint, info or link."""

    def show(self, state: LiveState) -> None:
        """Redraw the state (called after every change; may skip when nothing visible changed)."""


class Table(Protocol):
    """What a source of dice (the camera, a posted photo, smart dice) needs of the live session it enters
    throws into (:class:`~shutbox.companion.live.session.LiveSession` is one)."""

    view: View
    store: GameStore

    @property
    def game(self) -> Game | None:
        """The game being played, or None before it starts."""

    @property
    def game_id(self) -> int | None:
        """Its id in the store, or None before it starts."""

    def handle(self, item: Any) -> None:
        """Take one input (a command, or a dice reading to rule on)."""
