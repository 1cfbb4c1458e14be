"""``shutbox sim`` end to end: the real firmware under MicroPython, its pseudo-terminal, pyserial and the
real scorekeeper, in every match format; illegal moves and their correction; bad scripts; the demo.

Turn patterns used below (nine tiles, two dice while 7, 8 or 9 is open), worked out by hand:

- E21: 6+6 shuts 9 3, 6+6 shuts 8 4, then 2+2 = 4 admits no move with 1, 2, 5, 6, 7 open: the turn
  ends and scores 1+2+5+6+7 = 21. (``end`` would be refused: the throws are typed.)
- E9: 6+6 shuts 9 3, 8 4 and 7 5 in turn; a fourth 6+6 = 12 cannot be made from 1, 2, 6: the turn
  ends and scores 9.
- SHUT: as E9 for three throws, then 5+4 = 9 shuts 6 2 1: the box is shut, score 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules

E21 = "throw 6 6\nshut 9 3\nthrow 6 6\nshut 8 4\nthrow 2 2\nopen all\n"
E9 = "throw 6 6\nshut 9 3\nthrow 6 6\nshut 8 4\nthrow 6 6\nshut 7 5\nthrow 6 6\nopen all\n"
SHUT = "throw 6 6\nshut 9 3\nthrow 6 6\nshut 8 4\nthrow 6 6\nshut 7 5\nthrow 5 4\nshut 6 2 1\nopen all\n"
FAST = ["--debounce-ms", "5", "--scan-ms", "1"]  # the firmware's own settings, to keep the suite quick


def sim(cli, tmp_path: Path, script: str, *flags: str) -> dict:
    path = tmp_path / "game.txt"
    path.write_text(script, encoding="utf-8")
    proc = cli("sim", "--script", str(path), "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def scores(result: dict) -> dict[str, int | None]:
    return {p["name"]: p["score"] for p in result["players"]}


@pytest.mark.slow
def test_round_shutting_the_box_wins_at_once_and_later_players_get_no_turn(cli, tmp_path):
    # default firmware settings (30 ms debounce) for this one game
    result = sim(cli, tmp_path, "players Ann Bob Cy\n" + E21 + SHUT)
    assert result["finished"] and result["winner"] == "Bob"
    assert scores(result) == {"Ann": 21, "Bob": 0, "Cy": None}
    assert [p["shut_box"] for p in result["players"]] == [False, True, False]
    assert [t["player"] for t in result["turns"]] == ["Ann", "Bob"]
    assert result["turns"][0]["throws"][0] == {"dice": [6, 6], "total": 12, "tiles": [3, 9], "dead": False,
                                               "extra": False, "unverified": False}
    assert {"kind": "win", "text": "Bob SHUT THE BOX — an instant win!"} in result["messages"]


@pytest.mark.slow
def test_drop_out_the_last_player_left_wins(cli, tmp_path):
    # limit 30. Round 1: Ann 21, Bob 9, Cy 21. Round 2: Ann +9 = 30 drops out, Bob +9 = 18,
    # Cy +9 = 30 drops out: Bob is the last one left.
    result = sim(cli, tmp_path, "players Ann Bob Cy\n" + E21 + E9 + E21 + E9 + E9 + E9,
                 "--match", "drop-out", "--limit", "30", *FAST)
    assert result["winner"] == "Bob"
    assert scores(result) == {"Ann": 30, "Bob": 18, "Cy": 30}
    texts = [m["text"] for m in result["messages"]]
    assert "Ann reached 30 and drops out" in texts and "Cy reached 30 and drops out" in texts


def test_tournament_the_first_to_reach_the_limit_loses(cli, tmp_path):
    # limit 25. Round 1: Ann 9, Bob 21. Round 2: Ann 18, Bob 30 >= 25: Bob loses, Ann wins.
    result = sim(cli, tmp_path, "players Ann Bob\n" + E9 + E21 + E9 + E9, "--match", "tournament", "--limit", "25",
                 *FAST)
    assert result["winner"] == "Ann"
    assert scores(result) == {"Ann": 18, "Bob": 30}
    assert {"kind": "win", "text": "game over: Bob reached 25; Ann wins"} in result["messages"]


def test_long_game_the_second_player_uncovers_the_board_as_left(cli, tmp_path):
    # Ann shuts 9 3, 8 4, 7 5; a dead double 6+6 gives her another throw; 5+6 = 11 is dead and ends
    # her turn with 1, 2, 6 open (score 9). Bob uncovers 9 3, 8 4, 7 5 with three double sixes: every
    # tile is open again and he wins.
    ann = "throw 6 6\nshut 9 3\nthrow 6 6\nshut 8 4\nthrow 6 6\nshut 7 5\nthrow 6 6\nthrow 5 6\n"
    bob = "throw 6 6\nopen 9 3\nthrow 6 6\nopen 8 4\nthrow 6 6\nopen 7 5\n"
    result = sim(cli, tmp_path, "players Ann Bob\n" + ann + bob, "--match", "long-game", *FAST)
    assert result["winner"] == "Bob"
    assert scores(result) == {"Ann": 9, "Bob": 0}
    assert [t["phase"] for t in result["turns"]] == ["shut", "uncover"]
    assert result["turns"][0]["throws"][3]["extra"] is True
    assert result["turns"][1]["uncovered_box"] is True


def test_stakes_the_round_winner_takes_the_pool(cli, tmp_path):
    result = sim(cli, tmp_path, "players Ann Bob\n" + E21 + E9, "--stake", "2", *FAST)
    assert result["winner"] == "Bob"
    assert result["balance"] == {"Ann": -2.0, "Bob": 2.0}


def test_digits_scoring_and_a_ten_tile_box_on_a_shift_register_chain(cli, tmp_path):
    # 10 tiles: 5+5 shuts 10, then as E21: 1, 2, 5, 6, 7 open, read as 12567.
    result = sim(cli, tmp_path, "players Ann\nthrow 5 5\nshut 10\n" + E21, "--tiles", "10", "--scoring", "digits",
                 "--tile-input", "74hc165", *FAST)
    assert result["winner"] == "Ann"
    assert scores(result) == {"Ann": 12567}


def test_illegal_moves_are_flagged_and_put_right(cli, tmp_path):
    script = """players Ann Bob
    throw 3 4
    shut 6 4      # 10 on a throw of 7
    throw 1 1     # refused: the box is flagged
    open 6 4      # put right
    shut 7
    shut 2        # no throw yet
    open 2
    throw 4       # one die while 7, 8, 9 are open
    throw 6 6
    shut 9 3
    open 7        # a scored tile reopened
    throw 2 3     # refused: put the 7 back first
    shut 7
    throw 4 4
    shut 2        # 2 of 8 ... then 6 makes 8
    shut 6
    throw 5 6     # 11 from 1, 4, 5, 8: no move: Ann scores 18
    throw 6 6     # refused: Bob's turn starts with every tile open (not set up yet)
    open all
    throw 6 6
    shut 9 3
    throw 6 6
    shut 8 4
    throw 6 6
    shut 7 5
    throw 5 4
    shut 6 2 1
    """
    result = sim(cli, tmp_path, script, "--throws", "required", *FAST)  # typed throws: moves without one are flagged
    flags = [m["text"] for m in result["messages"] if m["kind"] == "flag"]
    refused = [m["text"] for m in result["messages"] if m["kind"] == "refused"]
    assert flags == [
        "6 + 4 = 10, the throw was 7: open tiles 4, 6 again",
        "tile 2 shut with no throw: open it again and enter the throw first",
        "tile 7 reopened: it was shut earlier, shut it again",
    ]
    assert refused[0] == "put the box right first: 6 + 4 = 10, the throw was 7: open tiles 4, 6 again"
    assert refused[1] == ("one die is not allowed: tiles 8 and 9 are still open (one die once tiles 7, 8 and 9 "
                          "are shut)")
    assert refused[2] == "put the box right first: tile 7 reopened: it was shut earlier, shut it again"
    assert refused[3].startswith("put the box right first: Bob's turn: open")
    assert len(refused) == 4
    assert result["winner"] == "Bob" and scores(result) == {"Ann": 18, "Bob": 0}
    # Nothing illegal reached the record: it replays to the same game as the clean sequence.
    clean = [ev.players(["Ann", "Bob"]), ev.throw(3, 4), ev.shut(7), ev.throw(6, 6), ev.shut(3, 9), ev.throw(4, 4),
             ev.shut(2, 6), ev.throw(5, 6)]
    clean += [ev.throw(6, 6), ev.shut(3, 9), ev.throw(6, 6), ev.shut(4, 8), ev.throw(6, 6), ev.shut(5, 7),
              ev.throw(5, 4), ev.shut(1, 2, 6)]
    expected = Game.from_events(Rules(), clean)
    assert [t["throws"] for t in result["turns"]] == [
        [{"dice": list(t.dice or ()), "total": t.total, "tiles": list(t.tiles) if t.tiles else None, "dead": t.dead,
          "extra": t.extra, "unverified": t.unverified} for t in turn.throws] for turn in expected.turns]


@pytest.mark.parametrize(("script", "message"), [
    ("players Ann\nthrow 7 1\n", "game.txt:2: '7': a die shows 1 to 6"),
    ("players Ann\nthrow 3 4 5\n", "game.txt:2: 'throw' takes one die or 2"),
    ("players Ann\nshut 10\n", "game.txt:2: '10': tiles are 1 to 9"),
    ("players Ann\nshut 3 3\n", "game.txt:2: 'shut' lists a tile twice"),
    ("players Ann\nopen\n", "game.txt:2: 'open' needs tile numbers, e.g. 'open 3 5' or 'open all'"),
    ("# a comment\n\nplayers Ann\njump 3\n",
     "game.txt:4: unknown action 'jump'; allowed: players, throw, total, shut, open, end, press, undo, hint"),
    ("throw 3 4\nplayers Ann\n", "game.txt:1: 'throw' before 'players'"),
    ("players\n", "game.txt:1: 'players' needs at least one name"),
    ("players Ann\nplayers Bob\n", "game.txt:2: 'players' again (the players were set on line 1)"),
    ("players Ann\nend now\n", "game.txt:2: 'end' takes nothing"),
    ("throw 6 6   # no players\n", "game.txt:1: 'throw' before 'players'"),
    ("# nothing\n", "game.txt: no 'players' line"),
])
@pytest.mark.slow
def test_a_bad_script_line_is_one_error_line_with_its_number(cli, tmp_path, script, message):
    path = tmp_path / "game.txt"
    path.write_text(script, encoding="utf-8")
    proc = cli("sim", "--script", str(path), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("shutbox: error: ") and message in proc.stderr.replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize(("args", "message"), [
    (["--script", "missing.txt"], "--script missing.txt: no such file"),
    (["--demo", "--speed", "0"], "--speed 0: allowed: a number from 0.01 to 1000"),
    (["--script", "game.txt", "--players", "Ann"], "--players Ann: only for --demo"),
    (["--demo", "--match", "long-game", "--players", "Ann,Bob,Cy"], "the long game is for exactly 2 players"),
])
@pytest.mark.slow
def test_bad_sim_arguments(cli, tmp_path, args, message):
    (tmp_path / "game.txt").write_text("players Ann Bob\n", encoding="utf-8")
    proc = cli("sim", *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and proc.stderr.count("\n") == 1


def test_the_players_line_is_checked_by_the_rules(cli, tmp_path):
    path = tmp_path / "game.txt"
    path.write_text("players Ann\n", encoding="utf-8")
    proc = cli("sim", "--script", str(path), "--match", "drop-out")
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("game.txt:1: a drop-out match needs at least 2 players")


@pytest.mark.slow
@pytest.mark.parametrize("match", ["round", "long-game"])
def test_the_demo_plays_a_whole_game(cli, match):
    proc = cli("sim", "--demo", "--speed", "400", "--seed", "7", "--match", match, "--json", *FAST)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["finished"]
    assert result["winners"] and set(result["winners"]) <= {"Ann", "Bob"}
    assert not [m for m in result["messages"] if m["kind"] in ("flag", "refused")]


@pytest.mark.slow
def test_the_demo_throws_the_dice_the_rules_give(cli):
    """With three dice the demo throws three (or one), as the solver's policy does: it once threw two."""
    proc = cli("sim", "--demo", "--speed", "400", "--seed", "7", "--dice", "3", "--json", *FAST)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["finished"]
    throws = [t["dice"] for turn in result["turns"] for t in turn["throws"] if t["dice"]]
    assert throws and {len(d) for d in throws} <= {1, 3} and 3 in {len(d) for d in throws}


@pytest.mark.slow
def test_the_demo_shows_the_terminal_interface(cli):
    proc = cli("sim", "--demo", "--speed", "400", "--seed", "1", *FAST)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Shut the Box — round, 9 tiles, sum scoring — game 1" in out
    assert "  box     1   2   3   4   5   6   7   8   9" in out
    assert "* Ann threw " in out and "Ann's turn (shutting)" in out and "scores: Ann" in out
    assert "game over: " in out
