"""Games derived by replaying events: every match format, stakes, the long game, undo, the game file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.game import events as ev
from shutbox.game.gamefile import game_from_dict, game_to_dict, load_game, save_game
from shutbox.game.replay import Game
from shutbox.game.rules import IllegalMove
from shutbox.kit.model import Rules

# Whole turns on a nine-tile box, as events after the first throw of a turn (all tiles open):
# 5+6 = 11 shuts 9+2; then 1+1 = 2 admits nothing (2 is shut, 1+1 is one tile twice): 45-11 = 34.
T34 = [ev.throw(5, 6), ev.shut(9, 2), ev.throw(1, 1)]
# 6+6 = 12 shuts 9+2+1, then 2 is impossible: 45-12 = 33.
T33 = [ev.throw(6, 6), ev.shut(9, 2, 1), ev.throw(1, 1)]
# 4+4 = 8 shuts 6+2, then 2: 45-8 = 37.
T37 = [ev.throw(4, 4), ev.shut(6, 2), ev.throw(1, 1)]
# 12: 9+3 -> {1,2,4,5,6,7,8}; 11: 8+2+1 -> {4,5,6,7}; 11: 7+4 -> {5,6}; 11: 6+5 -> box shut.
SHUT_BOX = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(5, 6), ev.shut(8, 2, 1), ev.throw(5, 6), ev.shut(7, 4),
            ev.throw(5, 6), ev.shut(6, 5)]


def play(rules: Rules, names: list[str], *turns: list[ev.Event]) -> Game:
    events = [ev.players(names)] + [e for turn in turns for e in turn]
    game = Game.from_events(rules, events)
    assert Game.from_events(rules, game.to_events()).to_events() == game.to_events()
    return game


def test_round_lowest_score_wins_and_takes_the_pool() -> None:
    game = play(Rules(stake=1.0), ["Ann", "Bob", "Cy"], T34, T33, T37)
    assert game.finished and game.winners == ("Bob",)
    (r,) = game.rounds
    assert r.scores == {"Ann": 34, "Bob": 33, "Cy": 37} == game.totals
    assert [t.player for t in game.turns] == ["Ann", "Bob", "Cy"]
    first = game.turns[0]
    assert [(t.dice, t.tiles, t.dead) for t in first.throws] == [((5, 6), (2, 9), False), ((1, 1), None, True)]
    assert first.open_tiles == (1, 3, 4, 5, 6, 7, 8) and first.score == 34 and not first.shut_box
    assert r.pool == 3.0 and r.payouts["Bob"] == 3.0
    assert game.balance == {"Ann": -1.0, "Bob": 2.0, "Cy": -1.0}
    with pytest.raises(IllegalMove, match="the game is over"):
        game.throw(3, 4)


def test_round_tie_splits_the_pool() -> None:
    game = play(Rules(stake=2.0), ["Ann", "Bob", "Cy"], T34, T37, T34)
    assert game.winners == ("Ann", "Cy")
    assert game.balance == {"Ann": 1.0, "Bob": -2.0, "Cy": 1.0}  # pool 6 split 3/3, each paid 2


def test_shutting_the_box_wins_at_once_and_collects_double_stakes() -> None:
    game = play(Rules(stake=1.0), ["Ann", "Bob", "Cy"], T34, SHUT_BOX)
    assert game.finished and game.winners == ("Bob",)
    (r,) = game.rounds
    assert r.shut_box_by == "Bob" and "Cy" not in r.scores  # Cy never plays
    assert game.turns[-1].shut_box and game.turns[-1].score == 0
    # Ann and Cy each pay double the stake; Bob gets back his own stake plus 2 from each.
    assert r.paid == {"Ann": 2.0, "Bob": 1.0, "Cy": 2.0}
    assert game.balance == {"Ann": -2.0, "Bob": 4.0, "Cy": -2.0}


def test_digits_scoring_in_a_round() -> None:
    game = play(Rules(scoring="digits"), ["Ann", "Bob"], T34, T33)
    assert game.rounds[0].scores == {"Ann": 1345678, "Bob": 345678}
    assert game.winners == ("Bob",)


def test_drop_out_players_leave_at_the_limit_and_the_last_one_wins() -> None:
    rules = Rules(match="drop-out", limit=70)
    # Round 1: 34, 33, 37. Round 2: Ann 34 (68), Bob 37 (70: out), Cy 33 (70: out) -> Ann is left.
    game = play(rules, ["Ann", "Bob", "Cy"], T34, T33, T37, T34, T37, T33)
    assert game.totals == {"Ann": 68, "Bob": 70, "Cy": 70}
    assert game.eliminated == ["Bob", "Cy"]
    assert game.finished and game.winners == ("Ann",)
    # Round 2 is complete; Cy's 33 is the lowest but Cy dropped out in it, so Ann (still in) wins it.
    assert [r.winners for r in game.rounds] == [("Bob",), ("Ann",)]


def test_drop_out_plays_on_without_the_dropped_player() -> None:
    rules = Rules(match="drop-out", limit=36)
    game = play(rules, ["Ann", "Bob", "Cy"], T34, T33, T37)  # Cy reaches 37 and drops out
    assert game.eliminated == ["Cy"] and not game.finished
    assert game.rounds[1].players == ("Ann", "Bob")
    # Round 2: Ann shuts the box, so Bob skips it; round 3: Ann 34 -> 68, out: Bob is left.
    game2 = play(rules, ["Ann", "Bob", "Cy"], T34, T33, T37, SHUT_BOX, T34)
    assert game2.rounds[1].shut_box_by == "Ann" and game2.rounds[1].scores == {"Ann": 0}
    assert game2.eliminated == ["Cy", "Ann"] and game2.winners == ("Bob",)


def test_shut_box_ends_a_cumulative_round_at_once() -> None:
    rules = Rules(match="tournament", limit=100)
    game = play(rules, ["Ann", "Bob", "Cy"], SHUT_BOX)
    assert game.rounds[0].finished and game.rounds[0].winners == ("Ann",)
    assert len(game.rounds) == 2 and game.current_player == "Ann"
    assert game.totals == {"Ann": 0, "Bob": 0, "Cy": 0}


def test_tournament_first_to_reach_the_limit_loses() -> None:
    rules = Rules(match="tournament", limit=100)
    # Totals after round 2: Ann 68, Bob 70, Cy 74. Round 3: Ann 34 -> 102: Ann loses at once.
    game = play(rules, ["Ann", "Bob", "Cy"], T34, T33, T37, T34, T37, T37, T34)
    assert game.loser == "Ann" and game.finished
    assert game.winners == ("Bob",)  # lowest total of the others (70 against 74)
    assert game.rounds[-1].finished and game.rounds[-1].scores == {"Ann": 34}
    with pytest.raises(IllegalMove, match="the game is over"):
        game.apply(ev.throw(3, 4))


def test_default_limits_come_from_the_model() -> None:
    assert Rules(match="tournament").limit == 100 and Rules(match="drop-out").limit == 45
    game = play(Rules(match="drop-out"), ["Ann", "Bob"], T34, T33, T34)  # Ann 68 >= 45
    assert game.winners == ("Bob",)


# Long game, Ann shutting: 12 shuts 9+3, 3 shuts 2+1, then 3 (non-double) admits nothing.
# Ann leaves {4,5,6,7,8} open (score 30); {1,2,3,9} are shut.
LONG_FIRST = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(1, 2), ev.shut(2, 1), ev.throw(2, 1)]


def test_long_game_uncover_and_doubles() -> None:
    rules = Rules(match="long-game")
    game = play(rules, ["Ann", "Bob"], LONG_FIRST)
    assert game.turns[0].score == 30 and game.turns[0].ended
    assert game.current_player == "Bob" and game.phase == "uncover"
    assert game.in_play == (1, 2, 3, 9)
    with pytest.raises(IllegalMove, match="uncovering tiles"):
        game.shut(4)
    # 9 is still shut: the one-die rule looks at the tiles still to uncover, and says so.
    with pytest.raises(IllegalMove, match=r"^one die is not allowed: tile 9 is still shut \(one die once tiles 7, 8 "
                                          r"and 9 are open again\)$"):
        game.throw(2)
    # {1,2,3,9} make every total but 7 and 8. 4+4 = 8 uncovers nothing, but it is a double: again.
    game.throw(4, 4)
    assert game.turns[-1].throws[-1].extra and not game.turns[-1].ended
    game.throw(3, 4)  # 7: nothing, not a double: Bob's turn ends
    assert game.current_player == "Ann" and game.phase == "shut"
    assert game.turns[-1].score == 15  # what Bob left to uncover: 1+2+3+9
    # Ann shuts again from the board as it is: {4,5,6,7,8}.
    game.throw(6, 6).shut(8, 4).throw(6, 6).shut(7, 5)
    assert game.board == (6,) and game.dice_counts() == (1, 2)
    game.throw(6).shut(6)
    assert game.finished and game.winners == ("Ann",) and game.turns[-1].shut_box


def test_long_game_end_turn_cannot_claim_a_double() -> None:
    # With {1,3,4,5,6,7,8} open only 2 is dead, and 2 is always a double: the turn cannot end.
    game = play(Rules(match="long-game"), ["Ann", "Bob"], [ev.throw(5, 6), ev.shut(9, 2)])
    with pytest.raises(IllegalMove, match="every throw that would end the turn can shut"):
        game.end_turn()
    game.throw(total=2)  # a total only a double shows
    assert game.turns[0].throws[-1].extra and not game.turns[0].ended


def test_long_game_uncovering_player_wins() -> None:
    first = [ev.throw(6, 6), ev.uncover(9, 3), ev.throw(1, 2), ev.uncover(1, 2)]
    game = play(Rules(match="long-game", stake=1.0), ["Ann", "Bob"], LONG_FIRST, first)
    assert game.finished and game.winners == ("Bob",) and game.turns[-1].uncovered_box
    assert game.board == tuple(range(1, 10))
    assert game.balance == {"Ann": -1.0, "Bob": 1.0}
    with pytest.raises(IllegalMove, match="exactly 2 players"):
        Game(Rules(match="long-game")).add_players("Ann", "Bob", "Cy")


def test_open_is_refused_outside_the_long_game() -> None:
    game = Game(Rules()).add_players("Ann").throw(3, 4)
    with pytest.raises(IllegalMove, match="only uncovered in the long game"):
        game.uncover(7)


def test_illegal_events_leave_the_game_unchanged() -> None:
    game = Game(Rules()).add_players("Ann", "Bob").throw(3, 4)
    before = game.to_events()
    for bad, reason in [
        (ev.shut(6, 4), r"6 \+ 4 = 10, the throw was 7"),
        (ev.throw(1, 2), "has not been used yet"),
        (ev.end_turn(), r"can still shut 7, 6 \+ 1"),
        ({"v": 1, "type": "shut"}, "needs 'tiles'"),
        ({"v": 2, "type": "undo"}, "newer than this shutbox reads"),
        ({"v": 1, "type": "dance"}, "unknown event type"),
    ]:
        with pytest.raises(IllegalMove, match=reason):
            game.apply(bad)
    assert game.to_events() == before and game.pending is not None and game.pending.total == 7


def test_replay_names_the_bad_event() -> None:
    events = [ev.players(["Ann"]), ev.throw(4), ev.shut(4)]
    with pytest.raises(IllegalMove, match=r"^event 2 \(throw\): one die is not allowed: tiles 7, 8 and 9 are still "
                                          r"open \(one die once tiles 7, 8 and 9 are shut\)$"):
        Game.from_events(Rules(), events)
    with pytest.raises(IllegalMove, match="no players yet"):
        Game.from_events(Rules(), [ev.throw(3, 4)])


def test_forced_one_die_in_a_game() -> None:
    rules = Rules(one_die="sum-6", one_die_forced=True)
    game = Game(rules).add_players("Ann")
    for dice, tiles in [((6, 6), (9, 3)), ((6, 5), (8, 2, 1)), ((5, 6), (7, 4)), ((3, 2), (5,))]:
        game.throw(*dice).shut(*tiles)
    assert game.board == (6,) and game.dice_counts() == (1,)
    with pytest.raises(IllegalMove, match="two dice are not allowed"):
        game.throw(3, 3)
    game.throw(6).shut(6)
    assert game.finished and game.turns[0].shut_box


def test_throw_by_total_and_shut_without_a_throw() -> None:
    game = Game(Rules()).add_players("Ann")
    game.throw(total=11).shut(9, 2)
    game.shut(8)  # the dice were not entered: the throw is taken to be 8
    assert [t.total for t in game.turns[0].throws] == [11, 8]
    with pytest.raises(IllegalMove, match="impossible with two dice"):
        game.shut(7, 6)  # 13 cannot be thrown
    with pytest.raises(IllegalMove, match="needs one die"):
        game.throw(total=1)


def test_end_turn_reports_a_dead_throw_only_when_one_is_possible() -> None:
    game = Game(Rules()).add_players("Ann", "Bob")
    with pytest.raises(IllegalMove, match="every throw can shut tiles now"):
        game.end_turn()
    game.throw(5, 6).shut(9, 2).end_turn()  # e.g. a 2 that nobody typed in
    assert game.turns[0].ended and game.turns[0].score == 34 and game.current_player == "Bob"


def test_undo_withdraws_the_latest_event() -> None:
    game = Game(Rules()).add_players("Ann").throw(5, 6).shut(9, 2)
    game.undo()
    assert game.board == tuple(range(1, 10)) and game.pending is not None and game.pending.total == 11
    game.shut(8, 3)
    assert game.board == (1, 2, 4, 5, 6, 7, 9)
    assert [e.type for e in game.to_events()] == ["players", "throw", "shut", "undo", "shut"]
    again = Game.from_events(Rules(), game.to_events())
    assert again.board == game.board
    with pytest.raises(IllegalMove, match="nothing to undo"):
        Game(Rules()).undo()


def test_timestamps_are_kept_and_unknown_fields_refused() -> None:
    game = Game(Rules()).add_players("Ann")
    game.apply({"v": 1, "type": "throw", "dice": [5, 6], "at": "2026-05-01T20:15:00"})
    assert game.to_events()[-1].at == "2026-05-01T20:15:00"
    assert game.to_events()[-1].to_dict() == {"v": 1, "type": "throw", "dice": [5, 6], "at": "2026-05-01T20:15:00"}
    with pytest.raises(IllegalMove, match="unknown field '?colour'?"):
        game.apply({"v": 1, "type": "shut", "tiles": [9, 2], "colour": "red"})


def test_events_are_plain_json() -> None:
    game = play(Rules(), ["Ann", "Bob"], T34, T33)
    text = json.dumps([e.to_dict() for e in game.to_events()])
    assert Game.from_events(Rules(), json.loads(text)).winners == ("Bob",)


def test_game_file_round_trip(tmp_path: Path) -> None:
    rules = Rules(match="drop-out", limit=50, stake=0.5, scoring="digits", tiles=10)
    game = Game(rules).add_players("Ann", "Bob").throw(5, 6).shut(10, 1)
    path = save_game(game, tmp_path / "g.json")
    data = json.loads(path.read_text())
    assert data["format"] == "shutbox-game" and data["version"] == 1
    assert data["settings"]["limit"] == 50 and data["settings"]["tiles"] == 10
    loaded = load_game(path)
    assert loaded.rules == rules and loaded.to_events() == game.to_events()
    assert loaded.board == game.board


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda d: d.update(format="other"), "not a shutbox game file"),
        (lambda d: d.update(version=9), "version 9 is not supported"),
        (lambda d: d["settings"].update(tiles=55), "rules.tiles 55: invalid value; allowed: a whole number from 9 "
                                                   "to 54"),
        (lambda d: d["settings"].update(tiles=18), r"--tiles 18 needs at least 3 dice \(6 x dice must reach tile 18\)"),
        (lambda d: d["events"].append(ev.shut(2)), r"event 4 \(shut\): tile 2 is already shut"),
    ],
)
def test_bad_game_files_are_refused(mutate, reason: str) -> None:
    data = game_to_dict(Game(Rules()).add_players("Ann").throw(5, 6).shut(9, 2))
    mutate(data)
    with pytest.raises(ShutboxError, match=reason):
        game_from_dict(data, "g.json")


def test_missing_and_broken_files(tmp_path: Path) -> None:
    with pytest.raises(ShutboxError, match="no such file"):
        load_game(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ShutboxError, match="not valid JSON"):
        load_game(bad)


def test_a_checked_move_is_committed_as_checked_and_a_stale_one_is_checked_again():
    """``Game.check`` rules on a move without changing the game; ``apply`` takes the checked move as it is,
    while one checked before the game changed is checked afresh (and refused here)."""
    from shutbox.game.replay import CheckedMove

    game = Game(Rules()).add_players("Ann", "Bob").throw(6, 6)
    checked = game.check(ev.shut(9, 3))
    assert isinstance(checked, CheckedMove) and checked.tiles == (3, 9)
    assert game.board == tuple(range(1, 10)) and game.pending is not None  # nothing changed
    copy = Game.from_events(Rules(), game.to_events())
    game.apply(checked)
    assert game.board == (1, 2, 4, 5, 6, 7, 8) and game.to_events()[-1] == ev.shut(9, 3)
    game.throw(6, 6)
    with pytest.raises(IllegalMove, match="8 \\+ 2 = 10, the throw was 12"):
        game.check(ev.shut(8, 2))
    with pytest.raises(IllegalMove, match="tile 3 is already shut"):
        game.apply(checked)  # stale: the game moved on since, so it is checked afresh
    assert game.board == (1, 2, 4, 5, 6, 7, 8)
    copy.apply(checked)  # another game is never trusted with it: checked there, and allowed
    assert copy.board == (1, 2, 4, 5, 6, 7, 8)
