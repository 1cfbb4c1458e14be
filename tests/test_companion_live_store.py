"""The game history: the SQLite store, ``shutbox history`` and the round trip into ``shutbox scorepad``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.store.database import SCHEMA_VERSION, GameStore, default_db_path, open_read_only
from shutbox.game import events as ev
from shutbox.game.gamefile import load_game, settings_of
from shutbox.kit.model import Rules

from .test_companion_live_sim import E9, E21, FAST


def test_a_game_is_created_with_its_players_and_finished_with_its_last_event(tmp_path):
    with GameStore(tmp_path / "g.sqlite3") as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann"]))
        assert store.events(gid) == [ev.players(["Ann"]).to_dict()]
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == gid
        assert store.append(gid, ev.throw(3, 4)) == 1
        assert store.append(gid, ev.shut(7), finished=True) == 2
        assert store.latest_unfinished() is None
        row = store.game(gid)
        assert (row.players, row.events, row.finished is not None) == (["Ann"], 3, True)
        with pytest.raises(ShutboxError, match="game 9: no such game"):
            store.game(9)


def test_held_tiles_are_kept_until_another_event_is_recorded(tmp_path):
    """Throws optional: the tiles held on the box are saved in their own row, replaced by each hold, read back
    by a new store (a restarted scorekeeper), and ignored once an event is recorded after them."""
    path = tmp_path / "g.sqlite3"
    with GameStore(path) as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        assert store.held(gid) is None
        store.hold(gid, 1, (9,))
        store.hold(gid, 1, (9, 8))
    with GameStore(path) as store:
        assert store.held(gid) == (1, (8, 9))
        store.append(gid, ev.shut(8, 9, unverified=True))
        assert store.held(gid) is None  # in the record now
        store.hold(gid, 1, (3,))
    with open_read_only(path) as store:
        assert store.held(gid) == (1, (3,))


def test_a_database_from_before_held_tiles_is_upgraded_on_its_first_write(tmp_path):
    path = tmp_path / "g.sqlite3"
    with GameStore(path) as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann"]))
    with sqlite3.connect(path) as db:  # as schema 1 left it
        db.execute("DROP TABLE held")
        db.execute("PRAGMA user_version = 1")
    with GameStore(path) as store:
        assert store.held(gid) is None  # nothing held in it, and nothing written by asking
        assert store.events(gid) == [ev.players(["Ann"]).to_dict()]
        store.hold(gid, 1, (7,))
        assert store.held(gid) == (1, (7,))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_foreign_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(ShutboxError, match=r"not a shutbox game database \(it holds other data\)"):
        GameStore(path)
    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["notes"]
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ShutboxError, match="not a shutbox game database"):
        GameStore(junk)


def test_the_default_database_lives_in_the_users_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "shutbox" / "games.sqlite3"


@pytest.fixture
def played(cli, tmp_path) -> Path:
    """A database holding one finished round (Ann 21, Bob 9) played on the simulated box."""
    script = tmp_path / "game.txt"
    script.write_text("players Ann Bob\n" + E21 + E9, encoding="utf-8")
    db = tmp_path / "games.sqlite3"
    proc = cli("sim", "--script", str(script), "--db", str(db), *FAST)
    assert proc.returncode == 0, proc.stderr
    return db


@pytest.mark.slow
def test_history_lists_and_shows_games(cli, played):
    proc = cli("history", "--db", str(played))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["id", "started", "players", "rules", "events", "result"]
    assert lines[1].split()[0] == "1" and "Ann, Bob" in lines[1] and "round, 9 tiles" in lines[1]
    assert lines[1].rstrip().endswith("Bob wins")
    shown = cli("history", "show", "1", "--db", str(played))
    assert shown.returncode == 0, shown.stderr
    assert ("round 1, turn 1: Ann (shut) — 6 + 6 = 12 → shut 9 + 3; 6 + 6 = 12 → shut 8 + 4; 2 + 2 = 4 (no move) "
            "— left 1 2 5 6 7 — score 21") in shown.stdout
    assert ("round 1, turn 2: Bob (shut) — 6 + 6 = 12 → shut 9 + 3; 6 + 6 = 12 → shut 8 + 4; 6 + 6 = 12 → shut "
            "7 + 5; 6 + 6 = 12 (no move) — left 1 2 6 — score 9") in shown.stdout
    assert "game over: Bob wins" in shown.stdout


@pytest.mark.slow
def test_history_show_json_is_the_game_file_scorepad_reads(cli, played, tmp_path):
    proc = cli("history", "--db", str(played), "show", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["format"] == "shutbox-game" and data["version"] == 1
    assert data["settings"]["match"] == "round" and data["settings"]["tiles"] == 9
    assert [e["type"] for e in data["events"]][:3] == ["players", "throw", "shut"]
    assert all("at" in e for e in data["events"])
    path = tmp_path / "game.json"
    path.write_text(proc.stdout, encoding="utf-8")
    game = load_game(path)
    assert game.finished and game.winners == ("Bob",)
    pdf = tmp_path / "sheet.pdf"
    pad = cli("scorepad", "--from-game", str(path), "--out", str(pdf))
    assert pad.returncode == 0, pad.stderr
    assert pdf.read_bytes().startswith(b"%PDF")
    from pypdf import PdfReader

    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Ann" in text and "Bob" in text and "21" in text


@pytest.mark.slow
def test_history_of_nothing_and_bad_ids(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    proc = cli("history")
    assert proc.returncode == 0 and proc.stdout.startswith("no games saved yet")
    assert not (tmp_path / "data" / "shutbox").exists()  # listing creates nothing
    missing = cli("history", "show", "3", "--json")
    assert missing.returncode == 2 and "game 3: no such game" in missing.stderr
    GameStore(tmp_path / "data" / "shutbox" / "games.sqlite3").close()
    missing = cli("history", "show", "3")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "game 3: no such game" in missing.stderr
    bad = cli("history", "show", "three")
    assert bad.returncode == 2 and "game three: allowed: a whole number from 1 to" in bad.stderr
    junk = tmp_path / "junk.db"
    junk.write_text("not a database" * 50)
    proc = cli("history", "--db", str(junk))
    assert proc.returncode == 2 and "not a shutbox game database" in proc.stderr
