"""Money and endings: a round the match cuts short, rounds never paid to a player who is out, the long
game's single stake, unverified ends, doubles with more dice, settings the rules do not define."""

from __future__ import annotations

import pytest

from shutbox.base.errors import SettingsError
from shutbox.game import events as ev
from shutbox.game.gamefile import game_from_dict, game_to_dict
from shutbox.game.replay import Game
from shutbox.game.report import result, round_result_text
from shutbox.game.rules import IllegalMove
from shutbox.kit.model import Rules

# Whole turns on a nine-tile box, worked out by hand (all tiles open at the start of each):
T34 = [ev.throw(5, 6), ev.shut(9, 2), ev.throw(1, 1)]  # 11: 9+2, then 2 is dead: 45-11 = 34
T33 = [ev.throw(6, 6), ev.shut(9, 2, 1), ev.throw(1, 1)]  # 12: 9+2+1, then 2 is dead: 33
T37 = [ev.throw(4, 4), ev.shut(6, 2), ev.throw(1, 1)]  # 8: 6+2, then 2 is dead: 37
# 12: 9+3, 8+4, 7+5, then 12 again is dead with 1, 2, 6 open: 9
T9 = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(6, 6), ev.shut(8, 4), ev.throw(6, 6), ev.shut(7, 5), ev.throw(6, 6)]
SHUT_BOX = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(5, 6), ev.shut(8, 2, 1), ev.throw(5, 6), ev.shut(7, 4),
            ev.throw(5, 6), ev.shut(6, 5)]


def play(rules: Rules, names: list[str], *turns: list[ev.Event]) -> Game:
    game = Game.from_events(rules, [ev.players(names)] + [e for turn in turns for e in turn])
    assert game_from_dict(game_to_dict(game)).to_events() == game.to_events()
    return game


def test_drop_out_a_round_cut_short_returns_the_stakes_and_has_no_winner() -> None:
    # The game: round 2, Ann reaches the limit and drops out before Bob has played it;
    # Bob is the last player left and wins. Round 1 went to Bob (33 against 34).
    game = play(Rules(match="drop-out", limit=40, stake=1.0), ["Ann", "Bob"], T34, T33, T9)
    assert game.finished and game.winners == ("Bob",) and game.eliminated == ["Ann"]
    first, second = game.rounds
    assert first.winners == ("Bob",) and not first.cut_short
    assert second.cut_short and second.winners == () and second.shut_box_by is None
    assert second.net == {"Ann": 0.0, "Bob": 0.0}  # every stake returned
    assert game.balance == {"Ann": -1.0, "Bob": 1.0}
    assert round_result_text(game, second) == "round 2: cut short by the end of the match, no winner; every stake " \
                                              "is returned"
    assert result(game)["rounds"][1]["cut_short"] is True and result(game)["rounds"][1]["winners"] == []


def test_tournament_the_loser_never_collects_a_cut_short_round() -> None:
    # Round 1: Ann 34, Bob 37, Cy 33 (Cy wins it). Round 2: Ann 34+9 = 43 reaches 40 and loses at once;
    # Bob and Cy have not played round 2: it is cut short. Cy has the lowest total of the others.
    game = play(Rules(match="tournament", limit=40, stake=1.0), ["Ann", "Bob", "Cy"], T34, T37, T33, T9)
    assert game.loser == "Ann" and game.winners == ("Cy",)
    assert game.rounds[1].cut_short and game.rounds[1].winners == ()
    assert game.balance == {"Ann": -1.0, "Bob": -1.0, "Cy": 2.0}


def test_a_complete_round_goes_to_the_lowest_score_still_in_the_match() -> None:
    # Tournament to 45. Round 1: Ann 34, Bob 33, Cy 37. Round 2: 9 each: Cy reaches 46 and loses as the
    # round's last player; the round is complete and Ann and Bob, still in, share it (Cy's 9 ties but he lost).
    game = play(Rules(match="tournament", limit=45, stake=1.0), ["Ann", "Bob", "Cy"], T34, T33, T37, T9, T9, T9)
    second = game.rounds[1]
    assert game.loser == "Cy" and game.winners == ("Bob",)  # totals Ann 43, Bob 42
    assert not second.cut_short and second.winners == ("Ann", "Bob")
    assert second.net == {"Ann": 0.5, "Bob": 0.5, "Cy": -1.0}


def test_long_game_pays_the_stake_single_whichever_way_it_is_won() -> None:
    shut = play(Rules(match="long-game", stake=1.0), ["Ann", "Bob"], SHUT_BOX)
    assert shut.winners == ("Ann",) and shut.rounds[0].shut_box_by == "Ann"
    assert shut.balance == {"Ann": 1.0, "Bob": -1.0}  # not double: every long game ends by shutting or uncovering
    first = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(1, 2), ev.shut(2, 1), ev.throw(2, 1)]  # {1,2,3,9} shut
    uncover = [ev.throw(6, 6), ev.uncover(9, 3), ev.throw(1, 2), ev.uncover(1, 2)]
    won = play(Rules(match="long-game", stake=1.0), ["Ann", "Bob"], first, uncover)
    assert won.winners == ("Bob",) and won.balance == {"Ann": -1.0, "Bob": 1.0}


