"""Durable game history: every event is committed to SQLite before anything is shown.

A game is a row in ``games`` plus its append-only ``events``; the state of a game is derived by
replaying its events with the rules engine, so a crashed game resumes exactly. Each write is one
transaction (WAL journal, ``synchronous=FULL``): a game is created together with its ``players``
event, and the event that ends a game marks it finished in the same commit, so a process killed at
any moment leaves either the whole write or none of it.

Safety against other writers and damaged files:

- **Schema version** in ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`): a database made by a newer
  shutbox is refused untouched; a shutbox database from before versioning is upgraded when opened for
  writing. A foreign or damaged file (``PRAGMA quick_check``) is refused before anything is written.
- **One writer per game**: :meth:`GameStore.claim` takes an OS lock on the game (:mod:`.lock`: an open-file-description
  byte lock in ``PATH-lock``, released by the kernel when its process dies, even by ``kill -9``) and
  writes who holds it (pid, host, since) into that file, not into the database; a second scorekeeper is
  refused, naming the holder. Every append runs in ``BEGIN IMMEDIATE`` and checks that the game's next
  sequence number is the one this store expects and that the lock is still its own, so records can
  never interleave.
- **Held tiles** (throws optional): tiles moved on the box with no throw entered are not events until the
  turn ends; :meth:`GameStore.hold` saves them (one row per game in ``held``, replaced each time) before
  they are shown, so a restarted scorekeeper goes on with them. The row names the number of events
  recorded when it was written, and :meth:`GameStore.held` ignores it once another event is recorded.
- **Nothing is written** until the first event is: opening, claiming and reading a game leave the file
  as it was (an older database is upgraded with the first write).
- **Read-only use** (``history``, ``review``, ``stats``): :func:`connect_read_only` / :func:`open_read_only`
  open the file with ``mode=ro`` (``immutable=1`` on read-only media), never create, migrate or lock it.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.companion.store.lock import GameLocks
from shutbox.game.events import Event, PlayersEvent

#: ``PRAGMA application_id`` of a shutbox game database ("SBX1").
APPLICATION_ID = 0x53425831
#: ``PRAGMA user_version``: the schema this shutbox reads and writes.
SCHEMA_VERSION = 2
#: The first schema with the ``held`` table.
HELD_SCHEMA = 2
#: The path of a database kept in memory only (a simulated game that is not kept).
MEMORY = ":memory:"
#: Largest stored JSON value read back (a settings object, a player list, one event), in characters.
MAX_ROW_TEXT = 64 * 1024

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    settings TEXT NOT NULL,
    players TEXT NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS readings (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    source TEXT NOT NULL,
    dice TEXT NOT NULL,
    unsure INTEGER NOT NULL,
    image BLOB NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS held (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    tiles TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Reading:
    """A camera reading kept with a game: the throw event it became, what was read, the picture (JPEG)."""

    seq: int
    source: str
    dice: list[int]
    unsure: int
    image: bytes


def default_db_path() -> Path:
    """``games.sqlite3`` in the user's data folder (platformdirs; honours XDG_DATA_HOME)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("shutbox", appauthor=False)) / "games.sqlite3"


def _where(path: Path | str) -> str:
    return f"--db {shown(str(path), 200)}"


# -- opening ---------------------------------------------------------------------------------------


def _read_only_media(path: Path) -> bool:
    try:
        return bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY) or not os.access(path.parent, os.W_OK)
    except OSError:
        return False


#: Largest WAL-mode database read into memory to be read without leaving files beside it, in bytes.
MAX_SNAPSHOT = 256 * 1024 * 1024


