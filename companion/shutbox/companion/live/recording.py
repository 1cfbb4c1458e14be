"""Committing to history: each event is checked by the rules engine, then saved, and only then reported.

:class:`Ledger` holds the game being played and its :class:`~shutbox.companion.store.database.GameStore`. ``commit``
applies a run of events to the game (each checked once, by ``Game.apply``, or already checked: a
:class:`~shutbox.game.replay.CheckedMove` is committed as it is; an illegal one leaves the game and the
record as they were, the whole run included) and then saves them one by one; a save that fails
puts the game back to what the database holds. It answers with a :class:`Change` per event: the turns and
rounds the event ended, for the messages. ``hold`` saves the tiles held on the box (throws optional) when
they change, and ``held`` reads back what a scorekeeper killed in the turn held.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shutbox.base.errors import ShutboxError
from shutbox.companion.store.database import GameStore
from shutbox.game import events as ev
from shutbox.game.gamefile import settings_of
from shutbox.game.replay import CheckedMove, Game, Round, Turn
from shutbox.kit.model import Rules


@dataclass(frozen=True)
class Change:
    """What one committed event did."""

    event: ev.Event
    turns: tuple[Turn, ...]  #: turns that ended with it, or (long game) got an extra throw
    rounds: tuple[Round, ...]  #: rounds it finished
    finished: bool  #: the game is over


class Ledger:
    """The game and its record; see the module docstring."""

    def __init__(self, rules: Rules, store: GameStore, *, game_id: int | None = None,
                 game: Game | None = None) -> None:
        self.rules = rules
        self.store = store
        self.game_id = game_id
        self.game = game
        self.recorded = len(game.to_events()) if game is not None else 0  #: events in the record
        self._held: tuple[int, tuple[int, ...]] | None = None  #: (events recorded then, tiles) the store holds

    def start(self, names: Iterable[str]) -> Game:
        """A new game with these players, saved with its first event (IllegalMove: the names are refused)."""
        if self.game is not None:
            raise ShutboxError("the players are already set")
        event = ev.players(list(names)).stamped(now())
        game = Game(self.rules)
        game.apply(event)
        self.game_id = self.store.new_game(settings_of(self.rules), event)
        self.game = game
        self.recorded = 1
        return game

    def hold(self, turn: int, tiles: tuple[int, ...]) -> None:
        """Save the tiles held on the box in ``turn`` (moved with no throw entered), unless the store has them."""
        assert self.game_id is not None
        saved = self._held[1] if self._held is not None and self._held[0] == self.recorded else ()
        if tiles == saved:
            return
        self.store.hold(self.game_id, turn, tiles)
        self._held = (self.recorded, tiles)

    def held(self) -> tuple[int, tuple[int, ...]] | None:
        """The turn and tiles held when the scorekeeper stopped (the store's :meth:`~GameStore.held`), or None."""
        assert self.game_id is not None
        found = self.store.held(self.game_id)
        if found is not None:
            self._held = (self.recorded, found[1])
        return found

    def commit(self, events: Sequence[ev.Event | CheckedMove]) -> list[Change]:
        """Check every event against the rules (IllegalMove: none is kept), then save each in turn."""
        game = self.game
        assert game is not None and self.game_id is not None
        stamped = [e.stamped(now()) for e in events]
        trial = copy.deepcopy(game) if len(stamped) > 1 else game  # a run is kept whole or not at all
        changes = [_apply(trial, e) for e in stamped]
        self.game = trial
        for change in changes:
            try:
                self.store.append(self.game_id, change.event,
                                  finished=trial.finished and change is changes[-1])
            except ShutboxError:
                saved = self.store.events(self.game_id)
                self.game = Game.from_events(self.rules, saved)  # back to what is saved
                self.recorded = len(saved)
                raise
            self.recorded += 1
        return changes


def _apply(game: Game, item: ev.Event | CheckedMove) -> Change:
    before = {t.number: t.ended for t in game.turns}
    extra_before = {t.number: len(t.throws) for t in game.turns}
    rounds_done = sum(r.finished for r in game.rounds)
    game.apply(item)
    event = item.event if isinstance(item, CheckedMove) else item
    if isinstance(event, ev.UndoEvent):
        return Change(event, (), (), game.finished)
    turns = tuple(t for t in game.turns if before.get(t.number) is not True
                  and (t.ended or (t.throws and t.throws[-1].extra and extra_before.get(t.number) != len(t.throws))))
    return Change(event, turns, tuple(r for r in game.rounds[rounds_done:] if r.finished), game.finished)


def now() -> float:
    """The time an event is recorded (seconds since 1970, to the millisecond)."""
    return round(time.time(), 3)