def test_end_is_refused_where_throws_are_typed_and_unverified_where_they_are_not() -> None:
    game = Game(Rules()).add_players("Ann", "Bob").throw(3, 4)
    assert game.end_refusal(typed=True) == ("the turn is not over: the throw of 7 can still shut 7, 6 + 1, 5 + 2, "
                                            "4 + 3, …")
    game.shut(7)
    assert game.end_refusal(typed=True) == ("the turn is not over: throw the dice; a throw that can shut no tiles "
                                            "ends the turn by itself")
    # With {1, 4} open the box-only report is accepted (a 12 would be dead), but it cannot be checked.
    game = Game(Rules()).add_players("Ann", "Bob")
    for dice, tiles in [((6, 6), (9, 3)), ((6, 5), (8, 2, 1)), ((6, 6), (7, 5)), ((3, 3), (6,))]:
        game.throw(*dice).shut(*tiles)
    assert game.board == (4,)
    assert game.end_refusal(typed=False) is None
    game.end_turn()
    turn = game.turns[0]
    assert turn.ended and turn.unverified_end and turn.score == 4 and game.current_player == "Bob"
    assert game.to_events()[-1].to_dict() == {"v": 1, "type": "end_turn", "unverified": True}
    assert result(game)["turns"][0]["throws"][-1]["unverified"] is True


def test_a_bare_end_turn_reads_as_unverified_and_a_false_flag_is_refused() -> None:
    game = Game.from_events(Rules(), [ev.players(["Ann"]), ev.throw(5, 6), ev.shut(9, 2), {"v": 1, "type": "end_turn"}])
    assert game.turns[0].unverified_end
    with pytest.raises(IllegalMove, match="'unverified' of an 'end_turn' event is true"):
        Game(Rules()).add_players("Ann").apply({"v": 1, "type": "end_turn", "unverified": False})


def test_a_double_with_three_dice_is_every_die_alike() -> None:
    # Long game, nine tiles, three dice. Ann: 18 shuts 9+8+1, 15 shuts 7+6+2: {3,4,5} open (12).
    # 6+6+6 = 18 admits no move but is a triple: she throws again; 6+6+5 = 17 admits none: the turn ends.
    game = Game(Rules(match="long-game", dice=3)).add_players("Ann", "Bob")
    game.throw(6, 6, 6).shut(9, 8, 1).throw(5, 5, 5).shut(7, 6, 2)
    assert game.dice_counts() == (1, 3)  # one die (not two) once 7, 8, 9 are shut
    game.throw(6, 6, 6)
    assert game.turns[0].throws[-1].extra and not game.turns[0].ended
    game.throw(6, 6, 5)
    assert game.turns[0].ended and game.turns[0].score == 12 and game.current_player == "Bob"


@pytest.mark.parametrize(("values", "message"), [
    ({"match": "round", "limit": 50}, "--limit 50 does not apply to --match round (it has no score limit)"),
    ({"match": "long-game", "limit": 50}, "--limit 50 does not apply to --match long-game"),
    ({"match": "drop-out", "scoring": "digits"}, "--scoring digits with --match drop-out needs --limit: the "
                                                 "default 45 is for sum scoring"),
    ({"match": "tournament", "scoring": "digits"}, "--scoring digits with --match tournament needs --limit: the "
                                                   "default 100 is for sum scoring"),
    ({"tiles": 13, "scoring": "digits"}, "--scoring digits is defined up to 12 tiles, not 13"),
    ({"tiles": 20, "dice": 3}, "--tiles 20 needs at least 4 dice (6 x dice must reach tile 20), not --dice 3"),
    ({"tiles": 36, "dice": 7}, "--dice 7 with --tiles 36: at most 6 dice with up to 36 tiles"),
])
def test_settings_the_rules_do_not_define_are_refused_in_one_line(values: dict, message: str) -> None:
    with pytest.raises(SettingsError) as err:
        Rules(**values)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_digits_with_a_cumulative_match_and_its_own_limit_is_played() -> None:
    rules = Rules(match="drop-out", scoring="digits", limit=2_000_000)
    game = play(rules, ["Ann", "Bob"], T34, T33)
    assert game.totals == {"Ann": 1345678, "Bob": 345678} and not game.finished


def test_a_larger_set_is_played_and_kept_in_a_game_file() -> None:
    # 30 tiles (dominoes), 5 dice: 6+6+6+6+6 = 30 shuts 30; 5+5+5+5+5 = 25 shuts 25;
    # with tiles 1..24 and 26..29 open one die is not allowed, and two dice are not a throw.
    rules = Rules(tiles=30, dice=5)
    game = play(rules, ["Ann", "Bob"], [ev.throw(6, 6, 6, 6, 6), ev.shut(30), ev.throw(5, 5, 5, 5, 5), ev.shut(25)])
    assert game.board == tuple(t for t in range(1, 30) if t != 25) and game.dice_counts() == (5,)
    with pytest.raises(IllegalMove, match=r"^a throw is one die or 5 dice, not 2$"):
        game.throw(3, 4)
    with pytest.raises(IllegalMove, match=r"^one die is not allowed: tiles 7–24 and 26–29 are still open \(one die "
                                          r"once tiles 7–30 are shut\)$"):
        game.throw(3)
    data = game_to_dict(game)
    assert data["settings"]["tiles"] == 30 and data["settings"]["dice"] == 5
    assert game_from_dict(data).board == game.board
