"""The ``shutbox`` subcommands, one module per command (see :mod:`shutbox.cli.parser` for how they are found)."""

from __future__ import annotations

import argparse


def add_port_argument(p: argparse.ArgumentParser, none_help: str = "") -> None:
    """``--port`` (default ``auto``) for every command that talks to a board (``none_help``: what ``none`` does)."""
    from shutbox.firmware.host.plan import BOARDS

    ids = ", ".join(sorted({f"{vid:04X}:{pid:04X}" for b in BOARDS.values() for vid, pid in b.usb_ids}))
    p.add_argument("--port", default="auto", help="serial port of the board (a device such as /dev/ttyACM0), or "
                   f"auto: the one connected Pico (USB {ids}){'; ' + none_help if none_help else ''} "
                   "[default auto]")
