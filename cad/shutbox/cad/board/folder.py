"""``shutbox pcb``'s output, and the kit's ``pcb/`` folder: the KiCad project, BOM and (with ``kicad-cli``) the DRC
report and fab set of the kit's switch-row board. Nothing is written unless KiCad's DRC finds the board clean."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.version import __version__
from shutbox.cad.board import fab
from shutbox.cad.board.kicad import STEM, Design, design, write_project
from shutbox.cad.board.plan import board_refusal
from shutbox.kit.model import Kit

MANIFEST = "pcb.json"


def board_files(manifest: Any) -> set[str] | None:
    """The files a board folder's ``pcb.json`` says it holds (None: not one)."""
    if not isinstance(manifest, dict) or manifest.get("board") != f"{STEM}.kicad_pcb":
        return None
    files = manifest.get("files")
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return {*files, MANIFEST}


def write_board(kit: Kit, folder: Path, quiet: bool = False) -> list[str]:
    """Write the board of ``kit`` into ``folder`` (which exists, empty); the files written. Refuses (one line) a
    board KiCad's DRC does not pass."""
    d = design(kit)
    files = write_project(d, folder)
    fab.write_bom(d.board.footprints, folder / f"{STEM}-bom.csv")
    files.append(f"{STEM}-bom.csv")
    cli = fab.kicad_cli()
    manifest: dict[str, Any] = {"shutbox_version": __version__, "board": f"{STEM}.kicad_pcb", "kicad": None}
    if cli is None:
        if not quiet:
            print("shutbox pcb: kicad-cli (KiCad 9) is not installed: the KiCad project and BOM are written, but no "
                  "DRC, Gerbers, drill, placement file or pictures", file=sys.stderr)
    else:
        files += _fab_set(cli, d, folder, manifest)
    manifest["files"] = files
    manifest["parts"] = len([f for f in d.board.footprints if f.attr != "hole"])
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return files + [MANIFEST]


def _fab_set(cli: str, d: Design, folder: Path, manifest: dict[str, Any]) -> list[str]:
    version = fab.kicad_version(cli)
    if not version.startswith(f"{fab.KICAD_MAJOR}."):
        raise ShutboxError(f"kicad-cli {version}: the board is written for KiCad {fab.KICAD_MAJOR}; install KiCad "
                           f"{fab.KICAD_MAJOR} (Debian 12: from bookworm-backports)")
    board = folder / f"{STEM}.kicad_pcb"
    report = folder / f"{STEM}-drc.json"
    checked = fab.drc(cli, board, report)
    if not checked.clean:
        raise ShutboxError(f"KiCad's DRC refuses the board for these settings: {checked.summary()}")
    manifest["kicad"] = version
    manifest["drc"] = checked.summary()
    with tempfile.TemporaryDirectory(prefix="shutbox-pcb-") as work:
        fab.fab_zip(cli, board, folder / f"{STEM}-fab.zip", Path(work))
    fab.placement(cli, board, folder / f"{STEM}-pos.csv")
    fab.pictures(cli, board, folder / f"{STEM}-front.svg", folder / f"{STEM}-back.svg")
    return [report.name, f"{STEM}-fab.zip", f"{STEM}-pos.csv", f"{STEM}-front.svg", f"{STEM}-back.svg"]


def write_kit_board(kit: Kit, folder: Path) -> list[str]:
    """``shutbox kit``'s ``pcb/`` generator: the board, or for a kit it cannot be made for (no sensors, another
    controller board's size) a note saying why (the kit is then wired by hand)."""
    refusal = board_refusal(kit)
    if refusal:
        (folder / "NO-BOARD.txt").write_text(f"No circuit board for this kit: {refusal}\nWire it by hand: see "
                                             "cad/build.md.\n", encoding="utf-8")
        return ["NO-BOARD.txt"]
    return write_board(kit, folder, quiet=True)
