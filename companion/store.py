"""Durable game history: every event is committed to SQLite before anything is shown.

A game is a row in ``games`` plus its append-only ``events``; the state of a game is derived by
replaying its events with the rules engine, so a crashed game resumes exactly. Each write is one
transaction (WAL journal, ``synchronous=FULL``): a game is created together with its ``players``
event, and the event that ends a game marks it finished in the same commit, so a process killed at
any moment leaves either the whole write or none of it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.errors import ShutboxError

#: ``PRAGMA application_id`` of a shutbox game database ("SBX1").
APPLICATION_ID = 0x53425831

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
"""


def default_db_path() -> Path:
    """``games.sqlite3`` in the user's data folder (platformdirs; honours XDG_DATA_HOME)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("shutbox", appauthor=False)) / "games.sqlite3"


@dataclass(frozen=True)
class GameRow:
    """One stored game, as listed by ``shutbox history``."""

    id: int
    created: float
    settings: dict[str, Any]
    players: list[str]
    finished: float | None
    events: int


class GameStore:
    """Games and their events in one SQLite file; every write is its own committed transaction."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ShutboxError(f"--db {self.path}: cannot create its folder ({exc.strerror or exc})") from None
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
            (app_id,) = self.db.execute("PRAGMA application_id").fetchone()
            tables = self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
            if app_id != APPLICATION_ID and (app_id != 0 or tables):
                self.db.close()
                raise ShutboxError(f"--db {self.path}: not a shutbox game database (it holds other data)")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        except sqlite3.Error as exc:
            raise ShutboxError(f"--db {self.path}: not a shutbox game database ({exc})") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        try:
            with closing(self.db.cursor()) as cur:
                cur.execute("BEGIN IMMEDIATE")
                try:
                    yield cur
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
                cur.execute("COMMIT")
        except sqlite3.Error as exc:
            raise ShutboxError(f"--db {self.path}: could not save ({exc})") from None

    def new_game(self, settings: dict[str, Any], players_event: dict[str, Any]) -> int:
        """Create a game with its first event (``players``) in one transaction; return its id."""
        names = players_event.get("names", [])
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO games (created, settings, players) VALUES (?, ?, ?)",
                (time.time(), json.dumps(settings, sort_keys=True), json.dumps(names)),
            )
            game_id = int(cur.lastrowid or 0)
            cur.execute("INSERT INTO events (game_id, seq, event) VALUES (?, 0, ?)",
                        (game_id, json.dumps(players_event, sort_keys=True)))
        return game_id

    def append(self, game_id: int, event: dict[str, Any], finished: bool = False) -> int:
        """Commit one event (and, if ``finished``, the game's end) in one transaction; return its seq (0-based)."""
        with self._transaction() as cur:
            (seq,) = cur.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()
            cur.execute(
                "INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
                (game_id, seq, json.dumps(event, sort_keys=True)),
            )
            if finished:
                cur.execute("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), game_id))
        return int(seq)

    def finish(self, game_id: int) -> None:
        """Mark a game finished (for a record that ended without :meth:`append` saying so)."""
        with self._transaction() as cur:
            cur.execute("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), game_id))

    def events(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return [json.loads(row[0]) for row in rows]

    def game(self, game_id: int) -> GameRow:
        row = self.db.execute(_SELECT + " WHERE g.id = ?", (game_id,)).fetchone()
        if row is None:
            raise ShutboxError(f"game {game_id}: no such game in {self.path} (see `shutbox history`)")
        return _row(row)

    def games(self) -> list[GameRow]:
        return [_row(row) for row in self.db.execute(_SELECT + " ORDER BY g.id").fetchall()]

    def latest_unfinished(self) -> GameRow | None:
        row = self.db.execute("SELECT MAX(id) FROM games WHERE finished IS NULL").fetchone()
        return self.game(row[0]) if row and row[0] is not None else None


_SELECT = ("SELECT g.id, g.created, g.settings, g.players, g.finished,"
           " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) FROM games g")


def _row(row: tuple[Any, ...]) -> GameRow:
    return GameRow(
        id=row[0],
        created=row[1],
        settings=json.loads(row[2]),
        players=json.loads(row[3]),
        finished=row[4],
        events=row[5],
    )
