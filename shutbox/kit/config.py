"""Resolve settings: defaults, then a TOML file, then command-line flags; and write them as TOML."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from shutbox.base.errors import SettingsError, ShutboxError
from shutbox.base.text import shown
from shutbox.kit.model import SECTIONS, SETTINGS, Kit, build_kit, kit_as_dict, suggest_key

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_CONFIG = "shutbox.toml"
#: Largest settings file read, in bytes.
MAX_SETTINGS_FILE = 1024 * 1024


def load_toml(path: Path, flag: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Read a settings file into ``{"section.name": value}`` plus where each value came from.

    ``flag`` is the option that named the file, for error messages.
    """
    from shutbox.base.bounded import parse_toml  # here: only a settings file needs them (start-up, bench/cli.py)
    from shutbox.base.userfile import read_user_text

    text = read_user_text(path, "settings file", flag, SettingsError, limit=MAX_SETTINGS_FILE)
    where = shown(str(path), 200)
    try:
        data = parse_toml(text, where)
    except ShutboxError as exc:
        raise SettingsError(str(exc)) from None
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for section, table in data.items():
        if section not in SECTIONS:
            hint = suggest_key(section[:100])
            raise SettingsError(
                f"{where}: unknown section [{shown(section)}]"
                + (f"; did you mean '{hint}'?" if hint else f"; allowed: {', '.join(SECTIONS)}")
            )
        if not isinstance(table, dict):
            raise SettingsError(f"{where}: '{section}' must be a table [{section}] of settings")
        for name, value in table.items():
            key = f"{section}.{name}"
            values[key] = value
            sources[key] = f"{where}: {section}.{shown(name)} ="
    return values, sources


def resolve(args: argparse.Namespace | None = None) -> Kit:
    """The kit for a command: defaults < TOML file < flags."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    config = getattr(args, "config", None)
    path = Path(config) if config else Path(DEFAULT_CONFIG)
    if not config and os.path.lexists(path) and not path.is_file():
        kind = "a folder" if path.is_dir() else "a link to nothing" if not path.exists() else \
            "not a regular file (a pipe or a device)"
        raise SettingsError(f"{DEFAULT_CONFIG} in the current folder is {kind}, not a settings file; rename or "
                            f"remove it, or give the settings with --config FILE")
    if config or path.is_file():
        values, sources = load_toml(path, "--config" if config else None)
    for setting in SETTINGS:
        raw = getattr(args, setting.dest, None) if args is not None else None
        if raw is not None:
            values[setting.key] = raw
            sources[setting.key] = setting.flag
    return build_kit(values, sources)


def given_rule_flags(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """The rule flags given on the command line, as (flag, raw value)."""
    return [(s.flag, getattr(args, s.dest)) for s in SETTINGS if s.rule and getattr(args, s.dest, None) is not None]


def _toml_value(value: Any) -> str:
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    import json  # here, not at the top: it costs every command's start-up

    return json.dumps(str(value))


def kit_to_toml(kit: Kit) -> str:
    """The resolved kit as a TOML document that :func:`load_toml` reads back to the same kit."""
    by_key = {s.key: s for s in SETTINGS}
    lines = ["# Shut the Box kit settings (shutbox config show)"]
    for section, values in kit_as_dict(kit).items():
        lines.append("")
        lines.append(f"[{section}]")
        for name, value in values.items():
            help_text = by_key[f"{section}.{name}"].help
            lines.append(f"{name} = {_toml_value(value)}  # {help_text}")
    return "\n".join(lines) + "\n"
