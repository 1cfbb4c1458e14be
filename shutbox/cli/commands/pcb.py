"""``shutbox pcb``: the switch row's circuit board, generated from the kit (KiCad 9 project, fab set, BOM)."""

from __future__ import annotations

import argparse
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import path_text
from shutbox.cli.commandspec import EVERY_SECTION, Command
from shutbox.kit.model import Kit

#: The tile count, the wiring (firmware) and the physical kit the board is laid out in.
PCB_SETTINGS = ("rules.tiles", "firmware", *(s for s in EVERY_SECTION if s not in {"rules", "firmware", "play"}))


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, type=Path, help="output folder (replaced when complete)")


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.base.output import out_folder
    from shutbox.cad.board.folder import MANIFEST, board_files, write_board
    from shutbox.cad.board.plan import board_refusal

    refusal = board_refusal(kit)
    if refusal:  # before anything is written
        raise ShutboxError(refusal)
    with out_folder(args.out, "pcb", MANIFEST, board_files) as tmp:
        files = write_board(kit, tmp)
    print(f"wrote {len(files)} files to {path_text(args.out)}/: the KiCad project, "
          f"{'the fab set (Gerbers and drill zipped, placement, pictures), ' if any('fab' in f for f in files) else ''}"
          "the BOM")
    return 0


COMMANDS = (
    Command("pcb", "generate the switch row's circuit board (KiCad 9 project and fab set)",
            "Write a KiCad 9 project for the board that carries the tile switches, the Pico, the 74HC165 chain and "
            "the button, routed and checked by KiCad's DRC, with its Gerbers and drill files zipped for a fab "
            "house, a placement file, a BOM and a picture of each side, into --out.", run, PCB_SETTINGS, _arguments),
)