def connect_read_only(path: Path | str) -> sqlite3.Connection:
    """A read-only SQLite connection to an existing shutbox game database, checked; ShutboxError if not.

    Nothing is ever created, migrated or written, and nothing is left beside the file:

    - a database in rollback-journal mode (how every writer leaves it, :meth:`GameStore.close`) is opened with
      ``mode=ro`` (``immutable=1`` where the folder cannot be written at all: read-only media);
    - a WAL database whose ``-wal`` and ``-shm`` are both there, in a folder that can be written (a writer at work,
      or one killed), is opened with ``mode=ro``, sharing them: the moves saved a moment ago are seen;
    - any other WAL database (no side files, left by an older shutbox; a ``-wal`` without its ``-shm``; a killed
      writer's files on read-only media) would make SQLite create side files, or cannot be opened with its
      ``-wal``: the file and its ``-wal`` are copied into a private temporary folder, SQLite reads them there
      (replaying the ``-wal``: the games a killed ``play`` saved are all there) and the result is kept in memory.

    The file must be a shutbox game database of a schema this shutbox reads. For ``history``, ``review``, ``stats``.
    """
    path = Path(path)
    _check_is_file(path)
    if _is_wal_file(path) and not (_both_sides(path) and not _read_only_media(path)):
        return _snapshot(path)
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=10, isolation_level=None)
    except sqlite3.Error as exc:
        raise ShutboxError(f"{_where(path)}: cannot be opened ({shown(str(exc), 120)})") from None
    try:
        _check_header(db, path)
    except ShutboxError as exc:
        db.close()
        if "unable to open" not in str(exc) or not _read_only_media(path):
            raise
        db = sqlite3.connect(uri + "&immutable=1", uri=True, timeout=10, isolation_level=None)
        try:
            _check_header(db, path)
        except BaseException:
            db.close()
            raise
    return db


def _check_is_file(path: Path) -> None:
    """One line for a --db that is no file: missing, a folder, a device."""
    if path.is_dir():
        raise ShutboxError(f"{_where(path)}: is a folder, not a game database; give the database file (games are "
                           "saved by `shutbox play`)")
    if path.exists() and not path.is_file():
        raise ShutboxError(f"{_where(path)}: is not a regular file (a device or a pipe), not a game database")
    if not path.is_file():
        raise ShutboxError(f"{_where(path)}: no such game database (games are saved by `shutbox play`)")


def _is_wal(head: bytes) -> bool:
    """Does a database file's header say WAL mode (file format read/write versions 2)?"""
    return len(head) >= 20 and head.startswith(b"SQLite format 3\x00") and head[18] == 2 and head[19] == 2


