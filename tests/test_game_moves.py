"""The rules of one throw: legal moves, the one-die rules, scoring and the reasons for refusals."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox.game.rules import (
    IllegalMove,
    check_dice,
    check_move,
    check_total,
    dice_counts,
    legal_moves,
    one_die_allowed,
    score,
)
from shutbox.kit.model import BOX_TILE_COUNTS, MAX_TILES_CHOICES, ONE_DIE_RULES, SCORINGS, Rules

NINE = Rules()


def test_moves_for_eight_with_every_tile_open() -> None:
    # RULES.md: a throw of 8 may shut {8}, {7,1}, {6,2}, {5,3}, {5,2,1} or {4,3,1}.
    moves = legal_moves(NINE, NINE.tile_numbers, 8)
    assert set(moves) == {(8,), (1, 7), (2, 6), (3, 5), (1, 2, 5), (1, 3, 4)}
    assert moves[0] == (8,)  # largest tiles first


def test_max_tiles_per_throw_drops_three_tile_moves() -> None:
    two = Rules(max_tiles_per_throw=2)
    assert set(legal_moves(two, two.tile_numbers, 8)) == {(8,), (1, 7), (2, 6), (3, 5)}
    with pytest.raises(IllegalMove, match=r"at most 2 tiles .* not 3 \(5 \+ 2 \+ 1\)"):
        check_move(two, two.tile_numbers, 8, [5, 2, 1])


def test_no_move_means_the_turn_is_over() -> None:
    assert legal_moves(NINE, (4, 5), 3) == ()
    assert legal_moves(NINE, (1, 5, 6, 8), 2) == ()


@pytest.mark.parametrize(
    ("rule", "open_tiles", "allowed"),
    [
        ("high-shut", (1, 2, 3, 4, 5, 6), True),
        ("high-shut", (1, 7), False),
        ("high-shut", (9,), False),
        ("sum-6", (1, 5), True),  # 6 or less
        ("sum-6", (1, 6), False),
        ("sum-5", (1, 4), True),  # less than 6
        ("sum-5", (1, 5), False),
        ("never", (1,), False),
    ],
)
def test_one_die_rules(rule: str, open_tiles: tuple[int, ...], allowed: bool) -> None:
    assert one_die_allowed(Rules(one_die=rule), open_tiles) is allowed


def test_high_shut_counts_every_tile_from_seven_on_a_twelve_tile_box() -> None:
    twelve = Rules(tiles=12)
    assert not one_die_allowed(twelve, (1, 12))
    assert one_die_allowed(twelve, (1, 2, 6))
    with pytest.raises(IllegalMove, match=r"^one die is not allowed: tile 12 is still open \(one die once tiles "
                                          r"7–12 are shut\)$"):
        check_dice(twelve, (1, 12), [3])


def test_shut_789_is_the_pub_rules_literal_reading_whatever_the_tile_count() -> None:
    for tiles in (9, 10, 12, 36):
        rules = Rules(tiles=tiles, one_die="shut-789")
        assert one_die_allowed(rules, (1, 2, 6, *range(10, tiles + 1)))  # 10 and up may still be open
        assert not one_die_allowed(rules, (1, 8))
    with pytest.raises(IllegalMove, match=r"^one die is not allowed: tiles 8 and 9 are still open \(one die once "
                                          r"tiles 7, 8 and 9 are shut\)$"):
        check_dice(Rules(tiles=12, one_die="shut-789"), (1, 8, 9, 12), [3])
    # high-shut on the same board: every tile from 7 up, so 12 blocks it too.
    assert not one_die_allowed(Rules(tiles=12), (1, 2, 12))
    assert one_die_allowed(Rules(tiles=12, one_die="shut-789"), (1, 2, 12))


def test_uncovering_messages_say_what_is_on_the_board() -> None:
    # The uncovering player's tiles in play are the shut ones: the message says "still shut".
    with pytest.raises(IllegalMove, match=r"^one die is not allowed: tile 9 is still shut \(one die once tiles 7, 8 "
                                          r"and 9 are open again\)$"):
        check_dice(NINE, (1, 9), [3], left="shut")
    with pytest.raises(IllegalMove, match=r"the shut tiles add up to 6 or less \(they add up to 10\)"):
        check_dice(Rules(one_die="sum-6"), (1, 9), [3], left="shut")


def test_more_dice_mean_one_die_or_all_of_them() -> None:
    rules = Rules(tiles=18, dice=6)
    assert dice_counts(rules, rules.tile_numbers) == (6,)
    assert dice_counts(rules, (1, 2, 6)) == (1, 6)  # one die, not one die fewer
    assert dice_counts(Rules(tiles=18, dice=6, one_die_forced=True), (1, 2)) == (1,)
    assert check_dice(rules, rules.tile_numbers, [6, 6, 6, 6, 6, 6]) == 36
    with pytest.raises(IllegalMove, match=r"^a throw is one die or 6 dice, not 2$"):
        check_dice(rules, rules.tile_numbers, [3, 4])
    with pytest.raises(IllegalMove, match=r"impossible with 6 dice \(6 to 36\)"):
        check_total(rules, rules.tile_numbers, 37)
    check_total(rules, (1, 2), 3)  # one die allowed: 3 is a one-die throw
    with pytest.raises(IllegalMove, match=r"one die shows 1 to 6, 6 dice throw 6 to 36"):
        check_total(rules, (1, 2), 37)
    assert legal_moves(Rules(tiles=54, dice=9), tuple(range(1, 55)), 54)[0] == (54,)
    # every partition of 54 into distinct parts is a move: q(54) = 5718 (OEIS A000009)
    assert len(legal_moves(Rules(tiles=54, dice=9), tuple(range(1, 55)), 54)) == 5718


def test_dice_counts_choice_and_forced() -> None:
    assert dice_counts(NINE, NINE.tile_numbers) == (2,)
    assert dice_counts(NINE, (1, 2)) == (1, 2)
    assert dice_counts(Rules(one_die_forced=True), (1, 2)) == (1,)
    with pytest.raises(IllegalMove, match="two dice are not allowed"):
        check_dice(Rules(one_die_forced=True), (1, 2), [1, 2])


def test_refusals_read_like_a_player_would_say_them() -> None:
    with pytest.raises(IllegalMove, match=r"^6 \+ 4 = 10, the throw was 7$"):
        check_move(NINE, NINE.tile_numbers, 7, [4, 6])
    with pytest.raises(IllegalMove, match=r"^one die is not allowed: tiles 7, 8 and 9 are still open \(one die once "
                                          r"tiles 7, 8 and 9 are shut\)$"):
        check_dice(NINE, NINE.tile_numbers, [4])
    with pytest.raises(IllegalMove, match="tile 3 is already shut"):
        check_move(NINE, (1, 2, 4), 3, [3])
    with pytest.raises(IllegalMove, match=r"tile 10 is not on the box \(tiles 1 to 9\)"):
        check_move(NINE, NINE.tile_numbers, 10, [10])
    with pytest.raises(IllegalMove, match="a die shows 1 to 6, not 7"):
        check_dice(NINE, NINE.tile_numbers, [7, 1])
    with pytest.raises(IllegalMove, match="impossible with two dice"):
        check_total(NINE, NINE.tile_numbers, 13)
    with pytest.raises(IllegalMove, match="open tiles add up to 6 or less .they add up to 7"):
        check_dice(Rules(one_die="sum-6"), (3, 4), [2])


@pytest.mark.parametrize(
    ("tiles", "open_tiles", "expected"),
    [(9, (1, 5, 9), 159), (10, (1, 5, 10), 1510), (12, (2, 11, 12), 21112), (9, (), 0)],
)
def test_digits_scoring_reads_the_labels_left_to_right(tiles: int, open_tiles: tuple[int, ...],
                                                        expected: int) -> None:
    assert score(Rules(tiles=tiles, scoring="digits"), open_tiles) == expected


def test_sum_scoring() -> None:
    assert score(NINE, (1, 5, 9)) == 15
    assert score(NINE, ()) == 0


rules_st = st.builds(
    Rules,
    tiles=st.sampled_from(BOX_TILE_COUNTS),
    one_die=st.sampled_from(ONE_DIE_RULES),
    one_die_forced=st.booleans(),
    max_tiles_per_throw=st.sampled_from(MAX_TILES_CHOICES),
    scoring=st.sampled_from(SCORINGS),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(rules=rules_st, data=st.data())
def test_every_legal_move_uses_open_tiles_and_adds_up(rules: Rules, data: st.DataObject) -> None:
    open_tiles = data.draw(st.sets(st.sampled_from(rules.tile_numbers)), label="open")
    throw = data.draw(st.integers(1, 12), label="throw")
    moves = legal_moves(rules, open_tiles, throw)
    for move in moves:
        assert set(move) <= open_tiles
        assert sum(move) == throw
        assert len(set(move)) == len(move)
        if rules.max_tiles_per_throw is not None:
            assert len(move) <= rules.max_tiles_per_throw
        assert check_move(rules, open_tiles, throw, list(move)) == move
    # ... and nothing is missed: brute force over every subset of the open tiles.
    most = rules.max_tiles_per_throw or len(open_tiles)
    brute = {c for k in range(1, most + 1) for c in combinations(sorted(open_tiles), k) if sum(c) == throw}
    assert set(moves) == brute


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(rules=rules_st, data=st.data())
def test_scores_stay_in_range(rules: Rules, data: st.DataObject) -> None:
    open_tiles = data.draw(st.sets(st.sampled_from(rules.tile_numbers)), label="open")
    value = score(rules, open_tiles)
    assert 0 <= value <= score(rules, rules.tile_numbers)
    assert (value == 0) == (not open_tiles)


@settings(max_examples=60, deadline=None)
@given(tiles=st.integers(13, 54), most=st.sampled_from(MAX_TILES_CHOICES), data=st.data())
def test_larger_sets_list_every_move_largest_tiles_first(tiles: int, most: int | None, data: st.DataObject) -> None:
    rules = Rules(tiles=tiles, max_tiles_per_throw=most)  # the fewest dice that reach the highest tile
    open_tiles = data.draw(st.sets(st.sampled_from(rules.tile_numbers), max_size=14), label="open")
    throw = data.draw(st.integers(1, 6 * rules.dice), label="throw")
    moves = legal_moves(rules, open_tiles, throw)
    limit = most or len(open_tiles)
    brute = {c for k in range(1, limit + 1) for c in combinations(sorted(open_tiles), k) if sum(c) == throw}
    assert set(moves) == brute and len(moves) == len(brute)
    assert list(moves) == sorted(moves, key=lambda m: tuple(-t for t in sorted(m, reverse=True)))


def test_uncovering_refusals_are_worded_for_uncovering() -> None:
    two = Rules(max_tiles_per_throw=2)
    with pytest.raises(IllegalMove, match=r"^at most 2 tiles may be uncovered with one throw, not 3 \(5 \+ 2 \+ 1\)$"):
        check_move(two, (1, 2, 5, 9), 8, [5, 2, 1], "uncover", "open")
    with pytest.raises(IllegalMove, match=r"^tile 3 is already open$"):
        check_move(two, (1, 2, 5, 9), 3, [3], "uncover", "open")
