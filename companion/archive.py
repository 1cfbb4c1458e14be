"""Reading saved games without writing: the game database opened read-only (``review``, ``stats``).

The database is opened with SQLite's ``mode=ro`` URI, so reading never creates, migrates or locks it
for writing, and a game being played meanwhile goes on. A file that is missing, not SQLite, or not a
shutbox game database is one :class:`~shutbox.errors.ShutboxError` naming it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.companion.store import APPLICATION_ID
from shutbox.errors import ShutboxError
from shutbox.game.gamefile import FORMAT, VERSION, game_from_dict
from shutbox.game.replay import Game


@dataclass(frozen=True)
class RawGame:
    """One stored game as text: its settings and its events, one JSON object a line (not yet replayed)."""

    id: int
    settings: str
    events: list[str]

    def replay(self) -> Game:
        """The game, replayed by the rules engine; a bad record raises ShutboxError naming the game."""
        where = f"game {self.id}"
        try:
            data = {"format": FORMAT, "version": VERSION, "settings": json.loads(self.settings),
                    "events": [json.loads(e) for e in self.events]}
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ShutboxError(f"{where}: its record is not valid JSON ({exc})") from None
        return game_from_dict(data, where)


class Archive:
    """A game database opened read-only."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ShutboxError(f"--db {self.path}: no such game database (games are saved by `shutbox play`)")
        try:
            self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
            (app_id,) = self.db.execute("PRAGMA application_id").fetchone()
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:
            raise ShutboxError(f"--db {self.path}: not a shutbox game database ({exc})") from None
        if app_id != APPLICATION_ID or not {"games", "events"} <= tables:
            self.db.close()
            raise ShutboxError(f"--db {self.path}: not a shutbox game database")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise ShutboxError(f"--db {self.path}: cannot be read ({exc})") from None

    def game(self, game_id: int) -> RawGame:
        """One game by its number; an unknown number is a ShutboxError."""
        rows = self._query("SELECT settings FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise ShutboxError(f"game {game_id}: no such game in {self.path} (see `shutbox history`)")
        events = self._query("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return RawGame(game_id, rows[0][0], [e[0] for e in events])

    def games(self) -> Iterator[RawGame]:
        """Every game, in order of its number, with its events (two queries, streamed)."""
        try:
            games = self.db.execute("SELECT id, settings FROM games ORDER BY id")
            events = self.db.execute("SELECT game_id, event FROM events ORDER BY game_id, seq")
            pending = next(events, None)
            for game_id, settings in games:
                mine: list[str] = []
                while pending is not None and pending[0] < game_id:
                    pending = next(events, None)
                while pending is not None and pending[0] == game_id:
                    mine.append(pending[1])
                    pending = next(events, None)
                yield RawGame(game_id, settings, mine)
        except sqlite3.Error as exc:
            raise ShutboxError(f"--db {self.path}: cannot be read ({exc})") from None
