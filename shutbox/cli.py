"""The ``shutbox`` command: one module per subcommand in :mod:`shutbox.commands`, each declaring its
:class:`~shutbox.commandspec.Command` (flags, the kit settings it takes, how it runs).

Start-up is kept short: for ``shutbox NAME ...`` only NAME's module is imported and only its parser
is built; the full parser (every command) is built for ``--help``, no command or an unknown one.
Command modules import heavy libraries (numpy, CadQuery, ReportLab, pyserial …) only inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from shutbox import __version__
from shutbox.errors import ShutboxError

#: Command name -> the module declaring it (``COMMANDS``), in the order shown in --help.
COMMAND_MODULES: dict[str, str] = {
    "config": "shutbox.commands.config",
    "kit": "shutbox.commands.kit",
    "scorepad": "shutbox.commands.scorepad",
    "solve": "shutbox.commands.solve",
    "advise": "shutbox.commands.solve",
    "play": "shutbox.commands.play",
    "monitor": "shutbox.commands.monitor",
    "history": "shutbox.commands.history",
    "sim": "shutbox.commands.sim",
    "firmware": "shutbox.commands.firmware",
    "cad": "shutbox.commands.cad",
}


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of command ``only`` alone."""
    parser = _Parser(
        prog="shutbox",
        description="Shut the Box kit: printable box, score pads, firmware and a scorekeeper.",
    )
    parser.add_argument("--version", action="version", version=f"shutbox {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    names = [only] if only in COMMAND_MODULES else list(COMMAND_MODULES)
    for name in names:
        for command in importlib.import_module(COMMAND_MODULES[name]).COMMANDS:
            if command.name == name:
                command.add_to(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        kit = None
        if args.command_spec.settings:
            from shutbox.config import resolve

            kit = resolve(args)
        return int(args.run(args, kit) or 0)
    except ShutboxError as exc:
        print(f"shutbox: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("shutbox: interrupted", file=sys.stderr)
        return 130
