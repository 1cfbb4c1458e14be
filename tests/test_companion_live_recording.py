"""Committing to history (shutbox.companion.live.recording): a run of events is kept whole or not at all, saved before
it is reported, and what each event did (the turns and rounds it ended) is handed on to be worded."""

from __future__ import annotations

from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.live.recording import Ledger
from shutbox.companion.live.wording import recorded, turn_ended
from shutbox.companion.store.database import GameStore
from shutbox.game import events as ev
from shutbox.game.rules import IllegalMove
from shutbox.kit.model import Rules
from tests.conftest import unstamped


@pytest.fixture
def ledger(tmp_path: Path):
    with GameStore(tmp_path / "g.sqlite3") as store:
        book = Ledger(Rules(stake=1), store)
        book.start(["Ann", "Bob"])
        yield book


def saved(book: Ledger) -> list[ev.Event]:
    assert book.game_id is not None
    return unstamped(book.store.events(book.game_id))


def test_each_event_is_checked_then_saved_with_its_time(ledger):
    changes = ledger.commit([ev.throw(6, 6)])
    assert saved(ledger)[-1] == ev.throw(6, 6) and "at" in ledger.store.events(1)[-1]
    assert changes[0].event.type == "throw" and not changes[0].turns and not changes[0].finished


def test_a_run_with_an_illegal_event_keeps_nothing(ledger):
    with pytest.raises(IllegalMove, match="the throw was 12"):
        ledger.commit([ev.throw(6, 6), ev.shut(9, 4)])
    assert saved(ledger) == [ev.players(["Ann", "Bob"])]
    assert ledger.game is not None and ledger.game.pending is None


def test_a_declared_end_reports_the_turn_and_the_round(ledger):
    ledger.commit([ev.shut(9, 3, unverified=True), ev.end_turn(declared=True)])
    changes = ledger.commit([ev.shut(1, 2, 3, 4, 5, 6, 7, 8, 9, unverified=True)])
    game = ledger.game
    assert game is not None and game.finished
    notes = recorded(changes[0], game)
    assert notes == [
        ("recorded", "Bob shut 9 + 8 + 7 + 6 + 5 + 4 + 3 + 2 + 1 (no throw entered: unverified)"),
        ("win", "Bob SHUT THE BOX — an instant win!"),
        ("round", "round 1: Bob shut the box and wins the round; Ann -2.00, Bob +2.00"),
        ("win", "game over: Bob wins"),
    ]
    assert turn_ended(game, game.turns[0]) == [("turn", "turn ended (unverified): Ann scores 33 (left open: "
                                                        "1 2 4 5 6 7 8)")]
    assert [e.type for e in saved(ledger)] == ["players", "shut", "end_turn", "shut"]


def test_a_save_that_fails_puts_the_game_back_to_what_is_saved(ledger, monkeypatch):
    def refuse(*args, **kwargs):
        raise ShutboxError("the disk is full")

    monkeypatch.setattr(ledger.store, "append", refuse)
    with pytest.raises(ShutboxError, match="the disk is full"):
        ledger.commit([ev.throw(6, 6)])
    assert ledger.game is not None and ledger.game.pending is None and len(ledger.game.to_events()) == 1
