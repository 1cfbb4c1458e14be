"""Typed game events are saved exactly as the record has always held them: every kind, its optional fields and
its time, as JSON text; a saved game file reads and writes back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shutbox.game import events as ev
from shutbox.game.gamefile import game_to_json, load_game, save_game
from shutbox.game.replay import Game
from shutbox.game.rules import IllegalMove
from shutbox.kit.model import Rules
from tests.conftest import REPO

#: Every kind of event with each of its forms, and the JSON text the record holds for it (as json.dumps writes it).
SAVED = [
    (ev.players(["Ann", "Bob"]), '{"v": 1, "type": "players", "names": ["Ann", "Bob"]}'),
    (ev.throw(3, 5), '{"v": 1, "type": "throw", "dice": [3, 5]}'),
    (ev.throw(4), '{"v": 1, "type": "throw", "dice": [4]}'),
    (ev.throw(total=7), '{"v": 1, "type": "throw", "total": 7}'),
    (ev.shut(8), '{"v": 1, "type": "shut", "tiles": [8]}'),
    (ev.shut(4, 3, 1, unverified=True), '{"v": 1, "type": "shut", "tiles": [4, 3, 1], "unverified": true}'),
    (ev.uncover(2, 5), '{"v": 1, "type": "open", "tiles": [2, 5]}'),
    (ev.uncover(9, unverified=True), '{"v": 1, "type": "open", "tiles": [9], "unverified": true}'),
    (ev.end_turn(), '{"v": 1, "type": "end_turn", "unverified": true}'),
    (ev.end_turn(declared=True), '{"v": 1, "type": "end_turn", "unverified": true, "declared": true}'),
    (ev.undo(), '{"v": 1, "type": "undo"}'),
]
#: Times as recorders give them: seconds (whole or not), or a text; each kept as given, last in the object.
TIMES = [(1767225600.125, "1767225600.125"), (0, "0"), (1767225600, "1767225600"),
         ("2026-05-01T20:15:00", '"2026-05-01T20:15:00"')]
GAMES = sorted((REPO / "tests" / "golden" / "print" / "games").glob("*.json"))


@pytest.mark.parametrize(("event", "text"), SAVED, ids=[text for _, text in SAVED])
def test_every_kind_of_event_is_saved_as_it_always_was_and_read_back_as_itself(event: ev.Event, text: str):
    assert json.dumps(event.to_dict()) == text
    assert ev.from_dict(json.loads(text)) == event
    for at, shown in TIMES:
        stamped = event.stamped(at)
        assert json.dumps(stamped.to_dict()) == text[:-1] + f', "at": {shown}}}'
        read = ev.from_dict(json.loads(json.dumps(stamped.to_dict())))
        assert read == stamped and type(read.at) is type(at)
    assert ev.checked(event) == event


def test_every_kind_is_in_the_round_trip():
    assert {type(e) for e, _ in SAVED} == {ev.PlayersEvent, ev.ThrowEvent, ev.ShutEvent, ev.OpenEvent,
                                           ev.EndTurnEvent, ev.UndoEvent}
    assert {e.type for e, _ in SAVED} == set(ev.EVENT_FIELDS)


def test_a_time_saved_before_the_fields_is_written_back_after_them():
    """The order the record has always been written in (``at`` last), whatever order a file gives."""
    read = ev.from_dict({"at": 5, "type": "shut", "v": 1, "unverified": True, "tiles": [3]})
    assert json.dumps(read.to_dict()) == '{"v": 1, "type": "shut", "tiles": [3], "unverified": true, "at": 5}'


@pytest.mark.parametrize(("data", "message"), [
    ({"v": 1, "type": "throw", "dice": [3], "total": 3}, "either 'dice' or 'total'"),
    ({"v": 1, "type": "shut", "tiles": [3], "unverified": False}, "'unverified' of a 'shut' event is true"),
    ({"v": 1, "type": "end_turn", "declared": 1}, "'declared' of an 'end_turn' event is true"),
    ({"v": 1, "type": "players", "names": ["Ann"], "at": True}, "'at' must be a time"),
    ({"v": 1, "type": "shut", "tiles": "3", "at": None}, "'tiles' must be a list"),  # the fields before the time
    ({"v": 2, "type": "undo"}, "newer than this shutbox reads"),
])
def test_a_malformed_event_is_refused_naming_what_is_wrong(data, message):
    with pytest.raises(IllegalMove, match=message):
        ev.from_dict(data)


def test_an_event_made_in_the_code_is_checked_as_one_read_from_a_file():
    with pytest.raises(IllegalMove, match="at most 40 characters"):
        Game(Rules()).apply(ev.players(["x" * 41]))
    with pytest.raises(IllegalMove, match="'dice' must be a list of whole numbers"):
        Game(Rules()).add_players("Ann").apply(ev.ThrowEvent(dice=(1,) * 65))


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_saved_game_file_reads_and_writes_back_byte_for_byte(path: Path, tmp_path: Path):
    assert len(GAMES) >= 4
    game = load_game(path)
    assert game_to_json(game) == path.read_text(encoding="utf-8")
    again = save_game(game, tmp_path / path.name)
    assert again.read_bytes() == path.read_bytes()
    assert all(isinstance(e, ev.GameEvent) for e in game.to_events())


def test_a_game_file_with_every_kind_of_event_and_times_writes_back_byte_for_byte(tmp_path: Path):
    rules = Rules(match="long-game")
    events = [ev.players(["Ann", "Bob"]).stamped(1767225600.5), ev.throw(6, 6), ev.shut(9, 3).stamped("evening"),
              ev.throw(total=9), ev.undo().stamped(1767225601), ev.throw(5, 4), ev.shut(5, 4),
              ev.shut(1, 2, unverified=True), ev.end_turn(declared=True), ev.throw(3, 4), ev.uncover(3, 4),
              ev.uncover(1, unverified=True), ev.end_turn().stamped(0)]
    game = Game.from_events(rules, events)
    assert game.to_events() == events
    text = game_to_json(game)
    path = tmp_path / "every.json"
    path.write_text(text, encoding="utf-8")
    assert game_to_json(load_game(path)) == text
    saved = json.loads(text)["events"]
    assert saved == [e.to_dict() for e in events] and Game.from_events(rules, saved).to_events() == events
