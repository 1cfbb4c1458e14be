"""The solver against odds worked out by hand, an exact reference, and simulated games.

Notation in the comments: {1,2} is the set of open tiles; P(t) the chance of throwing t:
two dice 1/36, 2/36, ... 6/36, ... 1/36 for 2..12; one die 1/6 for each of 1..6.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox.game import events as ev
from shutbox.game.policy import OBJECTIVES, STRATEGIES
from shutbox.game.replay import Game
from shutbox.game.rules import legal_moves
from shutbox.game.solver import mask_of, rank_moves, scores, solve
from shutbox.kit.model import MAX_TILES_CHOICES, ONE_DIE_RULES, SCORINGS, Rules
from tests.solver_reference import close, reference

ALL3, ALL4 = 0b111, 0b1111


def test_three_tiles_two_dice_by_hand() -> None:
    # Two dice never throw 1, so {1} is lost: 0.  {2}: throw 2, 1/36.  {3}: throw 3, 2/36.
    # {1,2}: 3 shuts both (2/36); a 2 leaves {1} (0)             -> 2/36
    # {1,3}: 4 shuts both (3/36); a 3 leaves {1}                  -> 3/36
    # {2,3}: 5 (4/36); 2 -> {3} (1/36 * 2/36); 3 -> {2} (2/36 * 1/36) -> 148/1296
    # {1,2,3}: 2 -> {1,3}: 1/36*3/36;  3 -> {1,2} or {3}, both 2/36: 2/36*2/36;
    #          4 -> {2}: 3/36*1/36;  5 -> {1}: 0;  6 shuts all: 5/36      -> (3+4+3+180)/1296 = 190/1296
    rules = Rules(tiles=3, one_die="never")
    shut = solve(rules, "shut")
    assert close(shut.p_shut[ALL3], Fraction(190, 1296))
    assert close(shut.p_shut[0b110], Fraction(148, 1296))
    # Expected final score (sum): {1}: 1.  {2}: 2*35/36 = 70/36.  {1,2}: 1/36*1 + 33/36*3 = 100/36.
    # {3}: 3*34/36 = 102/36.  {1,3}: 2/36*1 + 31/36*4 = 126/36.
    # {1,2,3}: 2 -> {1,3} 126/36; 3 -> {1,2} 100/36 (better than {3}, 102/36); 4 -> {2} 70/36;
    #   5 -> {1} 1; 6 -> 0; 7..12 (21/36) score 6:
    #   (1*126 + 2*100 + 3*70 + 4*36)/1296 + 21/36*6 = 680/1296 + 4536/1296 = 5216/1296
    assert close(solve(rules, "score").expected_score[ALL3], Fraction(5216, 1296))
    # Under `shut` the 3 is a tie on the chance (2/36 either way), broken by the lower expected score.
    assert close(shut.expected_score[ALL3], Fraction(5216, 1296))
    assert close(solve(rules, "score").p_shut[ALL3], Fraction(190, 1296))
    # Greedy-largest and fewest-tiles both shut the 3 on a 3, as the optimum does; random takes
    # each half the time: 3 -> (100/36 + 102/36)/2 = 101/36, so 680 + 2*(101-100) = 682.
    for name in ("greedy-largest", "fewest-tiles"):
        assert close(solve(rules, strategy=name).expected_score[ALL3], Fraction(5216, 1296))
    rnd = solve(rules, strategy="random")
    assert close(rnd.expected_score[ALL3], Fraction(682 + 4536, 1296))
    assert close(rnd.p_shut[ALL3], Fraction(190, 1296))


def test_three_tiles_at_most_two_per_throw_by_hand() -> None:
    # As above but a 6 can no longer shut 1+2+3: 2 -> {1,3} 3/36; 3 -> 2/36; 4 -> {2} 1/36; 5 -> 0.
    # (1*3 + 2*2 + 3*1)/1296 = 10/1296
    assert close(solve(Rules(tiles=3, one_die="never", max_tiles_per_throw=2)).p_shut[ALL3], Fraction(10, 1296))


def test_three_tiles_with_one_die_by_hand() -> None:
    # No tile is 7 or more, so high-shut allows one die always.
    # One tile: one die hits it 1/6 (two dice: at most 2/36): 1/6.
    # Two tiles {a,b}: one die: a -> {b} 1/6, b -> {a} 1/6, a+b <= 6 shuts both 1/6: 2/36 + 6/36 = 2/9.
    #   (two dice for {1,2}: 1/36*0... at most 13/216 < 48/216, so one die.)
    # {1,2,3}, one die: 1,2 -> a pair 2/9; 3 -> a pair 2/9 (or {3}, 1/6); 4,5 -> a single 1/6; 6 -> 1:
    #   1/6 * (3*2/9 + 2*1/6 + 1) = 1/3.
    # {1,2,3}, two dice: 2 -> 2/9; 3 -> 2/9; 4 -> 1/6; 5 -> 1/6; 6 -> 1:
    #   (1*2/9 + 2*2/9 + 3/6 + 4/6 + 5)/36 = 41/216 < 1/3, so one die.
    high = solve(Rules(tiles=3, one_die="high-shut"))
    assert close(high.p_shut[ALL3], Fraction(1, 3)) and high.one_die[ALL3]
    assert close(high.p_shut[0b011], Fraction(2, 9))
    # sum-6: 1+2+3 = 6 allows one die: 1/3.  sum-5: {1,2,3} must use two dice (41/216), the rest as above.
    assert close(solve(Rules(tiles=3, one_die="sum-6")).p_shut[ALL3], Fraction(1, 3))
    assert close(solve(Rules(tiles=3, one_die="sum-5")).p_shut[ALL3], Fraction(41, 216))


def test_four_tiles_two_dice_by_hand() -> None:
    # Singles {1} 0, {2} 1/36, {3} 2/36, {4} 3/36 (in 1296ths: 0, 36, 72, 108).
    # Pairs: {1,2} 2/36, {1,3} 3/36, {1,4} 4/36, {2,3} 148/1296, {2,4} (3+3+180)/1296 = 186/1296,
    #   {3,4}: 3 -> {4}, 4 -> {3}, 7 shuts both: (2*3 + 3*2)/1296 + 216/1296 = 228/1296.
    # Triples (in 1296ths): {1,2,3} 190; {1,2,4}: 2->{1,4} 4, 3->{4} 3, 4->{1,2} 2, 5->{2} 1, 7: 216
    #   -> (4+6+6+4)+216 = 236; {1,3,4}: 3->{1,4} 4, 4->{1,3}/{4} 3, 5->{3} 2, 8: 5/36 -> 25+180 = 205;
    #   {2,3,4} in 46656ths: 2->228, 3->186, 4->148, 5->{4} 108, 6->{3} 72, 7->{2} 36, 9: 4/36
    #   -> 228 + 2*186 + 3*148 + 4*108 + 5*72 + 6*36 + 5184 = 7236.
    # {1,2,3,4}: 2 -> {1,3,4} 205; 3 -> {1,2,4} 236; 4 -> {1,2,3} 190; 5 -> {2,3} 148;
    #   6 -> {1,3} or {4}: 108; 7 -> {1,2} or {3}: 72; 8 -> {2} 36; 9 -> {1} 0; 10 shuts all: 3/36.
    #   (205 + 2*236 + 3*190 + 4*148 + 5*108 + 6*72 + 5*36)/46656 + 3888/46656 = 6879/46656
    four = solve(Rules(tiles=4, one_die="never"))
    assert close(four.p_shut[0b1110], Fraction(7236, 46656))
    assert close(four.p_shut[ALL4], Fraction(6879, 46656))


def test_published_nine_tile_odds_are_matched() -> None:
    # RULES.md quotes about 7.1% (two dice always) and about 9.8% (one die once the rest add up to 6).
    assert 0.0705 < solve(Rules(one_die="never")).p_shut[-1] < 0.0715
    assert 0.0975 < solve(Rules(one_die="sum-6")).p_shut[-1] < 0.0985


small_setups = st.tuples(
    st.integers(1, 7), st.sampled_from(ONE_DIE_RULES), st.booleans(), st.sampled_from(MAX_TILES_CHOICES),
    st.sampled_from(SCORINGS),
)


@settings(max_examples=80, deadline=None)
@given(setup=small_setups, objective=st.sampled_from(OBJECTIVES), strategy=st.sampled_from(STRATEGIES),
       data=st.data())
def test_solver_equals_exact_reference(setup: tuple, objective: str, strategy: str, data: st.DataObject) -> None:
    rules = Rules(tiles=setup[0], one_die=setup[1], one_die_forced=setup[2], max_tiles_per_throw=setup[3],
                  scoring=setup[4])
    solution = solve(rules, objective, strategy)
    open_tiles = data.draw(st.sets(st.sampled_from(rules.tile_numbers)), label="open")
    p, e = reference(rules, objective if strategy == "optimal" else "shut", strategy, frozenset(open_tiles))
    m = mask_of(sorted(open_tiles))
    assert close(solution.p_shut[m], p)
    assert close(solution.expected_score[m], e)


full_rules = st.builds(
    Rules, tiles=st.sampled_from((9, 10, 12)), one_die=st.sampled_from(ONE_DIE_RULES),
    one_die_forced=st.booleans(), max_tiles_per_throw=st.sampled_from(MAX_TILES_CHOICES),
    scoring=st.sampled_from(SCORINGS),
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(rules=full_rules)
def test_values_in_range_and_optimal_never_worse_than_a_named_strategy(rules: Rules) -> None:
    best_shut = solve(rules, "shut")
    best_score = solve(rules, "score")
    tops = scores(rules.tiles, rules.scoring)
    eps = 1e-9
    for solution in [best_shut, best_score] + [solve(rules, strategy=s) for s in STRATEGIES[1:]]:
        assert np.all(solution.p_shut >= 0) and np.all(solution.p_shut <= 1 + eps)
        assert np.all(solution.expected_score >= 0)
        assert np.all(solution.expected_score <= tops * (1 + eps))  # tiles only ever close
        assert solution.p_shut[0] == 1 and solution.expected_score[0] == 0
        assert np.all(best_shut.p_shut >= solution.p_shut - eps)
        assert np.all(best_score.expected_score <= solution.expected_score * (1 + eps) + eps)


@pytest.mark.slow
def test_exact_values_agree_with_simulated_games() -> None:
    # Play 8000 one-player games through the rules engine, choosing dice and moves as the solver's
    # optimal score policy says; the observed mean score and shut rate must match the exact values.
    rules = Rules(one_die="sum-6")
    solution = solve(rules, "score")
    rng = random.Random(20240607)
    games, shut, finals = 8000, 0, []
    for _ in range(games):
        game = Game(rules).add_players("Solo")
        while not game.finished:
            open_tiles = game.board
            counts = game.dice_counts()
            one = counts == (1,) or (1 in counts and bool(solution.one_die[mask_of(open_tiles)]))
            dice = (rng.randint(1, 6),) if one else (rng.randint(1, 6), rng.randint(1, 6))
            game.apply(ev.throw(*dice))
            if game.pending is not None:
                game.apply(ev.shut(*rank_moves(solution, open_tiles, sum(dice))[0].tiles))
        final = game.turns[0]
        shut += final.shut_box
        finals.append(final.score)
    p, e = solution.state(rules.tile_numbers)
    p_sd = (p * (1 - p) / games) ** 0.5
    assert abs(shut / games - p) < 4 * p_sd
    mean = sum(finals) / games
    sd = (sum((x - mean) ** 2 for x in finals) / (games - 1)) ** 0.5
    assert abs(mean - e) < 4 * sd / games**0.5


def test_advice_ranks_moves_best_first() -> None:
    solution = solve(Rules(), "shut")
    ranked = rank_moves(solution, Rules().tile_numbers, 8)
    assert {m.tiles for m in ranked} == set(legal_moves(Rules(), Rules().tile_numbers, 8))
    values = [m.p_shut for m in ranked]
    assert values == sorted(values, reverse=True)
    assert ranked[0].tiles == (8,)


def test_solutions_are_cached_and_read_only() -> None:
    a = solve(Rules(tiles=12), "score")
    assert solve(Rules(tiles=12), "score") is a
    with pytest.raises(ValueError):
        a.p_shut[0] = 0.5
    with pytest.raises(ValueError, match="objective"):
        solve(Rules(), "win")
