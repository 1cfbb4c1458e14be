"""Committing to history: each event is checked by the rules engine, then saved, and only then reported.

:class:`Ledger` holds the game being played and its :class:`~shutbox.companion.store.GameStore`. ``commit``
applies a run of events to the game (each checked once, by ``Game.apply``; an illegal one leaves the game
and the record as they were, the whole run included) and then saves them one by one; a save that fails
puts the game back to what the database holds. It answers with a :class:`Change` per event: the turns and
rounds the event ended, for the messages.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from shutbox.companion.store import GameStore
from shutbox.errors import ShutboxError
from shutbox.game import events as ev
from shutbox.game.gamefile import settings_of
from shutbox.game.replay import Game, Round, Turn
from shutbox.model import Rules


@dataclass(frozen=True)
class Change:
    """What one committed event did."""

    event: dict[str, Any]
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

    def start(self, names: Iterable[str]) -> Game:
        """A new game with these players, saved with its first event (IllegalMove: the names are refused)."""
        if self.game is not None:
            raise ShutboxError("the players are already set")
        event = dict(ev.players(list(names)), at=now())
        game = Game(self.rules)
        game.apply(event)
        self.game_id = self.store.new_game(settings_of(self.rules), event)
        self.game = game
        return game

    def commit(self, events: Sequence[dict[str, Any]]) -> list[Change]:
        """Check every event against the rules (IllegalMove: none is kept), then save each in turn."""
        game = self.game
        assert game is not None and self.game_id is not None
        stamped = [dict(e, at=now()) for e in events]
        trial = copy.deepcopy(game) if len(stamped) > 1 else game  # a run is kept whole or not at all
        changes = [_apply(trial, e) for e in stamped]
        self.game = trial
        for event in stamped:
            try:
                self.store.append(self.game_id, event, finished=trial.finished and event is stamped[-1])
            except ShutboxError:
                self.game = Game.from_events(self.rules, self.store.events(self.game_id))  # back to what is saved
                raise
        return changes


def _apply(game: Game, event: dict[str, Any]) -> Change:
    before = {t.number: t.ended for t in game.turns}
    extra_before = {t.number: len(t.throws) for t in game.turns}
    rounds_done = sum(r.finished for r in game.rounds)
    game.apply(event)
    if event["type"] == "undo":
        return Change(event, (), (), game.finished)
    turns = tuple(t for t in game.turns if before.get(t.number) is not True
                  and (t.ended or (t.throws and t.throws[-1].extra and extra_before.get(t.number) != len(t.throws))))
    return Change(event, turns, tuple(r for r in game.rounds[rounds_done:] if r.finished), game.finished)


def now() -> float:
    """The time an event is recorded (seconds since 1970, to the millisecond)."""
    return round(time.time(), 3)