def _is_wal_file(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return _is_wal(f.read(20))
    except OSError:
        return False


def _sides(path: Path) -> tuple[Path, Path]:
    return Path(f"{path}-wal"), Path(f"{path}-shm")


def _both_sides(path: Path) -> bool:
    return all(p.exists() for p in _sides(path))


def _state(path: Path) -> tuple[tuple[int, int], ...]:
    """Size and modification time of the file and its ``-wal`` (zeros when missing): to see a writer at work."""
    out = []
    for p in (path, _sides(path)[0]):
        try:
            st = p.stat()
            out.append((st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            out.append((0, 0))
    return tuple(out)


def _copy_with_wal(path: Path, copy: Path) -> None:
    """Copy the database and its ``-wal`` (if any) to ``copy``, again if a writer changed them meanwhile."""
    wal = _sides(path)[0]
    for _ in range(3):
        before = _state(path)
        if before[0][0] + before[1][0] > MAX_SNAPSHOT:
            raise ShutboxError(f"{_where(path)}: a WAL database over {MAX_SNAPSHOT // (1024 * 1024)} MB cannot be "
                               "read without writing beside it; open it once with `shutbox play --resume` "
                               "on a writable copy")
        try:
            shutil.copyfile(path, copy)
            if wal.exists():
                shutil.copyfile(wal, f"{copy}-wal")
        except FileNotFoundError:
            continue  # a writer finished meanwhile: look again
        except OSError as exc:
            raise ShutboxError(f"{_where(path)}: cannot be read ({shown(exc.strerror or str(exc), 120)})") from None
        if _state(path) == before and not (_both_sides(path) and not _read_only_media(path)):
            break
    if not Path(f"{copy}-wal").exists():  # nothing to replay: read the copy as a rollback-journal database
        with open(copy, "r+b") as f:
            f.seek(18)
            f.write(b"\x01\x01")


def _snapshot(path: Path) -> sqlite3.Connection:
    """A WAL database and its ``-wal`` read through copies in a private folder, into memory (query-only)."""
    with tempfile.TemporaryDirectory(prefix="shutbox-read-") as tmp:
        copy = Path(tmp) / "games.sqlite3"
        _copy_with_wal(path, copy)
        try:
            source = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True, isolation_level=None)
        except sqlite3.Error as exc:
            raise ShutboxError(f"{_where(path)}: not a shutbox game database ({shown(str(exc), 120)})") from None
        try:
            _check_header(source, path)
            data = bytearray(source.serialize())
        except sqlite3.Error as exc:
            raise ShutboxError(f"{_where(path)}: not a shutbox game database ({shown(str(exc), 120)})") from None
        finally:
            source.close()
    data[18] = data[19] = 1  # the copy is read as a rollback-journal database
    db = sqlite3.connect(MEMORY, isolation_level=None)
    try:
        db.deserialize(bytes(data))
        db.execute("PRAGMA query_only = 1")
    except sqlite3.Error as exc:
        db.close()
        raise ShutboxError(f"{_where(path)}: not a shutbox game database ({shown(str(exc), 120)})") from None
    return db


def _check_header(db: sqlite3.Connection, path: Path) -> int:
    """Check application id and schema version (reading only); return the schema version."""
    try:
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        (version,) = db.execute("PRAGMA user_version").fetchone()
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise ShutboxError(f"{_where(path)}: not a shutbox game database ({shown(str(exc), 120)})") from None
    if app_id == 0 and not tables:
        return 0  # a new, empty file
    if app_id != APPLICATION_ID:
        raise ShutboxError(f"{_where(path)}: not a shutbox game database (it holds other data)")
    if version > SCHEMA_VERSION:
        raise ShutboxError(f"{_where(path)}: made by a newer shutbox (database schema {version}; this one reads "
                           f"up to {SCHEMA_VERSION}); it was left untouched")
    if not {"games", "events"} <= tables:
        raise ShutboxError(f"{_where(path)}: damaged game database (its tables are missing); nothing was written")
    return version


def _check_intact(db: sqlite3.Connection, path: Path) -> None:
    try:
        problems = [r[0] for r in db.execute("PRAGMA quick_check(3)").fetchall()]
    except sqlite3.Error as exc:
        problems = [str(exc)]
    if problems != ["ok"]:
        raise ShutboxError(f"{_where(path)}: damaged game database ({shown('; '.join(map(str, problems)), 120)}); "
                           "nothing was written into it")


def open_read_only(path: Path | str) -> GameStore:
    """A :class:`GameStore` that only reads (see :func:`connect_read_only`); its writing methods refuse."""
    return GameStore(path, read_only=True)


def _connect(path: Path) -> sqlite3.Connection:
    """A writing connection; nothing is written until :func:`_upgrade` or the first transaction."""
    db = sqlite3.connect(path, isolation_level=None, timeout=10)
    try:
        _check_header(db, path)  # again, now that it is open: nobody swapped it meanwhile
        db.execute("PRAGMA synchronous=FULL")
    except BaseException:
        db.close()
        raise
    return db


def _upgrade(db: sqlite3.Connection) -> None:
    """Give a new or older database the current schema, WAL journal, application id and version."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in filter(str.strip, SCHEMA.split(";")):
            db.execute(statement)
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# -- the store -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRow:
    """One stored game, as listed by ``shutbox history``."""

    id: int
    created: float
    settings: dict[str, Any]
    players: list[str]
    finished: float | None
    events: int


@dataclass(frozen=True)
class Unreadable:
    """A stored game whose row cannot be read (``shutbox history`` names it and lists the others)."""

    id: object  #: as stored (normally an int)
    problem: str


class GameStore:
    """Games and their events in one SQLite file; every write is its own committed transaction.

    ``read_only``: open with :func:`connect_read_only` (nothing is created, migrated or locked).
    ``path`` :data:`MEMORY` keeps the games in memory only.
    """

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._locks: GameLocks | None = None
        self._version = SCHEMA_VERSION
        self._next: dict[int, int] = {}  #: game -> the seq its next event must get (games claimed here)
        self._wrote = False  #: this store has written (and so set WAL mode, put back to rollback on close)
        if read_only:
            self.db = connect_read_only(self.path)
            self._version = _check_header(self.db, self.path)
            return
        self.db = self._open_for_writing()

    def _open_for_writing(self) -> sqlite3.Connection:
        if str(self.path) == MEMORY:
            db = sqlite3.connect(MEMORY, isolation_level=None)
            db.executescript(SCHEMA)
            self._locks = GameLocks(None)
            return db
        existed = self.path.exists()
        if existed and _read_only_media(self.path):
            raise ShutboxError(f"{_where(self.path)}: its folder cannot be written (read-only media?), so no game can "
                               "be saved or resumed there; copy it to a writable folder and play on that copy "
                               "(`history` and `stats` read it where it is)")
        self._version = self._inspect() if existed else self._make_folder()
        try:
            db = _connect(self.path)
        except sqlite3.Error as exc:
            if not existed:  # remove the empty file this attempt made
                for leftover in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                    leftover.unlink(missing_ok=True)
            raise ShutboxError(f"{_where(self.path)}: cannot be opened for writing ({shown(str(exc), 120)})") \
                from None
        self._locks = GameLocks(self.path)
        return db

    def _inspect(self) -> int:
        """Look at an existing file without writing (foreign, newer or damaged files stay untouched); its schema."""
        if not self.path.is_file():
            raise ShutboxError(f"{_where(self.path)}: is not a file")
        with closing(connect_read_only(self.path)) as ro:
            version = _check_header(ro, self.path)
            _check_intact(ro, self.path)
        return version

    def _make_folder(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ShutboxError(f"{_where(self.path)}: cannot create its folder ({shown(exc.strerror or exc)})") \
                from None
        return 0

    def close(self) -> None:
        """Let go of the games and the file. A store that wrote leaves the file in rollback-journal mode (when no
        other connection is using it), so a later read-only open needs no ``-wal``/``-shm`` beside it."""
        if self._wrote and str(self.path) != MEMORY:
            try:
                self.db.execute("PRAGMA busy_timeout = 0")
                self.db.execute("PRAGMA journal_mode = DELETE")  # checkpoints; refused while others read or write
            except sqlite3.Error:
                pass
        if self._locks is not None:
            self._locks.close()
        self.db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    def _writable(self) -> GameLocks:
        if self.read_only or self._locks is None:
            raise ShutboxError(f"{_where(self.path)}: opened read-only")
        return self._locks

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction (``BEGIN IMMEDIATE``); an older or new database gets its schema first."""
        try:
            if self._version < SCHEMA_VERSION:
                _upgrade(self.db)
                self._version = SCHEMA_VERSION
            if not self._wrote and str(self.path) != MEMORY:
                self.db.execute("PRAGMA journal_mode = WAL")  # while this store writes: readers never wait
            self._wrote = True
            with closing(self.db.cursor()) as cur:
                cur.execute("BEGIN IMMEDIATE")
                try:
                    yield cur
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
                cur.execute("COMMIT")
        except sqlite3.Error as exc:
            raise ShutboxError(f"{_where(self.path)}: could not save ({shown(str(exc), 120)})") from None

    def claim(self, game_id: int) -> None:
        """Become the one scorekeeper of ``game_id``; ShutboxError naming the holder if another has it.

        Nothing is written into the database: the lock and the holder's name live in ``PATH-lock``.
        """
        locks = self._writable()
        if game_id in locks.held:
            return
        self.game(game_id)  # an unknown or damaged game is refused before anything is locked
        try:
            got = locks.acquire(game_id)
        except OSError as exc:
            raise ShutboxError(f"{_where(self.path)}: cannot lock game {game_id} ({shown(exc.strerror or exc)})") \
                from None
        if not got:
            raise ShutboxError(f"game {game_id} in {shown(str(self.path), 200)} is being kept by another scorekeeper "
                               f"({self._holder(game_id)}); finish or quit that one first")
        (count,) = self._rows("SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?", (game_id,))[0]
        self._next[game_id] = int(count)

    def _holder(self, game_id: int) -> str:
        words = self._locks.holder(game_id) if self._locks is not None else []
        if not words:
            return "a process that holds its lock"
        pid, host, since, _ = words
        when = time.strftime("%H:%M:%S", time.localtime(int(since))) if since.isdigit() else "?"
        return f"pid {shown(pid, 12)} on {shown(host, 60)} since {when}"

    def new_game(self, settings: dict[str, Any], players_event: PlayersEvent) -> int:
        """Create a game with its first event (``players``) in one transaction, claimed by this store; its id."""
        locks = self._writable()
        names = list(players_event.names)
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO games (created, settings, players) VALUES (?, ?, ?)",
                (time.time(), json.dumps(settings, sort_keys=True), json.dumps(names)),
            )
            game_id = int(cur.lastrowid or 0)
            cur.execute("INSERT INTO events (game_id, seq, event) VALUES (?, 0, ?)",
                        (game_id, json.dumps(players_event.to_dict(), sort_keys=True)))
            try:
                got = locks.acquire(game_id)  # a fresh id: only a stale holder of a deleted game could have it
            except OSError as exc:
                raise ShutboxError(f"{_where(self.path)}: cannot lock game {game_id} ({shown(exc.strerror)})") \
                    from None
            if not got:
                raise ShutboxError(f"{_where(self.path)}: game {game_id} is locked by another process")
        self._next[game_id] = 1
        return game_id

    def append(self, game_id: int, event: Event, finished: bool = False) -> int:
        """Commit one event (and, if ``finished``, the game's end) in one transaction; return its seq (0-based).

        The game is claimed first if it is not yet (:meth:`claim`). Refused (ShutboxError, nothing saved)
        when the record grew behind this store's back or the lock is no longer this store's.
        """
        self.claim(game_id)
        locks = self._writable()
        expected = self._next[game_id]
        with self._transaction() as cur:
            (seq,) = cur.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?",
                                 (game_id,)).fetchone()
            if seq != expected or not locks.still_mine(game_id):
                raise ShutboxError(f"game {game_id} in {shown(str(self.path), 200)} was changed by another "
                                   f"scorekeeper ({self._holder(game_id)}); nothing was saved from here")
            cur.execute("INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
                        (game_id, seq, json.dumps(event.to_dict(), sort_keys=True)))
            if finished:
                cur.execute("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), game_id))
        self._next[game_id] = int(seq) + 1
        return int(seq)

    def keep_reading(self, game_id: int, seq: int, source: str, dice: list[int], unsure: int, image: bytes) -> None:
        """Keep the camera's reading that became event ``seq`` (its picture, a small JPEG, and what was read)."""
        self.claim(game_id)
        with self._transaction() as cur:
            cur.execute("INSERT OR REPLACE INTO readings (game_id, seq, source, dice, unsure, image) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (game_id, seq, source, json.dumps(dice), unsure, image))

    def readings(self, game_id: int) -> list[Reading]:
        """The camera readings kept with the game, by the seq of the throw each became (none in an older file)."""
        if not self._rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'readings'"):
            return []
        out = []
        for seq, source, dice, unsure, image in self._rows(
                "SELECT seq, source, dice, unsure, image FROM readings WHERE game_id = ? ORDER BY seq", (game_id,)):
            values = _json(dice, f"game {game_id}, reading {seq}", self.path)
            if not isinstance(values, list) or not all(isinstance(v, int) for v in values):
                raise ShutboxError(f"game {game_id} in {shown(str(self.path), 200)}: reading {seq} is damaged")
            out.append(Reading(int(seq), str(source), values, int(unsure), bytes(image)))
        return out

    def hold(self, game_id: int, turn: int, tiles: tuple[int, ...]) -> None:
        """Save the tiles held in ``turn`` (moved with no throw entered; see the module docstring), replacing
        what was held before, in one transaction (ShutboxError, nothing saved, as for :meth:`append`)."""
        self.claim(game_id)
        locks = self._writable()
        seq = self._next[game_id]
        with self._transaction() as cur:
            if not locks.still_mine(game_id):
                raise ShutboxError(f"game {game_id} in {shown(str(self.path), 200)} was taken by another "
                                   f"scorekeeper ({self._holder(game_id)}); nothing was saved from here")
            cur.execute("INSERT OR REPLACE INTO held (game_id, seq, turn, tiles) VALUES (?, ?, ?, ?)",
                        (game_id, seq, turn, json.dumps(sorted(tiles))))

    def held(self, game_id: int) -> tuple[int, tuple[int, ...]] | None:
        """The turn and tiles held when the game's record was as it is now (:meth:`hold`), or None."""
        if self._version < HELD_SCHEMA:
            return None  # an older database, not yet upgraded: nothing was ever held in it
        rows = self._rows("SELECT seq, turn, tiles FROM held WHERE game_id = ?", (game_id,))
        if not rows:
            return None
        seq, turn, text = rows[0]
        (count,) = self._rows("SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?", (game_id,))[0]
        if seq != count:
            return None  # events were recorded since: the held tiles are in them, or were put back
        tiles = _json(text, f"game {game_id}, held tiles", self.path)
        if type(turn) is not int or not isinstance(tiles, list) or not all(type(t) is int for t in tiles):
            raise ShutboxError(f"game {game_id} in {shown(str(self.path), 200)}: its held tiles are damaged")
        return turn, tuple(tiles)

    def finish(self, game_id: int) -> None:
        """Mark a game finished (for a record that ended without :meth:`append` saying so)."""
        self.claim(game_id)
        with self._transaction() as cur:
            cur.execute("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), game_id))

    # -- reading -------------------------------------------------------------------------------

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if self._version == 0 and "no such table" in str(exc):
                return []  # a new, empty database: no games yet
            raise ShutboxError(f"{_where(self.path)}: damaged game database ({shown(str(exc), 120)})") from None
        except sqlite3.Error as exc:
            raise ShutboxError(f"{_where(self.path)}: damaged game database ({shown(str(exc), 120)})") from None

    def events(self, game_id: int) -> list[dict[str, Any]]:
        """The game's events in order (each checked to be a JSON object; its contents are the replay's to judge)."""
        out = []
        for seq, text in self._rows("SELECT seq, event FROM events WHERE game_id = ? ORDER BY seq", (game_id,)):
            value = _json(text, f"game {game_id}, event {seq}", self.path)
            if not isinstance(value, dict):
                raise ShutboxError(f"game {game_id} in {shown(str(self.path), 200)}: event {seq} is not an event "
                                   "object (damaged record)")
            out.append(value)
        return out

    def game(self, game_id: int) -> GameRow:
        rows = self._rows(_SELECT + " WHERE g.id = ?", (game_id,))
        if not rows:
            raise ShutboxError(f"game {shown(game_id)}: no such game in {shown(str(self.path), 200)} "
                               "(see `shutbox history`)")
        return _row(rows[0], self.path)

    def games(self) -> list[GameRow]:
        return [_row(row, self.path) for row in self._rows(_SELECT + " ORDER BY g.id")]

    def listing(self) -> list[GameRow | Unreadable]:
        """Every game in order; one whose row is damaged is an :class:`Unreadable` naming it, the others are read."""
        found: list[GameRow | Unreadable] = []
        for row in self._rows(_SELECT + " ORDER BY g.id"):
            try:
                found.append(_row(row, self.path))
            except ShutboxError as exc:
                found.append(Unreadable(row[0], str(exc)))
        return found

    def latest_unfinished(self) -> GameRow | None:
        rows = self._rows("SELECT MAX(id) FROM games WHERE finished IS NULL")
        return self.game(rows[0][0]) if rows and rows[0][0] is not None else None


_SELECT = ("SELECT g.id, g.created, g.settings, g.players, g.finished,"
           " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) FROM games g")


def _json(text: Any, where: str, path: Path) -> Any:
    from shutbox.base.bounded import parse_json

    if not isinstance(text, str) or len(text) > MAX_ROW_TEXT:
        raise ShutboxError(f"{where} in {shown(str(path), 200)}: not JSON text (damaged record)")
    try:
        return parse_json(text, f"{where} in {shown(str(path), 200)}")
    except ShutboxError as exc:
        raise ShutboxError(f"{exc} (damaged record)") from None


def _time(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and \
        0 <= value <= 1e11


def _row(row: tuple[Any, ...], path: Path) -> GameRow:
    """A ``games`` row, every column checked (a damaged one is a ShutboxError naming the game)."""
    game_id, created, settings, players, finished, count = row
    where = f"game {shown(game_id)}"
    settings = _json(settings, where, path)
    players = _json(players, where, path)
    if (type(game_id) is not int or not _time(created) or not isinstance(settings, dict)
            or not isinstance(players, list) or not all(isinstance(p, str) for p in players)
            or not (finished is None or _time(finished))):
        raise ShutboxError(f"{where} in {shown(str(path), 200)}: damaged record (a column holds an impossible value)")
    return GameRow(id=game_id, created=float(created), settings=settings, players=players, finished=finished,
                   events=int(count))
