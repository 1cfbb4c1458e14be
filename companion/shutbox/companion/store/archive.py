"""Reading saved games without writing: the game database opened read-only (``review``, ``stats``).

The database is opened by :func:`shutbox.companion.store.database.connect_read_only` (``mode=ro``), so reading
never creates, migrates or locks it for writing, and a game being played meanwhile goes on. A file that
is missing, not SQLite, not a shutbox game database or of a newer schema is one
:class:`~shutbox.base.errors.ShutboxError` naming it; so is a stored record that is not bounded JSON text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.base.bounded import parse_json
from shutbox.base.errors import ShutboxError
from shutbox.companion.store.database import connect_read_only
from shutbox.game.gamefile import FORMAT, VERSION, game_from_dict
from shutbox.game.replay import Game


class NoSuchGame(ShutboxError, LookupError):
    """A game number the database does not hold."""


@dataclass(frozen=True)
class RawGame:
    """One stored game as text: its settings and its events, one JSON object a line (not yet replayed)."""

    id: int
    settings: object  #: as stored: JSON text, unless the file was tampered with
    events: list[object]

    def replay(self) -> Game:
        """The game, replayed by the rules engine; a bad record raises ShutboxError naming the game."""
        where = f"game {self.id}"
        data = {"format": FORMAT, "version": VERSION, "settings": _parse(self.settings, f"{where}: settings"),
                "events": [_parse(e, f"{where}: event {n}") for n, e in enumerate(self.events, start=1)]}
        return game_from_dict(data, where)


def _parse(value: object, where: str) -> object:
    if not isinstance(value, str):
        raise ShutboxError(f"{where}: stored as {type(value).__name__}, not JSON text")
    return parse_json(value, where)


#: A stored value as text in SQL: text as it is, anything else as its type and hex digits.
_AS_TEXT = "(CASE WHEN typeof({0}) = 'text' THEN {0} ELSE typeof({0}) || ':' || hex({0}) END)"


class Archive:
    """A game database opened read-only."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.db = connect_read_only(self.path)
        try:
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:
            self.db.close()
            raise ShutboxError(f"--db {self.path}: cannot be read ({exc})") from None
        self.empty = not {"games", "events"} <= tables  #: a new file without games yet

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
        rows = [] if self.empty else self._query("SELECT settings FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise NoSuchGame(f"game {game_id}: no such game in {self.path} (see `shutbox history`)")
        events = self._query("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return RawGame(game_id, rows[0][0], [e[0] for e in events])

    def fingerprints(self) -> Iterator[tuple[int, str]]:
        """Every game's number and its whole stored record as one text (settings, then each ``seq:event``).

        The text is put together by SQLite (fast for thousands of games); it names every stored value, so
        two records with the same text are the same record. Only for recognising a game: replay
        :meth:`game`.
        """
        if self.empty:
            return
        try:
            rows = self.db.execute(
                f"SELECT g.id, {_AS_TEXT.format('g.settings')} || char(10) || COALESCE("
                f" (SELECT group_concat(seq || ':' || {_AS_TEXT.format('event')}, char(10))"
                "  FROM (SELECT seq, event FROM events e WHERE e.game_id = g.id ORDER BY seq)), '')"
                " FROM games g ORDER BY g.id")
            yield from rows
        except sqlite3.Error as exc:
            raise ShutboxError(f"--db {self.path}: cannot be read ({exc})") from None
