"""The fab set of a board, made by KiCad's own ``kicad-cli`` from the written project: its DRC report, Gerbers and
drill files zipped as a fab house takes them, the placement file, a picture of each side; and the BOM, written
here from the footprints (``kicad-cli`` makes a BOM from a schematic only, and the board has none)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import zipfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.cad.board.footprints import Footprint

KICAD_MAJOR = 9
GERBER_LAYERS = "F.Cu,B.Cu,F.Mask,B.Mask,F.SilkS,B.SilkS,F.Paste,B.Paste,Edge.Cuts"
FRONT = "F.Cu,F.Mask,F.SilkS,Edge.Cuts"
BACK = "B.Cu,B.Mask,B.SilkS,Edge.Cuts"
TIMEOUT = 300


def kicad_cli() -> str | None:
    """The ``kicad-cli`` on the PATH, or None."""
    return shutil.which("kicad-cli")


def kicad_version(cli: str) -> str:
    """``kicad-cli version``'s answer (``9.0.8``)."""
    return _run([cli, "version"]).strip()


def _run(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ShutboxError(f"{argv[0]} {' '.join(argv[1:3])}: {exc}") from None
    if done.returncode not in (0, 5):  # DRC exits 5 on violations
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no message"]
        raise ShutboxError(f"kicad-cli {' '.join(argv[1:4])} failed (exit {done.returncode}): {last[0]}")
    return done.stdout


@dataclass(frozen=True)
class Drc:
    """KiCad's DRC of a board, errors only: its violations and unconnected items, as the report gives them."""

    violations: list[dict[str, object]]
    unconnected: list[dict[str, object]]

    @property
    def clean(self) -> bool:
        return not self.violations and not self.unconnected

    def summary(self) -> str:
        kinds = sorted({str(v.get("type")) for v in self.violations})
        return (f"{len(self.violations)} violations{' (' + ', '.join(kinds) + ')' if kinds else ''}, "
                f"{len(self.unconnected)} unconnected items")


def drc(cli: str, board: Path, report: Path) -> Drc:
    """``kicad-cli pcb drc --severity-error --exit-code-violations --format json`` on ``board``, its report at
    ``report``."""
    _run([cli, "pcb", "drc", "--format", "json", "--severity-error", "--exit-code-violations", "-o", str(report),
          str(board)])
    data = json.loads(report.read_text(encoding="utf-8"))
    return Drc(list(data.get("violations", [])), list(data.get("unconnected_items", [])))


def fab_zip(cli: str, board: Path, out: Path, work: Path) -> list[str]:
    """Gerbers and Excellon drill files of ``board`` in one zip at ``out``; the names in it."""
    plots = work / "gerbers"
    plots.mkdir()
    _run([cli, "pcb", "export", "gerbers", "--layers", GERBER_LAYERS, "--subtract-soldermask", "-o", f"{plots}/",
          str(board)])
    _run([cli, "pcb", "export", "drill", "--format", "excellon", "--excellon-units", "mm", "--excellon-separate-th",
          "-o", f"{plots}/", str(board)])
    names = sorted(p.name for p in plots.iterdir() if p.is_file())
    if not any(n.endswith(".drl") for n in names) or not any(n.endswith(".gm1") for n in names):
        raise ShutboxError(f"kicad-cli wrote no drill file or board outline: {', '.join(names)}")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # the same board zips the same
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (plots / name).read_bytes())
    return names


def placement(cli: str, board: Path, out: Path) -> None:
    """The pick-and-place file (CSV, mm, top side: every part is there)."""
    _run([cli, "pcb", "export", "pos", "--format", "csv", "--units", "mm", "--side", "front", "-o", str(out),
          str(board)])


def pictures(cli: str, board: Path, front: Path, back: Path) -> None:
    """An SVG of each side, the board's area only (the back seen from below)."""
    common = ["--mode-single", "--page-size-mode", "2", "--exclude-drawing-sheet"]
    _run([cli, "pcb", "export", "svg", "--layers", FRONT, *common, "-o", str(front), str(board)])
    _run([cli, "pcb", "export", "svg", "--layers", BACK, "--mirror", *common, "-o", str(back), str(board)])


def bom_rows(parts: tuple[Footprint, ...]) -> list[dict[str, str]]:
    """The BOM: one row per kind of part (same value and footprint), with its references and count."""
    groups: dict[tuple[str, str], list[Footprint]] = defaultdict(list)
    for part in parts:
        if part.attr != "hole":
            groups[(part.value, part.name)].append(part)
    rows = []
    for (value, name), members in sorted(groups.items(), key=lambda g: _ref_key(g[1][0].ref)):
        refs = sorted((m.ref for m in members), key=_ref_key)
        rows.append({"References": " ".join(refs), "Quantity": str(len(members)), "Value": value,
                     "Footprint": name, "Description": members[0].description if len(members) == 1 else
                     _shared(members)})
    return rows


def _shared(members: list[Footprint]) -> str:
    first = members[0].description
    tile = members[0].fields.get("Tile")
    return first.replace(f"tile {tile} ", "each tile's ") if tile else first


def _ref_key(ref: str) -> tuple[str, int]:
    stem = ref.rstrip("0123456789")
    return stem, int(ref[len(stem):] or 0)


def write_bom(parts: tuple[Footprint, ...], out: Path) -> None:
    """The BOM as CSV (what a fab house's assembly service asks for: references, quantity, value, footprint)."""
    rows = bom_rows(parts)
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
