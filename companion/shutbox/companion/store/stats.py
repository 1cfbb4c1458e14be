"""Statistics across the game database, with each game's review kept in a side cache.

Reviewing a game takes milliseconds, ten thousand of them a minute; so each game's summary
(:func:`shutbox.game.playerstats.game_record`) is cached in ``records.sqlite3`` in the user's cache
folder (the ``reviews`` cache of :mod:`shutbox.base.caches`), keyed by a SHA-256 of the game's stored settings
and events, the objective, the source of the game domain and what made it (shutbox's and numpy's versions).
A game that changes (or a new rule engine) gets a new key, so a cached summary is never stale. The
game database itself is only read (:mod:`shutbox.companion.store.archive`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from shutbox.base import caches
from shutbox.base.errors import ShutboxError
from shutbox.companion.store.archive import Archive, RawGame
from shutbox.game.playerstats import RECORD_VERSION, game_record
from shutbox.game.review import Solve, review_game

CACHE_FILE = "records.sqlite3"


@cache
def code_digest() -> str:
    """Hash of the game domain's sources (rules, replay, solver, review, summaries) and of what made the records."""
    h = hashlib.sha256(f"{RECORD_VERSION}\n{caches.made_with('reviews')}\n".encode())
    package = resources.files("shutbox.game")
    for name in sorted(p.name for p in package.iterdir() if p.name.endswith(".py")):
        h.update(name.encode())
        h.update(package.joinpath(name).read_bytes())
    return h.hexdigest()


def record_key(fingerprint: str, objective: str | None) -> str:
    """The cache key of a stored game (its :meth:`~shutbox.companion.store.archive.Archive.fingerprints` text);
    ``objective`` None: the game's own (what its match rewards)."""
    h = hashlib.sha256(f"{code_digest()}\n{objective or 'default'}\n".encode())
    h.update(fingerprint.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class RecordCache:
    """Game records by key in a small SQLite file; every failure only means recomputing."""

    def __init__(self, path: Path | None) -> None:
        self.db: sqlite3.Connection | None = None
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open(path)
        except sqlite3.DatabaseError:  # a damaged cache file: it is ours, start it afresh
            path.unlink(missing_ok=True)
            try:
                self.db = self._open(path)
            except (OSError, sqlite3.Error):
                self.db = None
        except (OSError, sqlite3.Error):
            self.db = None

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=5)
        db.execute("CREATE TABLE IF NOT EXISTS game_records (key TEXT PRIMARY KEY, code TEXT NOT NULL, "
                   "record TEXT NOT NULL)")
        db.commit()
        return db

    def load(self) -> dict[str, str]:
        """The records made by this code (those of older code are never looked at again)."""
        if self.db is None:
            return {}
        try:
            return dict(self.db.execute("SELECT key, record FROM game_records WHERE code = ?", (code_digest(),)))
        except sqlite3.Error:
            return {}

    def save(self, items: Iterable[tuple[str, str]]) -> None:
        """Add records; records of older code are dropped at the same time, so the file does not grow forever."""
        if self.db is None:
            return
        code = code_digest()
        try:
            with self.db:
                self.db.execute("DELETE FROM game_records WHERE code != ?", (code,))
                self.db.executemany("INSERT OR REPLACE INTO game_records (key, code, record) VALUES (?, ?, ?)",
                                    ((key, code, record) for key, record in items))
        except sqlite3.Error:
            pass

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


def default_cache() -> RecordCache:
    folder = caches.folder("reviews")
    return RecordCache(folder / CACHE_FILE if folder is not None else None)


def summarise(raw: RawGame, objective: str | None, solve: Solve) -> dict[str, Any]:
    """A stored game's record; ``{"unfinished": true}`` or ``{"error": ...}`` when it does not count."""
    try:
        game = raw.replay()
        if not game.finished:
            return {"unfinished": True}
        # Beyond the exact solver: the Monte Carlo estimate (seeded, so `shutbox review` gives the same figures)
        return game_record(game, review_game(game, solve, objective, estimate=True))
    except (ShutboxError, ValueError) as exc:  # ValueError: a size the solver refuses
        return {"error": str(exc)}


@dataclass
class Collected:
    """The records of every finished game and what was left out."""

    records: list[dict[str, Any]] = field(default_factory=list)
    unfinished: int = 0
    unreadable: list[str] = field(default_factory=list)
    reviewed: int = 0  #: games reviewed now (not found in the cache)


def collect(db: Path, objective: str | None, solve: Solve, cache: RecordCache | None = None,
            progress: Callable[[int, int], None] | None = None) -> Collected:
    """Every stored game's record, from the cache where it holds one (``objective`` None: each game's own).

    ``progress(done, total)`` is called after each game reviewed now, ``total`` being those not cached.
    """
    cache = cache if cache is not None else default_cache()
    out = Collected()
    try:
        known = cache.load()
        fresh: list[tuple[str, str]] = []
        with Archive(db) as archive:
            keyed = [(game_id, record_key(fingerprint, objective)) for game_id, fingerprint in archive.fingerprints()]
            todo = sum(1 for _, key in keyed if key not in known)
            for game_id, key in keyed:
                text = known.get(key)
                if text is None:
                    text = json.dumps(summarise(archive.game(game_id), objective, solve))
                    fresh.append((key, text))
                    out.reviewed += 1
                    if progress is not None:
                        progress(out.reviewed, todo)
                record = json.loads(text)
                if "error" in record:
                    out.unreadable.append(record["error"])
                elif record.get("unfinished"):
                    out.unfinished += 1
                else:
                    out.records.append(record)
        if fresh:
            cache.save(fresh)
    finally:
        cache.close()
    return out
