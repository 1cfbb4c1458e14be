"""Wording the messages of a live game (shutbox.companion.live.wording): what was recorded, how a turn ended, the help
for each kind of table and the question an accidental press gets."""

from __future__ import annotations

from shutbox.companion.live.recording import Change
from shutbox.companion.live.wording import confirm_end, game_started, help_text, recorded
from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules


def test_the_help_and_the_question_are_worded_for_the_table():
    assert help_text(boxless=False, optional=False).startswith("type a throw: '3 5'")
    assert "press its button" in help_text(boxless=False, optional=True)
    assert help_text(boxless=True, optional=False).endswith("then the tiles: 'shut 3 5'; or end, undo, hint, quit")
    assert "then end to end the turn" in help_text(boxless=True, optional=True)
    assert confirm_end("button") == "press again to end with nothing shut"
    assert confirm_end("typed") == "press again to end with nothing shut (or type end again)"


def test_each_event_is_worded_once_with_how_the_turn_ended():
    game = Game(Rules()).add_players("Ann", "Bob")
    game.apply(ev.throw(6, 6))
    assert recorded(Change(ev.throw(6, 6), (), (), False), game) == [("recorded", "Ann threw 6 + 6 = 12")]
    game.apply(ev.shut(9, 3))
    game.apply(ev.throw(1, 1))
    game.apply(ev.shut(2))
    game.apply(ev.shut(8, 4, unverified=True))
    assert recorded(Change(ev.shut(8, 4, unverified=True), (), (), False), game) == [
        ("recorded", "Ann shut 8 + 4 (no throw entered: unverified)")]
    game.apply(ev.end_turn(declared=True))
    turn = game.turns[0]
    assert recorded(Change(ev.end_turn(declared=True), (turn,), (), False), game) == [
        ("recorded", "Ann ended the turn (unverified: no throw with no move was entered)"),
        ("turn", "turn ended (unverified): Ann scores 19 (left open: 1 5 6 7)")]
    assert game_started(game, 3, optional=True) == ("info", "game 3: Ann, Bob — round, 9 tiles; throws optional: "
                                                            "the box's button ends a turn")
    assert game_started(game, 3, optional=True, boxless=True)[1].endswith("throws optional: end ends a turn")
    assert game_started(game, 3, optional=False) == ("info", "game 3: Ann, Bob — round, 9 tiles")
