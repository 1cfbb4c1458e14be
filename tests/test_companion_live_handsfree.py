"""Hands-free games: throws optional, played end to end with ``shutbox sim --script`` (the real firmware on the
unix MicroPython port, its pseudo-terminal, pyserial, the scorekeeper). Tiles are flipped on the box and the
box's button (``press``) ends each turn; nobody types a throw. Then the record as every reader shows it:
``history show``, ``review``, ``scorepad --from-game`` and ``stats``.

Hand scores (nine tiles, sum scoring): 9 8 7 shut leaves 1..6 open, 21; 9 8 7 6 5 leaves 1 2 3 4, 10;
9 8 7 6 5 4 3 leaves 1 2, 3; 9 3 8 4 leaves 1 2 5 6 7, 21; nothing shut, 45.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules
from tests.conftest import unstamped
from tests.emulator_support import needs_emulator

FAST = ["--debounce-ms", "5", "--scan-ms", "1"]
ASK = "press again to end with nothing shut"
S21 = "shut 9 8 7\npress\nopen all\n"
S10 = "shut 9 8 7 6 5\npress\nopen all\n"
S3 = "shut 9 8 7 6 5 4 3\npress\nopen all\n"


def sim(cli, tmp_path: Path, script: str, *flags: str) -> dict:
    path = tmp_path / "game.txt"
    path.write_text(script, encoding="utf-8")
    proc = cli("sim", "--script", str(path), "--json", *FAST, *flags)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def scores(result: dict) -> dict[str, int | None]:
    return {p["name"]: p["score"] for p in result["players"]}


def texts(result: dict, kind: str) -> list[str]:
    return [m["text"] for m in result["messages"] if m["kind"] == kind]


def test_a_round_hands_free_the_button_ends_each_turn(cli, tmp_path):
    # Ann shuts 9 3 8 4 and presses: 21. Bob shuts every tile: an instant win; Cy gets no turn. Stake 2: the
    # shutter takes the pool (6) and a further 2 from each other player.
    result = sim(cli, tmp_path, "players Ann Bob Cy\nshut 9 3 8 4\npress\nopen all\nshut 1 2 3 4 5 6 7 8 9\n",
                 "--stake", "2")
    assert set(result) >= {"players", "winner", "balance"}  # the shape of sim --json is kept
    assert [set(p) >= {"name", "score", "shut_box"} for p in result["players"]] == [True] * 3
    assert result["finished"] and result["winner"] == "Bob"
    assert scores(result) == {"Ann": 21, "Bob": 0, "Cy": None}
    assert [p["shut_box"] for p in result["players"]] == [False, True, False]
    assert [t["unverified"] for t in result["turns"]] == [True, True]
    assert result["turns"][0]["throws"][0] == {"dice": None, "total": None, "tiles": [3, 4, 8, 9], "dead": False,
                                               "extra": False, "unverified": True}
    assert result["balance"] == {"Ann": -4.0, "Bob": 8.0, "Cy": -4.0}
    assert "turn ended (unverified): Ann scores 21 (left open: 1 2 5 6 7)" in texts(result, "turn")
    assert not texts(result, "flag") and not texts(result, "refused")


def test_an_accidental_press_asks_and_a_second_ends_the_turn_typed_end_the_same(cli, tmp_path):
    script = ("players Ann Bob\n"
              "press\n"            # nothing moved yet: a question, the turn goes on
              "shut 9\npress\n"    # 9 shut: the press ends the turn (36)
              "open all\n"
              "end\nend\n")        # Bob: end typed twice ends with nothing shut (45)
    result = sim(cli, tmp_path, script)
    assert texts(result, "refused") == [ASK, ASK + " (or type end again)"]
    assert scores(result) == {"Ann": 36, "Bob": 45} and result["winner"] == "Ann"
    assert [t["unverified"] for t in result["turns"]] == [True, True]


def test_drop_out_with_a_stake_hands_free(cli, tmp_path):
    # limit 30, stake 1. Round 1: Ann 21, Bob 10, Cy 3 (Cy takes the pool of 3). Round 2: Ann 21 -> 42, out;
    # Bob 10 -> 20; Cy 3 -> 6 and the pool again. Round 3: Bob presses twice with nothing shut: 45 -> 65, out;
    # Cy is left and wins at once; round 3 is cut short and its stakes go back.
    script = "players Ann Bob Cy\n" + S21 + S10 + S3 + S21 + S10 + S3 + "press\npress\n"
    result = sim(cli, tmp_path, script, "--match", "drop-out", "--limit", "30", "--stake", "1")
    assert result["winner"] == "Cy"
    assert scores(result) == {"Ann": 42, "Bob": 65, "Cy": 6}
    assert result["balance"] == {"Ann": -2.0, "Bob": -2.0, "Cy": 4.0}
    assert [r["cut_short"] for r in result["rounds"]] == [False, False, True]
    assert "Ann reached 30 and drops out" in texts(result, "turn")


@pytest.mark.slow  # plays a game of each format
def test_each_formats_money_hands_free(cli, tmp_path):
    # Tournament to 25, stake 1: Ann 21; Bob shuts the box (double: Ann pays 2). Round 2: Ann 21 -> 42 loses;
    # the round is cut short and its stakes return. Bob wins.
    tournament = sim(cli, tmp_path, "players Ann Bob\n" + S21 + "shut 1 2 3 4 5 6 7 8 9\nopen all\n" + S21,
                     "--match", "tournament", "--limit", "25", "--stake", "1")
    assert tournament["winner"] == "Bob" and tournament["balance"] == {"Ann": -2.0, "Bob": 2.0}
    assert {"kind": "win", "text": "game over: Ann reached 25; Bob wins"} in tournament["messages"]
    # Round, stake 1.5: Ann 21, Bob 10: Bob takes the pool of 3.
    rnd = sim(cli, tmp_path, "players Ann Bob\n" + S21 + "shut 9 8 7 6 5\npress\n", "--stake", "1.5")
    assert rnd["winner"] == "Bob" and rnd["balance"] == {"Ann": -1.5, "Bob": 1.5}
    # Long game, stake 3: Ann shuts 9 8 7 6 and presses (15 left open); Bob reopens them with no throw
    # entered and uncovers every tile: he takes the pool, single.
    long = sim(cli, tmp_path, "players Ann Bob\nshut 9 8 7 6\npress\nopen 9 8 7 6\n", "--match", "long-game",
               "--stake", "3")
    assert long["winner"] == "Bob" and long["balance"] == {"Ann": -3.0, "Bob": 3.0}
    assert [t["phase"] for t in long["turns"]] == ["shut", "uncover"] and long["turns"][1]["uncovered_box"]
    assert [t["unverified"] for t in long["turns"]] == [True, True]


def test_throws_entered_under_optional_are_checked_as_ever(cli, tmp_path):
    # A throw typed after its first tile (9 of 12) counts for it; moves are checked against typed throws; a
    # typed dead throw ends the turn by itself, and that turn is verified: 9 3, 8 4, 7, then 2 + 2 = 4 has no
    # move with 1 2 5 6 open: 14. Bob presses twice with nothing shut: 45.
    script = ("players Ann Bob\n"
              "shut 9\nthrow 6 6\nshut 3\nthrow 6 6\nshut 8 4\n"
              "throw 3 4\nshut 6 2\nopen 6 2\nshut 7\n"  # 8 on a 7 is flagged, then put right
              "throw 2 2\nopen all\npress\npress\n")
    result = sim(cli, tmp_path, script)
    assert texts(result, "flag") == ["6 + 2 = 8, the throw was 7: open tiles 2, 6 again"]
    assert scores(result) == {"Ann": 14, "Bob": 45}
    ann, bob = result["turns"]
    assert [(t["dice"], t["tiles"], t["dead"]) for t in ann["throws"]] == [
        ([6, 6], [3, 9], False), ([6, 6], [4, 8], False), ([3, 4], [7], False), ([2, 2], None, True)]
    assert (ann["unverified"], bob["unverified"]) == (False, True)


@pytest.mark.slow  # plays and reviews several games
def test_the_record_says_unverified_everywhere(cli, tmp_path):
    db = tmp_path / "games.sqlite3"
    result = sim(cli, tmp_path, "players Ann Bob\nshut 9 3 8 4\npress\nopen all\nthrow 6 6\nshut 9 3\n"
                                "throw 6 6\nshut 8 4\nthrow 2 2\n", "--db", str(db))
    assert [t["unverified"] for t in result["turns"]] == [True, False]
    shown = cli("history", "show", "1", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "turn 1: Ann (shut) — shut 9 + 8 + 4 + 3 with no throw entered; ended unverified" in lines[1]
    assert lines[1].endswith("score 21 (unverified)") and not lines[2].endswith("(unverified)")
    review = cli("review", "1", "--db", str(db), "--json")
    assert review.returncode == 0, review.stderr
    data = json.loads(review.stdout)
    assert "1 unverified turn not reviewed" in json.dumps(data)
    assert all(d["player"] == "Bob" for d in data["decisions"])  # Ann's unverified turn is not graded
    game_file = tmp_path / "game.json"
    game_file.write_text(cli("history", "show", "1", "--db", str(db), "--json").stdout, encoding="utf-8")
    record = json.loads(game_file.read_text(encoding="utf-8"))["events"]
    assert unstamped(record[1:2]) == [ev.shut(3, 4, 8, 9, unverified=True)]
    assert Game.from_events(Rules(), record).turns[0].unverified
    pdf = tmp_path / "sheet.pdf"
    sheet = cli("scorepad", "--from-game", str(game_file), "--out", str(pdf))
    assert sheet.returncode == 0, sheet.stderr
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "unverified" in text and "?→9+8+4+3" in text
    stats = cli("stats", "--db", str(db), "--json")
    assert stats.returncode == 0, stats.stderr
    players = json.loads(stats.stdout)["players"]
    assert (players["Ann"]["turns_verified"], players["Ann"]["turns_unverified"]) == (0, 1)
    assert (players["Bob"]["turns_verified"], players["Bob"]["turns_unverified"]) == (1, 0)


def test_the_throws_setting_is_declared_once_for_flags_and_the_settings_file(cli, tmp_path):
    shown = cli("config", "show")
    assert shown.returncode == 0 and '[play]\nthrows = "auto"' in shown.stdout
    bad = cli("sim", "--demo", "--throws", "sometimes")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--throws sometimes: invalid value; allowed: auto, required, optional" in bad.stderr
    (tmp_path / "shutbox.toml").write_text('[play]\nthrows = "required"\n', encoding="utf-8")
    (tmp_path / "game.txt").write_text("players Ann\nthrow 6 6\nshut 9 3\nshut 5\npress\n", encoding="utf-8")
    proc = cli("sim", "--script", "game.txt", "--json", *FAST, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # required, from the settings file: a tile with no throw is flagged
    assert texts(result, "flag") == ["tile 5 shut with no throw: open it again and enter the throw first"]
    assert texts(result, "refused") == ["put the box right first: tile 5 shut with no throw: open it again and "
                                        "enter the throw first"]
    assert not result["turns"][0]["ended"] and not result["turns"][0]["unverified"]


@pytest.mark.slow
def test_the_button_on_the_emulated_pico_ends_hands_free_turns(cli, tmp_path):
    """The built firmware on MicroPython's RP2040 port in an emulated Pico (``sim --emulator``): the same
    hands-free game, two presses in a row included, scores as on the unix port."""
    needs_emulator()
    script = "players Ann Bob\nshut 9 8 7\npress\nopen all\npress\npress\n"
    result = sim(cli, tmp_path, script, "--emulator")
    assert scores(result) == {"Ann": 21, "Bob": 45} and result["winner"] == "Ann"
    assert [t["unverified"] for t in result["turns"]] == [True, True]
    assert texts(result, "refused") == [ASK]
