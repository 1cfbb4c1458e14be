"""``shutbox card``: the strategy card read back and checked against an exact calculation written here.

The reference is a plain memoised recursion over sets of open tiles for the 9-tile box (one die once
7, 8 and 9 are shut; two dice otherwise), sharing no code with ``shutbox.game.solver``.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import combinations

import pytest

from shutbox.cli.commands.kit import GENERATORS
from shutbox.game import solver
from shutbox.game.turns import turn_map, visit_probabilities
from shutbox.kit.model import Kit, Rules
from shutbox.print.card import card_data, write_card, write_kit_cards
from tests.print_support import ink, page_texts, render

TILES = tuple(range(1, 10))
ONE = {t: 1 / 6 for t in range(1, 7)}
TWO = {t: (6 - abs(t - 7)) / 36 for t in range(2, 13)}


def moves(open_tiles: frozenset[int], total: int) -> list[frozenset[int]]:
    return [frozenset(c) for k in range(1, len(open_tiles) + 1) for c in combinations(sorted(open_tiles), k)
            if sum(c) == total]


def dice_allowed(open_tiles: frozenset[int]) -> tuple[int, ...]:
    return (1, 2) if not open_tiles & {7, 8, 9} else (2,)


@cache
def value(open_tiles: frozenset[int], objective: str) -> float:
    """Best chance to shut the box (``shut``) or lowest expected final score (``score``)."""
    return max(value_with(open_tiles, d, objective) for d in dice_allowed(open_tiles)) if objective == "shut" \
        else min(value_with(open_tiles, d, objective) for d in dice_allowed(open_tiles))


@cache
def value_with(open_tiles: frozenset[int], dice: int, objective: str) -> float:
    if not open_tiles:
        return 1.0 if objective == "shut" else 0.0
    total = 0.0
    for throw, p in (ONE if dice == 1 else TWO).items():
        total += p * best_after(open_tiles, throw, objective)
    return total


def best_after(open_tiles: frozenset[int], throw: int, objective: str) -> float:
    options = [value(open_tiles - m, objective) for m in moves(open_tiles, throw)]
    if not options:
        return 0.0 if objective == "shut" else float(sum(open_tiles))
    return max(options) if objective == "shut" else min(options)


def shown(objective: str, x: float) -> str:
    return f"{x:.1%}" if objective == "shut" else f"{x:.1f}"


def parse_move(text: str) -> frozenset[int]:
    return frozenset(int(t) for t in text.split("+"))


def parse_position(words: list[str]) -> tuple[frozenset[int], list[str]]:
    if words[:2] == ["all", "but"]:
        shut = {int(t) for t in words[2].split("·")}
        return frozenset(t for t in TILES if t not in shut), words[3:]
    return frozenset(int(t) for t in words[0].split("·")), words[1:]


def check_cells(open_tiles: frozenset[int], dice: int, throws: list[int], cells: list[str], objective: str) -> None:
    """Every printed best move is legal and as good as the best move of the reference."""
    assert len(cells) == len(throws), (sorted(open_tiles), cells)
    for throw, cell in zip(throws, cells, strict=True):
        can = throw in (ONE if dice == 1 else TWO)
        legal = moves(open_tiles, throw) if can else []
        if not can:
            assert cell == "·"
        elif not legal:
            assert cell == "–"
        else:
            move = parse_move(cell)
            assert move in legal, (sorted(open_tiles), throw, cell)
            assert value(open_tiles - move, objective) == pytest.approx(best_after(open_tiles, throw, objective),
                                                                        abs=1e-12), (sorted(open_tiles), throw, cell)


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["shut", "score"])
def test_card_numbers_match_an_independent_exact_calculation(tmp_path, objective):
    out = tmp_path / "card.pdf"
    write_card(Rules(), objective, "a4", out)
    (text,) = page_texts(out)
    lines = text.splitlines()
    full = frozenset(TILES)
    # the start
    start = re.search(r"From the start: ([\d.]+)% chance to shut the box · expected final score ([\d.]+)", text)
    assert start, text
    if objective == "shut":
        assert float(start.group(1)) == pytest.approx(100 * value(full, "shut"), abs=0.005)
    else:
        assert float(start.group(2)) == pytest.approx(value(full, "score"), abs=0.005)
    # everything open
    heads = [i for i, line in enumerate(lines) if line.startswith(("throw ", "open tiles "))]
    assert len(heads) == 2
    throws = [int(w) for w in lines[heads[0]].split() if w.isdigit()]
    assert throws == list(range(2, 13))
    best = lines[heads[0] + 1].split()
    assert best[:2] == ["best", "move"] and best[2] == "2"
    assert best[3] == shown(objective, value(full, objective))
    check_cells(full, 2, throws, best[4:], objective)
    after = lines[heads[0] + 2].split()[-len(throws):]
    for cell, throw in zip(after, throws, strict=True):
        assert cell == shown(objective, best_after(full, throw, objective))
    # common positions
    pos_throws = [int(w) for w in lines[heads[1]].split() if w.isdigit()]
    rows = []
    for line in lines[heads[1] + 1:]:
        if line.startswith("Common positions:"):
            break
        rows.append(line.split())
    assert len(rows) >= 15
    seen = set()
    for words in rows:
        open_tiles, rest = parse_position(words)
        assert open_tiles not in seen and open_tiles != full
        seen.add(open_tiles)
        dice, printed, cells = int(rest[0]), rest[1], rest[2:]
        assert dice in dice_allowed(open_tiles)
        assert value_with(open_tiles, dice, objective) == pytest.approx(value(open_tiles, objective), abs=1e-12)
        assert printed == shown(objective, value(open_tiles, objective))
        check_cells(open_tiles, dice, pos_throws, cells, objective)
        assert any(len(moves(open_tiles, t)) > 1 for t in (ONE if dice == 1 else TWO)), "a row without a choice"


@pytest.mark.slow
def test_card_is_one_page_repeatable_and_used(tmp_path, cli):
    first = tmp_path / "a.pdf"
    second = tmp_path / "b.pdf"
    proc = cli("card", "--tiles", "10", "--one-die", "sum-6", "--paper", "letter", "--out", str(first), check=True)
    assert "strategy card (shut) for 10 tiles on letter paper" in proc.stdout
    cli("card", "--tiles", "10", "--one-die", "sum-6", "--paper", "letter", "--out", str(second), check=True)
    assert first.read_bytes() == second.read_bytes()
    (text,) = page_texts(first)
    assert "Rules: 10 tiles" in text and "one die: sum-6" in text
    (image,) = render(first, tmp_path)
    w, h = image.size
    assert image.size[0] < image.size[1]  # portrait
    assert ink(image, (0, h * 3 // 4, w, h)) > 0.02  # the page is used to the bottom


@pytest.mark.slow
def test_kit_cards(tmp_path):
    files = write_kit_cards(Kit(rules=Rules(tiles=12)), tmp_path)
    assert files == ["card-shut-a4.pdf", "card-shut-letter.pdf", "card-score-a4.pdf", "card-score-letter.pdf"]
    for name in files:
        (text,) = page_texts(tmp_path / name)
        assert "Rules: 12 tiles" in text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--objective", "win"], "argument --objective: invalid choice: 'win'"),
        (["--paper", "b5"], "argument --paper: invalid choice: 'b5'"),
        (["--tiles", "13", "--dice", "3"], "--tiles 13: the strategy card is computed up to 12 tiles"),
        (["--tiles", "8"], "--tiles 8"),
        (["--match", "long-game"], "unrecognized arguments: --match"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(cli, tmp_path, args, needle):
    out = tmp_path / "cards" / "card.pdf"
    proc = cli("card", *args, "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_visit_chances_account_for_every_turn_and_order_the_positions():
    """Every turn ends exactly once: the chances of stopping in each visited state (or shutting the box)
    add up to 1; and the card's positions are the most visited ones with a choice, in that order."""
    rules = Rules()
    visits = visit_probabilities(rules, "shut")
    tm = turn_map(rules, "shut")
    assert float(visits @ tm.stop) + float(visits[0]) == pytest.approx(1.0, abs=1e-12)
    assert visits[solver.mask_of(rules.tile_numbers)] == 1.0
    data = card_data(rules, "shut", 20)
    chances = [float(visits[solver.mask_of(p)]) for p in data.positions]
    assert chances == sorted(chances, reverse=True) and chances[-1] > 0


@pytest.mark.parametrize("dice", [2, 3])
@pytest.mark.parametrize("objective", ["shut", "score"])
def test_visit_chances_with_more_dice_are_the_solvers(dice, objective):
    """Walking the card's visit chances gives the solver's own value of the full box, whatever the dice: the
    chance of reaching the shut box is the solver's chance to shut it, and the scores the turns stop on
    average out to its expected score (the walk throws the solver's dice and makes its moves, ties and
    all). ``--dice 3`` once walked two dice."""
    rules = Rules(tiles=9, dice=dice)
    visits = visit_probabilities(rules, objective)
    tm = turn_map(rules, objective)
    p_shut, expected = solver.solve(rules, objective).state(rules.tile_numbers)
    scores = solver.scores(rules.tiles, rules.scoring)
    assert float(visits[0]) == pytest.approx(p_shut, abs=1e-12)
    assert float(visits @ (tm.stop * scores)) == pytest.approx(expected, abs=1e-9)
    assert set(tm.dice[1:]) == {1, dice}


def test_kit_builds_the_card():
    assert ("card", "shutbox.print.card:write_kit_cards") in GENERATORS
