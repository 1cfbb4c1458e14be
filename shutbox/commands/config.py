"""``shutbox config show``: print the resolved settings as TOML."""

from __future__ import annotations

import argparse

from shutbox.config import kit_to_toml
from shutbox.model import Kit


def register(sub: argparse._SubParsersAction, common: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("config", help="show the resolved settings",
                       description="Work with the kit settings.")
    inner = p.add_subparsers(dest="config_command", metavar="ACTION", required=True,
                             parser_class=type(p))
    show = inner.add_parser("show", parents=common, help="print the resolved settings as TOML",
                            description="Print the settings (defaults < shutbox.toml < flags) as TOML.")
    show.set_defaults(run=run_show)


def run_show(args: argparse.Namespace, kit: Kit) -> int:
    print(kit_to_toml(kit), end="")
    return 0
