"""The review's values against oracles that do not use the project's solver or rules engine.

- hand-worked positions at the end of a turn (tiles 1–3 left, one die allowed), worked out on paper below;
- a small exact DP in fractions, written here from the rule text (RULES.md), for 9-tile positions.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations

import pytest

from shutbox.game import solver
from shutbox.game.replay import Game
from shutbox.game.review import review_game
from shutbox.kit.model import Rules

# ---------------------------------------------------------------------------- the fractions oracle
TWO_DICE = {t: Fraction(sum(a + b == t for a in range(1, 7) for b in range(1, 7)), 36) for t in range(2, 13)}
ONE_DIE = {t: Fraction(1, 6) for t in range(1, 7)}


def moves(open_tiles: frozenset[int], throw: int) -> list[frozenset[int]]:
    """Every set of open tiles adding up to the throw."""
    tiles = sorted(open_tiles)
    return [frozenset(c) for k in range(1, len(tiles) + 1) for c in combinations(tiles, k) if sum(c) == throw]


@cache
def best_value(open_tiles: frozenset[int], objective: str) -> Fraction:
    """With best play: the chance to shut the box (``shut``), or the expected final score, the sum of the open
    tiles (``score``). One die may be chosen once 7, 8 and 9 are shut (high-shut)."""
    if not open_tiles:
        return Fraction(1 if objective == "shut" else 0)
    pick = max if objective == "shut" else min
    options = [with_dice(open_tiles, TWO_DICE, objective)]
    if not any(t >= 7 for t in open_tiles):
        options.append(with_dice(open_tiles, ONE_DIE, objective))
    return pick(options)


def with_dice(open_tiles: frozenset[int], chances: dict[int, Fraction], objective: str = "shut") -> Fraction:
    """The value of throwing with ``chances``, the best move taken after each throw."""
    pick = max if objective == "shut" else min
    stuck = Fraction(0) if objective == "shut" else Fraction(sum(open_tiles))  # no move: the turn ends
    return sum((p * pick((best_value(open_tiles - m, objective) for m in moves(open_tiles, t)), default=stuck)
                for t, p in chances.items()), Fraction(0))


def p_shut(open_tiles: frozenset[int]) -> Fraction:
    return best_value(open_tiles, "shut")


def expected_score(open_tiles: frozenset[int]) -> Fraction:
    return best_value(open_tiles, "score")


FULL = frozenset(range(1, 10))


def test_the_oracle_agrees_with_the_published_start_value():
    # RULES.md: about 9.8% with one die allowed at the end (the solver's start value, to 4 places).
    assert float(p_shut(FULL)) == pytest.approx(0.0976, abs=5e-5)


def test_shutting_8_alone_keeps_11_877_percent_against_5_766_for_5_plus_3():
    assert float(p_shut(FULL - {8})) == pytest.approx(0.11877, abs=5e-6)
    assert float(p_shut(FULL - {5, 3})) == pytest.approx(0.05766, abs=5e-6)
    game = Game(Rules()).add_players("Ann").throw(5, 3).shut(3, 5)
    (d,) = review_game(game, solver.solve, "shut").decisions
    assert (d.played, d.best, d.options) == ((3, 5), (8,), 6)
    assert d.value_played == pytest.approx(float(p_shut(FULL - {5, 3})), abs=1e-13)
    assert d.value_best == pytest.approx(float(p_shut(FULL - {8})), abs=1e-13)
    assert d.loss == pytest.approx(float(p_shut(FULL - {8}) - p_shut(FULL - {5, 3})), abs=1e-13)
    assert d.mistake


@pytest.mark.parametrize(("shut_first", "throw", "played"), [
    ((9,), (3, 4), (7,)),  # 1-8 open, throw 7: 7 is not the only candidate
    ((9, 8), (6, 6), (7, 5)),  # 1-7 open, throw 12
    ((9, 8, 7), (2, 3), (4, 1)),  # 1-6 open: one die was allowed, two thrown
    ((6, 3), (5, 5), (9, 1)),
])
def test_every_move_value_matches_the_fractions_dp_on_9_tiles(shut_first, throw, played):
    game = Game(Rules()).add_players("Ann")
    for tile in shut_first:  # one throw each, its pips adding up to the tile
        game.throw(*((tile - 6, 6) if tile > 6 else (tile - 1, 1))).shut(tile)
    game.throw(*throw).shut(*played)
    review = review_game(game, solver.solve, "shut")
    mine = [d for d in review.decisions if d.kind == "move" and d.throw == sum(throw)][-1]
    open_before = FULL - set(shut_first)
    values = {m: p_shut(open_before - m) for m in moves(open_before, sum(throw))}
    best = max(values.values())
    assert mine.value_played == pytest.approx(float(values[frozenset(played)]), abs=1e-13)
    assert mine.value_best == pytest.approx(float(best), abs=1e-13)
    assert mine.loss == pytest.approx(float(best - values[frozenset(played)]), abs=1e-13)
    assert mine.options == len(values)
    assert (mine.loss == 0) == (values[frozenset(played)] == best)


def test_expected_scores_match_the_fractions_dp():
    game = Game(Rules()).add_players("Ann").throw(6, 6).shut(7, 5).throw(4, 5).shut(6, 3)
    review = review_game(game, solver.solve, "score")
    for d, open_before in zip(review.decisions, [FULL, FULL - {7, 5}], strict=True):
        assert d.kind == "move" and d.throw is not None and isinstance(d.played, tuple)
        values = {m: expected_score(open_before - m) for m in moves(open_before, d.throw)}
        played = values[frozenset(d.played)]
        assert d.value_played == pytest.approx(float(played), abs=1e-12)
        assert d.value_best == pytest.approx(float(min(values.values())), abs=1e-12)
        assert d.loss == pytest.approx(float(played - min(values.values())), abs=1e-12)
    assert float(expected_score(FULL)) == pytest.approx(solver.solve(Rules(), "score").state(tuple(FULL))[1],
                                                        abs=1e-12)


def test_a_dice_choice_matches_the_fractions_dp():
    # 7, 8, 9 shut, so one die is allowed; the player threw two dice with 1-6 open.
    game = Game(Rules()).add_players("Ann").throw(4, 5).shut(9).throw(4, 4).shut(8).throw(3, 4).shut(7)
    game.throw(2, 3)
    dice = [d for d in review_game(game, solver.solve, "shut").decisions if d.kind == "dice"]
    assert len(dice) == 1
    d = dice[0]
    open_now = frozenset(range(1, 7))
    one, two = with_dice(open_now, ONE_DIE), with_dice(open_now, TWO_DICE)
    assert d.played == 2 and d.value_played == pytest.approx(float(two), abs=1e-13)
    assert d.value_best == pytest.approx(float(max(one, two)), abs=1e-13)
    assert d.best == (1 if one > two else 2)


# ---------------------------------------------------------------------------- hand-worked positions
# With 7, 8, 9 shut one die may be thrown. Left {1}: one die shuts it with 1/6, two dice never.
# Left {2}: one die 1/6, two dice 1/36. Left {3}: one die 1/6, two dice 2/36.
# Left {1, 2}: one die: a 3 shuts both (1/6), a 1 leaves {2} (then 1/6), a 2 leaves {1} (then 1/6):
#   1/6 + 1/36 + 1/36 = 2/9. Two dice: a 3 (2/36) shuts both, a 2 (1/36) leaves {1}: 2/36 + 1/216 = 13/216.
#   So {1, 2} is worth 2/9.
# Left {1, 2, 3}, throw 3: shutting 3 leaves {1, 2} = 2/9; shutting 1 + 2 leaves {3} = 1/6; loss 1/18.
# Expected score (sum): {3} with one die 5/6 * 3 = 2.5; with two dice 34/36 * 3 = 17/6; loss 1/3.
def _down_to_1_2_3() -> Game:
    game = Game(Rules()).add_players("Ann")
    for dice, tile in [((4, 5), 9), ((4, 4), 8), ((3, 4), 7), ((3, 3), 6), ((2, 3), 5), ((2, 2), 4)]:
        game.throw(*dice).shut(tile)
    return game


def test_hand_worked_end_of_turn_chances():
    game = _down_to_1_2_3().throw(3).shut(1, 2).throw(1, 1)  # one die 3: shut 1 + 2; then two dice with {3}
    assert game.finished
    review = review_game(game, solver.solve, "shut")
    move = next(d for d in review.decisions if d.kind == "move" and d.in_play == (1, 2, 3))
    assert (move.played, move.best) == ((1, 2), (3,))
    assert move.value_played == pytest.approx(1 / 6, abs=1e-14)
    assert move.value_best == pytest.approx(2 / 9, abs=1e-14)
    assert move.loss == pytest.approx(1 / 18, abs=1e-14)
    dice = next(d for d in review.decisions if d.kind == "dice" and d.in_play == (3,))
    assert (dice.played, dice.best) == (2, 1)
    assert dice.value_played == pytest.approx(2 / 36, abs=1e-14)
    assert dice.value_best == pytest.approx(1 / 6, abs=1e-14)
    assert dice.loss == pytest.approx(1 / 6 - 2 / 36, abs=1e-14)
    ann = review.players["Ann"]
    assert (ann.inaccuracies, ann.mistakes, ann.blunders) == (0, 0, 2)  # 5.6 and 11.1 points: blunders
    assert (move.grade, dice.grade) == ("blunder", "blunder")
    # Accuracy: the share of the best chance kept — 3/4 and 1/3 here, every other decision a best one.
    assert (move.kept, dice.kept) == (pytest.approx(0.75), pytest.approx(1 / 3))
    assert (move.stake, dice.stake) == (pytest.approx(2 / 9), pytest.approx(1 / 6))
    # The game's accuracy weighs each decision by what was at stake: the chances kept over the best chances.
    decisions = review.decisions
    kept = sum(d.value_played for d in decisions)
    assert ann.accuracy == pytest.approx(100 * kept / sum(d.value_best for d in decisions))
    assert ann.accuracy == pytest.approx(100 - 100 * ann.loss / sum(d.value_best for d in decisions))


def test_hand_worked_expected_score_of_the_last_tile():
    game = _down_to_1_2_3().throw(3).shut(1, 2).throw(1, 1)
    review = review_game(game, solver.solve, "score")
    dice = next(d for d in review.decisions if d.kind == "dice" and d.in_play == (3,))
    assert dice.value_played == pytest.approx(17 / 6, abs=1e-12)
    assert dice.value_best == pytest.approx(2.5, abs=1e-12)
    assert dice.loss == pytest.approx(1 / 3, abs=1e-12)
    assert not dice.mistake  # 1/3 point is under the 0.5 threshold
    move = next(d for d in review.decisions if d.kind == "move" and d.in_play == (1, 2, 3))
    assert move.loss >= 0


def test_an_uncovering_turn_is_measured_on_the_shut_tiles():
    # Ann shuts 1, 2 and 3, then a dead throw (a dead double first: the long game's extra throw).
    game = Game(Rules(match="long-game")).add_players("Ann", "Bob")
    game.throw(1, 2).shut(1, 2).throw(1, 2).shut(3).throw(1, 1).throw(2, 1)
    assert game.phase == "uncover" and game.current_player == "Bob"
    game.throw(3).uncover(1, 2)  # the same mistake, uncovering: {3} is left to uncover instead of {1, 2}
    review = review_game(game, solver.solve)
    assert review.objective == "shut"
    bob = [d for d in review.decisions if d.player == "Bob"]
    move = next(d for d in bob if d.kind == "move")
    assert move.phase == "uncover" and move.in_play == (1, 2, 3) and move.open == (4, 5, 6, 7, 8, 9)
    assert move.value_played == pytest.approx(1 / 6, abs=1e-14)
    assert move.value_best == pytest.approx(2 / 9, abs=1e-14)
    assert any("uncovering" in n for n in review.notes)
