"""``shutbox config show``: print the resolved settings as TOML."""

from __future__ import annotations

import argparse

from shutbox.cli.commandspec import EVERY_SECTION, Command
from shutbox.kit.config import kit_to_toml
from shutbox.kit.model import Kit


def run_show(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    print(kit_to_toml(kit), end="")
    return 0


COMMANDS = (
    Command("config", "show the resolved settings", "Work with the kit settings.", actions=(
        Command("show", "print the resolved settings as TOML",
                "Print the settings (defaults < shutbox.toml < flags) as TOML.", run_show, EVERY_SECTION),
    )),
)
