"""The ``shutbox`` subcommands, one module per command (see :mod:`shutbox.cli.parser` for how they are found)."""

from __future__ import annotations

import argparse

from shutbox.base.errors import ShutboxError


def add_port_argument(p: argparse.ArgumentParser, none_help: str = "") -> None:
    """``--port`` (default ``auto``) for every command that talks to a board (``none_help``: what ``none`` does)."""
    from shutbox.firmware.host.plan import BOARDS

    ids = ", ".join(sorted({f"{vid:04X}:{pid:04X}" for b in BOARDS.values() for vid, pid in b.usb_ids}))
    p.add_argument("--port", default="auto", help="serial port of the board (a device such as /dev/ttyACM0), or "
                   f"auto: the one connected Pico (USB {ids}){'; ' + none_help if none_help else ''} "
                   "[default auto]")


def add_web_argument(p: argparse.ArgumentParser) -> None:
    """``--web [HOST:]PORT`` for the commands that run a live session (play, sim)."""
    p.add_argument("--web", metavar="[HOST:]PORT", help="serve the live scoreboard page on PORT (127.0.0.1 unless "
                   "HOST is given, e.g. 0.0.0.0:8000 for phones on the network, which then need the join code "
                   "printed to play)")


def parse_players(text: str) -> list[str]:
    """The names of ``--players NAMES`` (comma separated); ShutboxError when none is given."""
    names = [n.strip(" ") for n in text.split(",")]  # only spaces: a U+2028 at an end is refused
    if not any(names):
        raise ShutboxError(f"--players {text!r}: give the player names, comma separated, e.g. \"Ann,Bob\"")
    return names
