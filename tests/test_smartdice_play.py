"""Smart dice from the command line: the replay format read strictly, ``shutbox dice --listen`` printing each throw,
``--record`` writing a replay, and whole recorded games played through ``shutbox play --dice replay:FILE`` with
their results checked against the rules engine."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.store.database import GameStore
from shutbox.dice.ble.record import KEYS, Record, parse_replay
from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules
from tests.conftest import run_cli, unstamped
from tests.smartdice_support import TILTED, Script, godice_battery

# -- the replay format ---------------------------------------------------------------------------------


def test_a_record_is_one_json_line_with_exactly_the_five_keys():
    line = Record(1.25, "GoDice_4F2A", "godice", "notify", bytes.fromhex("5300c000")).line()
    assert json.loads(line) == {"t": 1.25, "die": "GoDice_4F2A", "protocol": "godice", "event": "notify",
                                "data": "5300c000"}
    assert tuple(json.loads(line)) == KEYS
    assert parse_replay(line + "\n\n", "r") == [Record(1.25, "GoDice_4F2A", "godice", "notify", b"S\x00\xc0\x00")]


GOOD = {"t": 1, "die": "A", "protocol": "pixels", "event": "notify", "data": "030500"}


@pytest.mark.parametrize(("change", "said"), [
    ({"t": -1}, '"t" is -1'), ({"t": "1"}, '"t" is'), ({"t": True}, '"t" is'),
    ({"die": ""}, '"die" is'), ({"die": 3}, '"die" is'), ({"protocol": "nope"}, "allowed: godice, pixels"),
    ({"event": "roll"}, "allowed: connect, disconnect, notify"), ({"data": "5g"}, "give the bytes in hex"),
    ({"event": "connect"}, "a connect has no data"), ({"colour": "red"}, "unknown key 'colour'"),
])
def test_a_wrong_line_is_refused_naming_the_line(change: dict[str, object], said: str):
    bad = json.dumps({**GOOD, **change})
    with pytest.raises(ShutboxError, match="r line 2: ") as caught:
        parse_replay(json.dumps(GOOD) + "\n" + bad + "\n", "r")
    assert said in str(caught.value)


def test_a_missing_key_time_going_back_and_not_json_are_refused():
    for text, said in ((json.dumps({k: v for k, v in GOOD.items() if k != "data"}), "missing 'data'"),
                       (json.dumps({**GOOD, "t": 5}) + "\n" + json.dumps(GOOD), "goes back in time"),
                       ("[1, 2]", "not a JSON object, a list"), ("{oops", "not a JSON object")):
        with pytest.raises(ShutboxError, match=said):
            parse_replay(text, "r")


# -- shutbox dice --listen -----------------------------------------------------------------------------


def two_throws(tmp_path: Path) -> Path:
    script = Script().connect().throw({"GoDice_A": 5, "GoDice_B": 2})
    script.say("GoDice_B", "notify", godice_battery(10))
    script.throw({"GoDice_A": 1})  # one die: refused, two expected
    script.throw({"GoDice_A": 6, "GoDice_B": 1})
    script.say("GoDice_A", "notify", b"R", 3).say("GoDice_B", "notify", b"R", 0.01)
    script.say("GoDice_A", "notify", TILTED["godice"](), 0.5).say("GoDice_B", "notify", b"S\x00\x40\x00", 0.2)
    return script.write(tmp_path / "two.jsonl")


def test_listen_prints_one_line_per_throw_and_says_the_rest_on_stderr(tmp_path: Path):
    replay = two_throws(tmp_path)
    out = run_cli("dice", "--listen", f"replay:{replay}", "--json", check=True)
    assert out.stdout.splitlines() == ['{"dice": [2, 5], "source": "godice"}', '{"dice": [1, 6], "source": "godice"}']
    assert "GoDice_B's battery is at 10 %: charge it soon" in out.stderr
    assert "throw of 1 die (1) refused: 2 dice expected in a throw" in out.stderr
    assert "throw unsure: GoDice_A at rest tilted (not flat on a face); roll it again" in out.stderr
    text = run_cli("dice", "--listen", f"replay:{replay}", check=True)
    assert text.stdout.splitlines() == ["godice: 2 5", "godice: 1 6"]
    one = run_cli("dice", "--listen", f"replay:{replay}", "--dice", "1", "--json", check=True)
    assert one.stdout.splitlines() == ['{"dice": [1], "source": "godice"}']


def test_record_writes_the_replay_it_heard_and_never_replaces_a_file(tmp_path: Path):
    replay = two_throws(tmp_path)
    again = tmp_path / "again.jsonl"
    run_cli("dice", "--listen", f"replay:{replay}", "--record", str(again), check=True)
    assert parse_replay(again.read_text(encoding="utf-8"), "a") == parse_replay(replay.read_text(encoding="utf-8"),
                                                                               "r")
    again.write_text("mine", encoding="utf-8")
    refused = run_cli("dice", "--listen", f"replay:{replay}", "--record", str(again))
    assert refused.returncode == 2 and "exists; not replaced" in refused.stderr
    assert again.read_text(encoding="utf-8") == "mine" and refused.stdout == ""


@pytest.mark.parametrize(("argv", "said"), [
    (["--listen", "bluedice"], "--listen bluedice: not a dice source; allowed: godice, pixels"),
    (["--listen", "godice:a,,b"], "is not a die's name"),
    (["--listen", "godice:a,A"], "a die is named twice"),
    (["--listen", "godice:a,b", "--dice", "3"], "--dice 3: 2 dice are named"),
    (["--listen", "godice", "--dice", "0"], "--dice"),
    (["--listen", "replay:/nonexistent/r.jsonl"], "replay:/nonexistent/r.jsonl: no such file"),
    (["x.png", "--listen", "godice"], "give IMAGE or --listen, not both"),
    (["x.png", "--dice", "2"], "--dice 2: only with --listen"),
    ([], "give a picture of the dice (IMAGE), or --listen SOURCE"),
    (["--listen", "godice", "--record", "/nonexistent/folder/r.jsonl"], "does not exist"),
])
def test_listen_refuses_what_it_cannot_do_in_one_line(argv: list[str], said: str):
    out = run_cli("dice", *argv)
    assert out.returncode == 2 and said in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_a_damaged_replay_is_refused_before_anything_is_printed(tmp_path: Path):
    replay = two_throws(tmp_path)
    replay.write_text(replay.read_text(encoding="utf-8") + '{"t": 99, "die": "A"}\n', encoding="utf-8")
    out = run_cli("dice", "--listen", f"replay:{replay}", "--json")
    assert out.returncode == 2 and out.stdout == "" and "missing 'protocol'" in out.stderr


# -- whole games through play --dice replay:FILE -------------------------------------------------------


def simulated(seed: int, rules: Rules) -> tuple[list[tuple[int, ...]], list[tuple[int, ...] | None], Game]:
    """A game of Ann and Bob played by a simple policy on seeded throws: the throws, the move after each (None:
    a throw that ends the turn) and the game. One die is thrown whenever the rules allow it."""
    rng = random.Random(seed)
    game = Game(rules)
    game.apply(ev.players(["Ann", "Bob"]))
    throws: list[tuple[int, ...]] = []
    moves: list[tuple[int, ...] | None] = []
    while not game.finished:
        count = min(game.dice_counts())
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(count)))  # the dice say their faces lowest first
        throws.append(dice)
        game.throw(*dice)
        legal = game.legal_moves()
        move = max(legal, key=lambda m: (max(m), len(m))) if legal and game.pending is not None else None
        moves.append(move)
        if move is not None:
            game.shut(*move)
    return throws, moves, game


def untimed(events: Iterable[ev.Event | Mapping[str, Any]]) -> list[ev.Event]:
    return unstamped(events)


def play_replay(tmp_path: Path, replay: Path, moves: list[tuple[int, ...] | None], *extra: str,
                leave: bool = False) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``shutbox play --port none --dice replay:FILE``, the tiles typed after each throw read; ``leave``: once
    every move is typed, end the input (the game is saved unfinished)."""
    db = tmp_path / "games.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                             "--db", str(db), "--dice", f"replay:{replay}", *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    assert proc.stdout is not None and proc.stdin is not None
    stdout = proc.stdout
    reader = threading.Thread(target=lambda: lines.extend(iter(stdout.readline, "")), daemon=True)
    reader.start()
    typed = 0
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        thrown = [line for line in list(lines) if line.startswith("* ") and " threw " in line]
        if typed < len(thrown) and typed < len(moves):
            move = moves[typed]
            typed += 1
            if move is not None:
                proc.stdin.write(f"shut {' '.join(map(str, move))}\n")
                proc.stdin.flush()
            if leave and typed == len(moves):
                proc.stdin.close()
            continue
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)
    reader.join(timeout=5)
    stderr = proc.stderr.read() if proc.stderr else ""
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), stderr), db


