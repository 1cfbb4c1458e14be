"""The game file: one game's settings and event record as JSON (``shutbox scorepad --from-game FILE``), and
reading and writing it on disk.

Format, version 1::

    {"format": "shutbox-game", "version": 1,
     "settings": {"tiles": 9, "one_die": "high-shut", ..., "stake": 0.0},
     "events": [{"v": 1, "type": "players", "names": ["Ann", "Bob"]}, ...]}

``settings`` holds the rule settings by their model names (``kit_as_dict(kit)["rules"]``); any left
out take their defaults. ``events`` is the record of :mod:`shutbox.game.events`. Loading
validates the settings and replays the events, so a file that loads is a legal game. :func:`load_game` reads a
file the user named, :func:`save_game` writes one atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shutbox.base.bounded import parse_json
from shutbox.base.errors import ShutboxError
from shutbox.base.output import staged_file
from shutbox.base.text import shown
from shutbox.base.userfile import read_user_text
from shutbox.game.replay import Game
from shutbox.game.rules import IllegalMove
from shutbox.kit.model import Kit, Rules, build_kit, kit_as_dict

FORMAT = "shutbox-game"
VERSION = 1


def rules_from_settings(settings: Mapping[str, Any], where: str = "settings") -> Rules:
    """Validated :class:`Rules` from ``{"tiles": 9, ...}`` (model names); raise ShutboxError."""
    if not isinstance(settings, Mapping):
        raise ShutboxError(f"{where}: 'settings' must be an object of rule settings")
    values = {f"rules.{name}": value for name, value in settings.items()}
    sources = {key: f"{where}: {key}" for key in values}
    return build_kit(values, sources).rules


def settings_of(rules: Rules) -> dict[str, Any]:
    """The rule settings as stored with a game (the game file's ``settings``); see :func:`rules_from_settings`."""
    return kit_as_dict(Kit(rules=rules))["rules"]


def game_to_dict(game: Game) -> dict[str, Any]:
    """A game as the JSON object of the game file."""
    return {"format": FORMAT, "version": VERSION, "settings": settings_of(game.rules),
            "events": [e.to_dict() for e in game.to_events()]}


def game_from_dict(data: Any, where: str = "game") -> Game:
    """Replay a game-file object; any problem raises ShutboxError naming ``where``."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise ShutboxError(f"{where}: not a shutbox game file (expected \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if type(version) is not int or version != VERSION:  # true and 1.0 are not version 1
        raise ShutboxError(f"{where}: game file version {shown(version)} is not supported (this shutbox reads "
                           f"{VERSION})")
    rules = rules_from_settings(data.get("settings", {}), where)
    events = data.get("events")
    if not isinstance(events, list):
        raise ShutboxError(f"{where}: 'events' must be a list of events")
    try:
        return Game.from_events(rules, events)
    except IllegalMove as exc:
        raise ShutboxError(f"{where}: {exc}") from None


def game_from_json(text: str, where: str = "game") -> Game:
    """Replay a game file's JSON text; any problem raises ShutboxError naming ``where``."""
    return game_from_dict(parse_json(text, where), where)


def game_to_json(game: Game) -> str:
    """A game as the text of its game file."""
    return json.dumps(game_to_dict(game), indent=1) + "\n"


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
