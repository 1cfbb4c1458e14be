"""How a ``shutbox`` subcommand is declared: its name, help, the kit settings it takes, its own flags, its run.

A command module (``shutbox/cli/commands/NAME.py``) holds a ``COMMANDS`` tuple of :class:`Command`. The
kit-setting flags a command accepts are chosen by ``settings``: section names (``"rules"``) or
setting keys (``"rules.tiles"``) of :data:`shutbox.kit.model.SETTINGS`, so ``monitor`` has no
``--stake`` and ``sim`` no ``--box-length``. A command with no settings gets no kit (``kit`` is None).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shutbox.kit.model import SECTIONS, SETTINGS, Kit, Setting, show_value

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: Every section: for commands that take every kit setting.
EVERY_SECTION: tuple[str, ...] = tuple(SECTIONS)
#: What the firmware's pin plan, bundle and wiring sheet read (``firmware``, ``sim``).
FIRMWARE_SETTINGS: tuple[str, ...] = ("rules.tiles", "sensors.kind", "firmware")

Run = Callable[[argparse.Namespace, "Kit | None"], int]

#: The optional parts of the install (pyproject.toml's extras) and the modules that show one is installed.
EXTRAS: dict[str, tuple[str, ...]] = {"cad": ("cadquery", "OCP", "trimesh")}


def missing_extra(extra: str) -> str | None:
    """The one-line refusal of a command whose optional part ``extra`` is not installed, or None if it is."""
    from importlib.util import find_spec

    for module in EXTRAS[extra]:
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return (f"this command needs the {extra.upper()} generator, which is not installed ({module} is "
                    f"missing); install it with: pip install 'shutbox[{extra}]' (or `make kit`)")
    return None


@dataclass(frozen=True)
class Command:
    """One subcommand (or one action of a command, in ``actions``)."""

    name: str
    help: str
    description: str
    run: Run | None = None  #: None: the command needs an action
    settings: tuple[str, ...] = ()  #: sections or ``section.name`` keys whose flags apply
    arguments: Callable[[argparse.ArgumentParser], None] | None = None  #: adds the command's own flags
    actions: tuple[Command, ...] = ()
    action_metavar: str = "ACTION"
    extra: str | None = None  #: the optional part of the install it needs (a key of :data:`EXTRAS`)
    #: setting keys whose flag this command reads with its own argparse action (``play --dice``: a number of
    #: dice, or a smart-dice SOURCE); the action's ``extra_help`` is added to the setting's help
    setting_actions: tuple[tuple[str, type[argparse.Action]], ...] = ()

    def takes(self, setting: Setting) -> bool:
        """Does this command accept ``setting``'s flag?"""
        return setting.section in self.settings or setting.key in self.settings

    def add_to(self, sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
        """Add this command's parser (settings flags, own flags, actions) to ``sub``."""
        p = sub.add_parser(self.name, help=self.help, description=self.description)
        add_settings(p, self)
        if self.arguments is not None:
            self.arguments(p)
        p.set_defaults(run=self.run, command_spec=self)
        if self.actions:
            inner = p.add_subparsers(dest=f"{self.name}_action", metavar=self.action_metavar,
                                     required=self.run is None, parser_class=type(p))
            for action in self.actions:
                action.add_to(inner)
        return p


def out_file_flag(flag: str, suffix: str) -> Callable[[str], Path]:
    """An argparse ``type=`` for a flag naming a file to write: refused as it is parsed unless its name ends in
    ``suffix`` (:func:`shutbox.base.output.check_suffix`; imported only when the flag is given)."""

    def parse(text: str) -> Path:
        from shutbox.base.output import check_suffix

        return check_suffix(text, suffix, flag)

    parse.__name__ = f"{suffix} file"
    return parse


def add_settings(p: argparse.ArgumentParser, command: Command) -> None:
    """The ``--config`` flag and the flags of the kit settings the command takes, in two groups."""
    chosen = [s for s in SETTINGS if command.takes(s)]
    if not chosen:
        return
    rules = p.add_argument_group("rule settings (see RULES.md)")
    kit = p.add_argument_group("kit settings")
    rules.add_argument("--config", metavar="FILE", help="settings file (default: ./shutbox.toml if present)")
    actions = dict(command.setting_actions)
    for s in chosen:
        extra: dict[str, Any] = {"nargs": "?", "const": "on"} if s.is_switch else {}
        action = actions.get(s.key)
        more = f"; {getattr(action, 'extra_help', '')}" if action is not None else ""
        if action is not None:
            extra["action"] = action
        (rules if s.rule else kit).add_argument(
            s.flag, dest=s.dest, default=None, metavar=getattr(action, "metavar_text", None) or _metavar(s),
            help=f"{s.help} [{s.allowed()}{_default_text(s)}]{more}", **extra)


def _default_text(s: Setting) -> str:
    """``; default X``, unless the setting's help already says its defaults (``--limit``: 45 or 100)."""
    return "" if "default" in s.help else f"; default {show_value(s.default)}"


def _metavar(s: Setting) -> str:
    if s.choices is not None:
        return "{" + ",".join(show_value(c) for c in s.choices) + "}"
    if s.is_switch:
        return "{on,off}"
    return s.name.upper()
