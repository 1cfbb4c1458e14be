"""The ``shutbox`` command: subcommands share the settings flags generated from the kit model.

Subcommand modules are listed by name and imported when the parser is built; they must import
heavy libraries (CadQuery, ReportLab, pyserial …) only inside their ``run`` so that
``shutbox --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from shutbox import __version__
from shutbox.errors import ShutboxError
from shutbox.model import SETTINGS, Setting, show_value

#: Modules providing ``register(subparsers, common_parents)``, in the order shown in --help.
COMMAND_MODULES: list[str] = [
    "shutbox.commands.config",
    "shutbox.commands.kit",
    "shutbox.commands.scorepad",
    "shutbox.commands.solve",
    "shutbox.commands.play",
    "shutbox.commands.history",
    "shutbox.commands.sim",
    "shutbox.commands.firmware",
    "shutbox.commands.cad",
]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def settings_parents() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Parent parsers: rule flags (every subcommand) and kit flags (commands that build things)."""
    rules = _Parser(add_help=False)
    group = rules.add_argument_group("rule settings (see RULES.md)")
    group.add_argument("--config", metavar="FILE", help="settings file (default: ./shutbox.toml if present)")
    kit = _Parser(add_help=False)
    kit_group = kit.add_argument_group("kit settings")
    for s in SETTINGS:
        target = group if s.rule else kit_group
        allowed = s.allowed()
        extra = {"nargs": "?", "const": "on"} if s.is_switch else {}
        target.add_argument(
            s.flag,
            dest=s.dest,
            default=None,
            metavar=_metavar(s),
            help=f"{s.help} [{allowed}; default {show_value(s.default)}]",
            **extra,
        )
    return rules, kit


def _metavar(s: Setting) -> str:
    if s.choices is not None:
        return "{" + ",".join(show_value(c) for c in s.choices) + "}"
    if s.is_switch:
        return "{on,off}"
    return s.name.upper()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="shutbox",
        description="Shut the Box kit: printable box, score pads, firmware and a scorekeeper.",
    )
    parser.add_argument("--version", action="version", version=f"shutbox {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    rules, kit = settings_parents()
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub, [rules, kit])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        from shutbox.config import resolve

        kit = resolve(args) if getattr(args, "needs_kit", True) else None
        return int(args.run(args, kit) or 0)
    except ShutboxError as exc:
        print(f"shutbox: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("shutbox: interrupted", file=sys.stderr)
        return 130