@pytest.mark.slow
@pytest.mark.parametrize(("protocol", "seed"), [("godice", 47), ("pixels", 4402)])
def test_a_recorded_game_replays_through_play_to_the_result_the_rules_give(tmp_path: Path, protocol: str,
                                                                            seed: int):
    throws, moves, expected = simulated(seed, Rules())
    assert any(len(t) == 1 for t in throws), "the game should have a one-die throw"
    names = ("GoDice_A", "GoDice_B") if protocol == "godice" else ("Pixel_A", "Pixel_B")
    script = Script(protocol, names).connect()
    for dice in throws:
        script.throw_values(dice)
    replay = script.write(tmp_path / f"{protocol}.jsonl")
    done, db = play_replay(tmp_path, replay, moves)
    assert done.returncode == 0, done.stderr + done.stdout[-2000:]
    with GameStore(db) as store:
        game_id = store.games()[-1].id
        events = store.events(game_id)
        readings = store.readings(game_id)
    replayed = Game.from_events(Rules(), events)  # the rules engine checks every event again
    assert replayed.finished and untimed(replayed.to_events()) == untimed(expected.to_events())
    assert [tuple(e["dice"]) for e in events if e["type"] == "throw"] == throws
    label = "GoDice" if protocol == "godice" else "Pixels"
    assert [(r.source, tuple(r.dice)) for r in readings] == [(f"{label} dice", tuple(sorted(t))) for t in throws]
    shown = run_cli("history", "show", str(game_id), "--db", str(db), check=True).stdout
    assert f"read by the {label} dice: {' + '.join(map(str, sorted(throws[0])))}" in shown


