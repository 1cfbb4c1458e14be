"""Sim scripts take every action a player has in ``play``: undo, end, press (the box's button), hint.

Played end to end (real firmware, pseudo-terminal, scorekeeper) with ``shutbox sim --script``. Hand
scores on nine tiles: 6+6 shuts 9 3, 6+6 shuts 8 4, then 2+2 = 4 admits no move with 1, 2, 5, 6, 7
open: 21.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.sim.script import parse_script
from shutbox.kit.model import Rules

FAST = ["--debounce-ms", "5", "--scan-ms", "1"]
NOT_OVER = "the turn is not over: throw the dice; a throw that can shut no tiles ends the turn by itself"


def sim(cli, tmp_path: Path, script: str, *flags: str) -> dict:
    path = tmp_path / "game.txt"
    path.write_text(script, encoding="utf-8")
    proc = cli("sim", "--script", str(path), "--json", *FAST, *flags)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_undo_end_press_and_hint_in_a_script(cli, tmp_path):
    script = """players Ann
throw 1 2     # mistyped: the dice showed 6 6
undo
throw 6 6
hint          # shown, never scored
shut 9 3
end           # refused: the turn is not over (with 1, 2, 4..8 open a 7 would still shut tiles)
press         # the box's button: the same refusal
throw 6 6
shut 8 4
throw 2 2     # 4: no move with 1, 2, 5, 6, 7 open; the turn ends by itself
"""
    result = sim(cli, tmp_path, script, "--throws", "required")  # typed throws: end and press are refused
    assert result["finished"] and result["winner"] == "Ann"
    assert [p["score"] for p in result["players"]] == [21]
    throws = result["turns"][0]["throws"]
    assert [(t["dice"], t["tiles"], t["dead"]) for t in throws] == [
        ([6, 6], [3, 9], False), ([6, 6], [4, 8], False), ([2, 2], None, True)]  # the undone 1 2 is gone
    refused = [m["text"] for m in result["messages"] if m["kind"] == "refused"]
    assert refused == [NOT_OVER, NOT_OVER]


@pytest.mark.slow
def test_end_with_a_throw_that_can_still_move_names_the_moves(cli, tmp_path):
    # then 7, 9 + 3 and 8 + 4 shut; 2 + 2 = 4 admits no move with 1, 2, 5, 6 open: 14.
    result = sim(cli, tmp_path, "players Ann\nthrow 3 4\nend\nshut 7\nthrow 6 6\nshut 9 3\nthrow 6 6\nshut 8 4\n"
                                "throw 2 2\n")
    refused = [m["text"] for m in result["messages"] if m["kind"] == "refused"]
    assert refused == ["the turn is not over: the throw of 7 can still shut 7, 6 + 1, 5 + 2, 4 + 3, …"]
    assert result["players"][0]["score"] == 14


@pytest.mark.slow
def test_a_drawn_total_is_a_throw(cli, tmp_path):
    # 12 tiles, 3 dice, totals drawn instead of thrown: 12 shuts 12, 11 shuts 11, then 3 + 3 + 3 = 9
    # thrown with dice shuts 9; a drawn 2 needs one die, not allowed while 7, 8 and 10 are open: refused.
    script = "players Ann\ntotal 12\nshut 12\ntotal 11\nshut 11\nthrow 3 3 3\nshut 9\ntotal 2\n"
    result = sim(cli, tmp_path, script, "--tiles", "12", "--dice", "3")
    throws = result["turns"][0]["throws"]
    assert [(t["dice"], t["total"], t["tiles"]) for t in throws] == [(None, 12, [12]), (None, 11, [11]),
                                                                    ([3, 3, 3], 9, [9])]
    refused = [m["text"] for m in result["messages"] if m["kind"] == "refused"]
    assert refused == ["a throw of 2 needs one die, and one die is not allowed: tiles 7, 8 and 10 are still open "
                       "(one die once tiles 7–12 are shut); 3 dice throw 3 to 18"]


@pytest.mark.slow
def test_undo_with_nothing_typed_is_refused_and_the_game_goes_on(cli, tmp_path):
    result = sim(cli, tmp_path, "players Ann\nundo\nthrow 6 6\nshut 9 3\nthrow 1 1\nshut 2\nthrow 1 1\n")
    refused = [m["text"] for m in result["messages"] if m["kind"] == "refused"]
    assert refused == ["there is nothing to undo"]
    assert result["players"][0]["score"] == 45 - 12 - 2


@pytest.mark.parametrize(("script", "message"), [
    ("players Ann\nhint now\n", "s.txt:2: 'hint' takes nothing, not 'now'"),
    ("players Ann\npress 2\n", "s.txt:2: 'press' takes nothing, not '2'"),
    ("undo\nplayers Ann\n", "s.txt:1: 'undo' before 'players': name the players first"),
    ("players Ann\nthrow 1 2 3\n", "s.txt:2: 'throw' takes one die or 2, e.g. 'throw 3 5' or 'throw 4', not 3"),
    ("players Ann\njump\n", "s.txt:2: unknown action 'jump'; allowed: players, throw, total, shut, open, end, press, "
                            "undo, hint"),
    ("players Ann\ntotal 13\n", "s.txt:2: '13': a throw totals 1 to 12"),
    ("players Ann\ntotal\n", "s.txt:2: 'total' takes one number, the total drawn, e.g. 'total 27', not 0"),
])
def test_bad_lines_name_the_line(script: str, message: str) -> None:
    with pytest.raises(ShutboxError) as err:
        parse_script(script, Rules(), "s.txt")
    assert str(err.value).startswith(message)


def test_scripts_for_larger_sets_take_as_many_dice_as_the_rules() -> None:
    rules = Rules(tiles=15, dice=3)
    actions = parse_script("players Ann\nthrow 6 5 4\nshut 15\nthrow 2\n", rules, "s.txt")
    assert [(a.kind, a.numbers) for a in actions[1:]] == [("throw", (6, 5, 4)), ("shut", (15,)), ("throw", (2,))]
    with pytest.raises(ShutboxError, match=r"^s.txt:2: 'throw' takes one die or 3, e.g. 'throw 3 5 2'"):
        parse_script("players Ann\nthrow 6 5\n", rules, "s.txt")
