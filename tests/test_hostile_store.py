"""The game database against a second scorekeeper, kill -9, newer versions, damage and read-only media
(issue 11, item 4)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.store.database import SCHEMA_VERSION, GameStore, open_read_only
from shutbox.game import events as ev
from shutbox.game.gamefile import settings_of
from shutbox.kit.model import Rules


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(proc, *parts: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    for part in parts:
        assert part in proc.stderr, proc.stderr


def make_db(path: Path, events: int = 3) -> None:
    """A database with one unfinished round game: Ann threw 3 4 and shut 7, and so on."""
    with GameStore(path) as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        moves = [ev.throw(3, 4), ev.shut(7), ev.throw(4, 4), ev.shut(8)]
        for event in moves[: events - 1]:
            store.append(gid, event)
    settle(path)


def settle(path: Path) -> None:
    """Fold the WAL into the file and drop the side files, so the file alone is the database."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm", "-lock"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


# -- one writer per game --------------------------------------------------------------------------------------


def test_a_second_scorekeeper_is_refused_naming_the_holder(tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    with GameStore(db) as first, GameStore(db) as second:
        first.claim(1)
        with pytest.raises(ShutboxError, match=rf"game 1 .* being kept by another scorekeeper \(pid {os.getpid()} on "):
            second.claim(1)
        with pytest.raises(ShutboxError, match="being kept by another scorekeeper"):
            second.append(1, ev.throw(1, 1))
        assert first.append(1, ev.throw(1, 2)) == 3
    with GameStore(db) as third:  # the first one closed: the game is free again
        third.claim(1)
        assert len(third.events(1)) == 4


def test_records_never_interleave_even_if_the_lock_file_is_taken_away(tmp_path):
    """Belt and braces: with the lock file deleted under a holder, the sequence check still refuses."""
    db = tmp_path / "g.sqlite3"
    make_db(db)
    with GameStore(db) as first:
        first.claim(1)
        Path(f"{db}-lock").unlink()
        with GameStore(db) as second:
            second.claim(1)  # a new lock file: this one now believes it holds the game
            assert second.append(1, ev.throw(1, 2)) == 3
            with pytest.raises(ShutboxError, match="changed by another scorekeeper"):
                first.append(1, ev.throw(6, 6))
    with open_read_only(db) as store:
        assert [e["type"] for e in store.events(1)] == ["players", "throw", "shut", "throw"]


HOLD = """
import sys, time
from shutbox.companion.store.database import GameStore
store = GameStore(sys.argv[1]); store.claim(1); print("held", flush=True); time.sleep(60)
"""


def test_a_holder_killed_by_sigkill_frees_the_game(tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with GameStore(db) as other, pytest.raises(ShutboxError, match=rf"pid {holder.pid} on "):
            other.claim(1)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        with GameStore(db) as other:
            other.claim(1)  # the kernel released the lock with the process
            assert other.append(1, ev.throw(2, 2)) == 3
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_two_play_resumes_on_one_game_the_second_is_refused(tmp_path):
    db = tmp_path / "g.sqlite3"
    first = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                              "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdin is not None and first.stdout is not None
        first.stdin.write("3 4\n")
        first.stdin.flush()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "threw 3 + 4" not in first.stdout.readline():
            pass
        second = subprocess.run([sys.executable, "-m", "shutbox", "play", "--port", "none", "--resume", "--db",
                                 str(db)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        one_line_error(second, "game 1", "being kept by another scorekeeper", f"pid {first.pid}")
        first.stdin.write("shut 7\nquit\n")
        first.stdin.flush()
        assert first.wait(timeout=30) == 0
    finally:
        first.kill()
        first.wait()
    with open_read_only(db) as store:
        assert [e["type"] for e in store.events(1)] == ["players", "throw", "shut"]


# -- versions ---------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_schema_version_is_stored_and_a_newer_database_is_refused_untouched(cli, tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    settle(db)
    before = digest(db)
    for args in (["history"], ["history", "show", "1"], ["play", "--port", "none", "--resume"],
                 ["sim", "--demo", "--speed", "1000"]):
        one_line_error(cli(*args, "--db", str(db)), "made by a newer shutbox", "left untouched")
    assert digest(db) == before
    assert {p.name for p in tmp_path.iterdir()} <= {"g.sqlite3", "g.sqlite3-wal", "g.sqlite3-shm"}
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0


def test_a_database_from_before_versioning_is_read_as_is_and_upgraded_by_a_writer(tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA user_version = 0")
    settle(db)
    before = digest(db)
    with open_read_only(db) as store:
        assert len(store.events(1)) == 3
    assert digest(db) == before
    with GameStore(db) as store:
        store.claim(1)  # claiming writes nothing
        assert digest(db) == before
        store.append(1, ev.throw(2, 2))  # the first write upgrades
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


# -- damage -------------------------------------------------------------------------------------------------------


def _damage(path: Path, kind: str) -> None:
    data = path.read_bytes()
    raw = {
        "truncated": data[: len(data) // 2],
        "header": b"SQLite format 3\x00" + b"\xff" * (len(data) - 16),
        "zeroed": data[:100] + b"\x00" * (len(data) - 100),
        "page": data[:4096] + bytes(range(256)) * 16 + data[8192:],
    }
    if kind in raw:
        path.write_bytes(raw[kind])
        return
    if kind == "no events table":
        sql = "DROP TABLE events"
    elif kind == "foreign":
        sql = "PRAGMA application_id = 7"
    else:
        sql = {
            "event not json": "UPDATE events SET event = '{not json' WHERE seq = 1",
            "event nested deep": "UPDATE events SET event = '" + "[" * 100_000 + "' WHERE seq = 1",
            "event digits": "UPDATE events SET event = '{\"v\":1,\"type\":\"throw\",\"dice\":[" + "9" * 5000
                            + "]}' WHERE seq = 1",
            "event NaN": "UPDATE events SET event = '{\"v\":1,\"type\":\"throw\",\"dice\":[3,4],\"at\":NaN}' "
                         "WHERE seq = 1",
            "event blob": "UPDATE events SET event = x'00ff' WHERE seq = 1",
            "event null": "UPDATE events SET event = 'null' WHERE seq = 1",
            "event huge": "UPDATE events SET event = '\"' || hex(zeroblob(3000000)) || '\"' WHERE seq = 1",
            "escape in a name": "UPDATE events SET event = '{\"v\":1,\"type\":\"players\",\"names\":"
                                "[\"A\\u001b[2J\",\"B\"]}' WHERE seq = 0",
            "settings not an object": "UPDATE games SET settings = '[1,2]'",
            "players not a list": "UPDATE games SET players = '{\"a\":1}'",
            "created text": "UPDATE games SET created = 'yesterday'",
            "created 1e300": "UPDATE games SET created = 1e300",
            "finished text": "UPDATE games SET finished = 'soon'",
        }[kind]
    with sqlite3.connect(path) as con:
        con.execute(sql)
    settle(path)


STRUCTURAL = ["truncated", "header", "zeroed", "page", "no events table", "foreign"]
RECORDS = ["event not json", "event nested deep", "event digits", "event NaN", "event blob", "event null",
           "event huge", "escape in a name", "settings not an object", "players not a list", "created text",
           "created 1e300"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", STRUCTURAL + RECORDS)
def test_a_damaged_database_is_one_line_and_nothing_is_written_into_it(cli, tmp_path, kind):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    _damage(db, kind)
    before = digest(db)
    for args in (["history"], ["history", "show", "1"], ["history", "show", "1", "--json"],
                 ["play", "--port", "none", "--resume"]):
        proc = cli(*args, "--db", str(db))
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 2) and proc.stderr.count("\n") <= 1, proc.stderr
        assert "\x1b" not in proc.stdout + proc.stderr
        if args[0] == "play":
            assert proc.returncode == 2, proc.stdout
    if kind in STRUCTURAL:
        one_line_error(cli("sim", "--demo", "--speed", "1000", "--db", str(db)))
    assert digest(db) == before


# -- read-only use ------------------------------------------------------------------------------------------------


@pytest.fixture
def read_only_copy(tmp_path):
    """A WAL database on a read-only bind mount (skipped where mounting is not allowed)."""
    src = tmp_path / "src"
    src.mkdir()
    make_db(src / "g.sqlite3")
    with sqlite3.connect(src / "g.sqlite3") as con:  # as an older shutbox left it: WAL mode
        assert con.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    ro = tmp_path / "ro"
    ro.mkdir()
    if subprocess.run(["mount", "--bind", "-o", "ro", str(src), str(ro)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount read-only here (needs root)")
    subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], capture_output=True)
    try:
        if os.access(ro, os.W_OK) and not os.statvfs(ro).f_flag & os.ST_RDONLY:
            pytest.skip("the bind mount is not read-only")
        yield ro / "g.sqlite3"
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)


@pytest.mark.slow
def test_history_works_on_read_only_media(cli, read_only_copy):
    listed = cli("history", "--db", str(read_only_copy))
    assert listed.returncode == 0, listed.stderr
    assert "Ann, Bob" in listed.stdout
    shown = cli("history", "show", "1", "--json", "--db", str(read_only_copy))
    assert shown.returncode == 0, shown.stderr
    one_line_error(cli("play", "--port", "none", "--resume", "--db", str(read_only_copy)))


@pytest.mark.slow
def test_read_only_commands_write_nothing(cli, tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    before = digest(db)
    for args in (["history"], ["history", "show", "1"], ["history", "show", "1", "--json"]):
        assert cli(*args, "--db", str(db)).returncode == 0
    assert digest(db) == before
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(db, copy)
    with open_read_only(copy) as store, pytest.raises(ShutboxError, match="read-only"):
        store.append(1, ev.throw(1, 1))
    assert digest(copy) == before


# -- read-only means read-only; nothing left beside the database (issue 29, faults 10, 11, 16) ----------------------


def beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


READERS = [["history"], ["history", "show", "1"], ["history", "show", "1", "--json"], ["review", "1"], ["stats"]]


def _as_older_shutbox_left_it(db: Path) -> None:
    """WAL mode without its side files: how shutbox's writers left a database before this change."""
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    settle(db)


@pytest.mark.parametrize("mode", ["as a writer leaves it", "WAL, from an older shutbox"])
def test_read_only_commands_leave_nothing_beside_the_database(cli, tmp_path, mode):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    if mode.startswith("WAL"):
        _as_older_shutbox_left_it(db)
    before, files = digest(db), beside(db)
    assert files == ["g.sqlite3"]
    for args in READERS:
        proc = cli(*args, "--db", str(db), cwd=tmp_path)
        assert proc.returncode == 0, (args, proc.stderr)
        assert beside(db) == files, (args, beside(db))
    assert digest(db) == before


def test_a_writer_leaves_nothing_but_the_database(tmp_path):
    db = tmp_path / "g.sqlite3"
    with GameStore(db) as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        store.append(gid, ev.throw(3, 4))
    assert beside(db) == ["g.sqlite3"]
    with open_read_only(db) as store:
        assert len(store.events(gid)) == 2


def test_reading_while_a_game_is_written_sees_its_moves_and_adds_no_file(cli, tmp_path):
    db = tmp_path / "g.sqlite3"
    with GameStore(db) as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        store.append(gid, ev.throw(3, 4))
        during = beside(db)  # the writer's own -wal, -shm and -lock
        shown = cli("history", "show", str(gid), "--json", "--db", str(db))
        assert shown.returncode == 0, shown.stderr
        assert len(json.loads(shown.stdout)["events"]) == 2
        assert beside(db) == during
        store.append(gid, ev.shut(7))
    assert beside(db) == ["g.sqlite3"]


def test_a_refused_resume_leaves_no_lock_file(cli, tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    with sqlite3.connect(db) as con:  # a record the rules refuse: shut 7 after a throw of 3 + 4 became shut 9
        con.execute("UPDATE events SET event = '{\"v\":1,\"type\":\"shut\",\"tiles\":[9]}' WHERE seq = 2")
    settle(db)
    files = beside(db)
    proc = cli("play", "--port", "none", "--resume", "--db", str(db))
    one_line_error(proc)
    assert beside(db) == files


def test_one_unreadable_game_is_named_and_the_others_listed(cli, tmp_path):
    db = tmp_path / "g.sqlite3"
    make_db(db)
    with GameStore(db) as store:
        store.new_game(settings_of(Rules()), ev.players(["Cy", "Di"]))
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET players = '{\"a\":1}' WHERE id = 1")
    settle(db)
    proc = cli("history", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.split()[0] == "2" and "Cy, Di" in line for line in lines[1:]), proc.stdout
    assert any(line.split()[0] == "1" and "unreadable" in line for line in lines[1:]), proc.stdout