@pytest.mark.slow
def test_at_the_table_a_tilted_die_a_wrong_count_and_a_dropped_die_are_said_and_nothing_is_lost(tmp_path: Path):
    rules = Rules()
    script = Script(names=("GoDice_A", "GoDice_B", "GoDice_C")).connect()
    script.throw({"GoDice_A": 3, "GoDice_B": 4, "GoDice_C": 5})  # three dice in a two-dice game
    script.say("GoDice_A", "notify", b"R", 5).say("GoDice_B", "notify", b"R", 0.01)
    script.say("GoDice_A", "notify", TILTED["godice"](), 0.4).say("GoDice_B", "notify", b"S\x40\x00\x00", 0.2)
    script.say("GoDice_A", "notify", b"R", 2).say("GoDice_C", "disconnect", after=0.1)
    script.say("GoDice_A", "notify", b"S\x00\x40\x00", 0.4).say("GoDice_C", "connect", after=10)
    replay = script.write(tmp_path / "table.jsonl")
    recorded = tmp_path / "recorded.jsonl"
    done, db = play_replay(tmp_path, replay, [(9,)], "--record", str(recorded), leave=True)
    out = done.stdout
    assert "a throw is one die or two dice, not 3" in out, out
    assert "throw unsure: GoDice_A at rest tilted" in out
    assert "GoDice_C disconnected; the throw waits for it" in out and "GoDice_C is back" in out
    with GameStore(db) as store:
        events = store.events(store.games()[-1].id)
    assert [e["dice"] for e in events if e["type"] == "throw"] == [[3, 6]]  # A rolled again: 3, B's 6 kept
    assert [e["tiles"] for e in events if e["type"] == "shut"] == [[9]]
    assert rules.tiles == 9
    assert parse_replay(recorded.read_text(encoding="utf-8"), "x") == parse_replay(
        replay.read_text(encoding="utf-8"), "r")


def test_play_refuses_a_bad_dice_source_or_record_in_one_line(tmp_path: Path):
    for argv, said in ((["--dice", "bluedice"], "not a dice source; allowed: godice"),
                       (["--dice", "bluedice"], "or a number of dice"),
                       (["--dice", f"replay:{tmp_path / 'none.jsonl'}"], "none.jsonl: no such file"),
                       (["--record", str(tmp_path / "r.jsonl")], "only with --dice SOURCE")):
        out = run_cli("play", "--port", "none", "--players", "Ann,Bob", "--db", str(tmp_path / "g.sqlite3"), *argv)
        assert out.returncode == 2 and said in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "g.sqlite3").exists()
    three = subprocess.run([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                            "--dice", "3", "--tiles", "12", "--db", str(tmp_path / "g.sqlite3")], input="quit\n",
                           capture_output=True, text=True, timeout=60)
    assert three.returncode == 0, three.stderr  # a number is still the rules' number of dice
