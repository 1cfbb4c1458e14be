"""``shutbox solve`` and ``shutbox advise`` as a user runs them."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from shutbox.game.solver import solve
from shutbox.kit.model import Rules
from tests.conftest import first_fast


def test_solve_json_has_the_contract_fields(cli) -> None:
    proc = cli("solve", "--one-die", "never", "--objective", "shut", "--json", check=True)
    out = json.loads(proc.stdout)
    expected = solve(Rules(one_die="never"), "shut")
    assert out["p_shut"] == pytest.approx(float(expected.p_shut[-1]), abs=1e-15)
    assert out["expected_score"] == pytest.approx(float(expected.expected_score[-1]), abs=1e-12)
    assert out["state"] == list(range(1, 10)) and out["strategy"] == "optimal"


def test_solve_a_state_under_a_named_strategy(cli) -> None:
    proc = cli("solve", "--state", "1 2 4", "--strategy", "greedy-largest", "--objective", "score",
               "--one-die", "never", "--json", check=True)
    out = json.loads(proc.stdout)
    greedy = solve(Rules(one_die="never"), strategy="greedy-largest")
    assert out["state"] == [1, 2, 4] and out["strategy"] == "greedy-largest"
    assert (out["p_shut"], out["expected_score"]) == pytest.approx(greedy.state((1, 2, 4)))
    text = cli("solve", "--state", "1 2 4", "--strategy", "greedy-largest", "--one-die", "never", check=True).stdout
    assert "chance to shut box" in text and "greedy-largest" in text


def test_solve_with_twelve_tiles_and_digits(cli) -> None:
    out = json.loads(cli("solve", "--tiles", "12", "--scoring", "digits", "--objective", "score", "--json",
                         check=True).stdout)
    assert out["settings"]["tiles"] == 12 and out["expected_score"] > 0


def test_solve_an_already_shut_box(cli) -> None:
    out = json.loads(cli("solve", "--state", "", "--json", check=True).stdout)
    assert out["p_shut"] == 1 and out["expected_score"] == 0


def test_advise_ranks_every_legal_move(cli) -> None:
    proc = cli("advise", "--open", "1 2 3 4 5 6 7 8 9", "--throw", "8", "--json", check=True)
    out = json.loads(proc.stdout)
    moves = [tuple(m["tiles"]) for m in out["moves"]]
    assert set(moves) == {(8,), (1, 7), (2, 6), (3, 5), (1, 2, 5), (1, 3, 4)}
    values = [m["value"] for m in out["moves"]]
    assert values == sorted(values, reverse=True)
    text = cli("advise", "--open", "1 2 3 4 5 6 7 8 9", "--throw", "8", check=True).stdout
    assert " 1. 8 " in text


def test_advise_score_objective_small_box(cli) -> None:
    # {1,2,3} open (tiles 4..9 shut), throw 3, never one die: shutting 3 leaves {1,2}, expected
    # score 1/36*1 + 33/36*3 = 100/36; shutting 2+1 leaves {3}, 34/36*3 = 102/36. Best: shut 3.
    out = json.loads(cli("advise", "--open", "1 2 3", "--throw", "3", "--one-die", "never",
                         "--objective", "score", "--json", check=True).stdout)
    assert [m["tiles"] for m in out["moves"]] == [[3], [1, 2]]
    assert out["moves"][0]["value"] == pytest.approx(float(Fraction(100, 36)))
    assert out["moves"][1]["value"] == pytest.approx(float(Fraction(102, 36)))


def test_advise_when_no_move_is_possible(cli) -> None:
    out = json.loads(cli("advise", "--open", "4 5", "--throw", "3", "--json", check=True).stdout)
    assert out["moves"] == [] and out["turn_over"] and out["score_if_over"] == 9
    assert "the turn is over" in cli("advise", "--open", "4 5", "--throw", "3", check=True).stdout


@pytest.mark.parametrize(
    ("args", "message"),
    first_fast([
        (["advise", "--throw", "13"], "--throw 13: a throw of 13 is impossible with two dice"),
        (["advise", "--throw", "1"], "--throw 1: a throw of 1 needs one die, and one die is not allowed: tiles 7, 8 "
                                     "and 9 are still open (one die once tiles 7, 8 and 9 are shut); two dice throw "
                                     "2 to 12"),
        (["advise", "--throw", "eight"], "--throw 'eight': not a whole number"),
        (["advise", "--open", "1 2 10", "--throw", "3"], "tile 10 is not on the box (tiles 1 to 9)"),
        (["advise", "--open", "1 1", "--throw", "2"], "tile 1 is listed twice"),
        (["advise", "--open", "1 2", "--throw", "8", "--one-die", "sum-6", "--one-die-forced"],
         "one die must be thrown now"),
        (["advise", "--open", "", "--throw", "4"], "no tile is open, the box is already shut"),
        (["solve", "--state", "0 3"], "tile 0 is not on the box"),
        (["solve", "--tiles", "55"], "--tiles 55: invalid value; allowed: a whole number from 9 to 54"),
        (["solve", "--tiles", "18", "--dice", "2"], "--tiles 18 needs at least 3 dice (6 x dice must reach tile 18), "
                                                    "not --dice 2"),
        (["solve", "--tiles", "20", "--dice", "7"], "--dice 7 with --tiles 20: at most 6 dice with up to 36 tiles"),
        (["advise", "--tiles", "12", "--dice", "3", "--throw", "19"], "a throw of 19 is impossible with 3 dice "
                                                                       "(3 to 18)"),
    ], several=True),
)
def test_bad_input_is_one_line_and_exit_2(cli, args: list[str], message: str) -> None:
    proc = cli(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and proc.stderr.count("\n") == 1 and not proc.stdout


def test_bad_strategy_is_refused(cli) -> None:
    proc = cli("solve", "--strategy", "clever")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
