"""Durable game history: every event is committed to SQLite before anything is shown.

A game is a row in ``games`` plus its append-only ``events``; the state of a game is derived by
replaying its events with the rules engine, so a crashed game resumes exactly.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.errors import ShutboxError

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
    """Games and their events in one SQLite file; each append is its own committed transaction."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ShutboxError(f"--db {self.path}: not a shutbox game database ({exc})") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def new_game(self, settings: dict[str, Any], players: list[str]) -> int:
        cur = self.db.execute(
            "INSERT INTO games (created, settings, players) VALUES (?, ?, ?)",
            (time.time(), json.dumps(settings, sort_keys=True), json.dumps(players)),
        )
        return int(cur.lastrowid or 0)

    def append(self, game_id: int, event: dict[str, Any]) -> int:
        """Commit one event; return its sequence number (0-based)."""
        with closing(self.db.cursor()) as cur:
            cur.execute("BEGIN IMMEDIATE")
            try:
                (seq,) = cur.execute(
                    "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?", (game_id,)
                ).fetchone()
                cur.execute(
                    "INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
                    (game_id, seq, json.dumps(event, sort_keys=True)),
                )
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return int(seq)

    def finish(self, game_id: int) -> None:
        self.db.execute("UPDATE games SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), game_id))

    def events(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return [json.loads(row[0]) for row in rows]

    def game(self, game_id: int) -> GameRow:
        row = self.db.execute(
            "SELECT g.id, g.created, g.settings, g.players, g.finished,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) FROM games g WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise ShutboxError(f"game {game_id}: no such game in {self.path} (see `shutbox history`)")
        return _row(row)

    def games(self) -> Iterator[GameRow]:
        rows = self.db.execute(
            "SELECT g.id, g.created, g.settings, g.players, g.finished,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) FROM games g ORDER BY g.id"
        )
        for row in rows.fetchall():
            yield _row(row)

    def latest_unfinished(self) -> GameRow | None:
        row = self.db.execute("SELECT MAX(id) FROM games WHERE finished IS NULL").fetchone()
        return self.game(row[0]) if row and row[0] is not None else None


def _row(row: tuple[Any, ...]) -> GameRow:
    return GameRow(
        id=row[0],
        created=row[1],
        settings=json.loads(row[2]),
        players=json.loads(row[3]),
        finished=row[4],
        events=row[5],
    )
