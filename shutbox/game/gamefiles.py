"""Game files on disk: read one the user named, write one atomically (format: :mod:`shutbox.game.gamefile`)."""

from __future__ import annotations

from pathlib import Path

from shutbox.base.output import staged_file
from shutbox.base.userfile import read_user_text
from shutbox.game.gamefile import game_from_json, game_to_json
from shutbox.game.replay import Game


def load_game(path: str | Path) -> Game:
    """Read and replay a game file."""
    path = Path(path)
    return game_from_json(read_user_text(path, "game file"), str(path))


def save_game(game: Game, path: str | Path) -> Path:
    """Write a game file (atomically: a failed write leaves no partial file)."""
    path = Path(path)
    with staged_file(path) as tmp:
        Path(tmp).write_text(game_to_json(game), encoding="utf-8")
    return path
