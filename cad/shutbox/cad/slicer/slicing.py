"""Slicing a part with PrusaSlicer's command line and reading the G-code back.

What the G-code tells: filament (grams at a stated density), the slicer's time estimate, whether
auto support added anything, and where the extruded plastic sits (its centre of mass, each
extrusion move weighted by its filament at the move's midpoint, half a layer below the nozzle).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shutbox.base.errors import ShutboxError

SLICER = "prusa-slicer"
PLA_DENSITY = 1.24  # g/cm3, for the grams PrusaSlicer reports
#: PrusaSlicer's built-in defaults with the 0.2 mm layers and 15% infill of its stock profiles.
DEFAULT_ARGS: tuple[str, ...] = ("--layer-height", "0.2", "--first-layer-height", "0.2", "--fill-density", "15%")
#: Support switched on as a user does (auto, 40-degree threshold): PrusaSlicer adds none without
#: ``--support-material``, whatever the other two say.
SUPPORT_CHECK_ARGS: tuple[str, ...] = ("--support-material", "--support-material-auto",
                                       "--support-material-threshold", "40")
#: Extrusions that are not the part itself.
NOT_THE_PART = ("Skirt/Brim", "Custom", "Wipe")


@dataclass(frozen=True)
class Sliced:
    """What one slice of one part costs and where its plastic is."""

    grams: float
    hours: float
    support_lines: int
    gcode: Path


def slicer_path() -> str:
    """The PrusaSlicer executable, or a one-line error naming what to install."""
    found = shutil.which(SLICER)
    if found is None:
        raise ShutboxError(f"{SLICER}: not found on PATH; allowed: install PrusaSlicer (apt-get install prusa-slicer)")
    return found


def bed_args(bed: tuple[float, float, float]) -> list[str]:
    """``--bed-shape``, height and centre for a W x H x Z bed, the part centred on it."""
    w, h, z = bed
    return ["--bed-shape", f"0x0,{w:g}x0,{w:g}x{h:g},0x{h:g}", "--max-print-height", f"{z:g}",
            "--center", f"{w / 2:g},{h / 2:g}"]


def slice_part(mesh_file: Path, gcode: Path, args: Sequence[str], bed: tuple[float, float, float]) -> Sliced:
    """Slice ``mesh_file`` into ``gcode`` with ``args`` (PrusaSlicer options) on ``bed``."""
    cmd = [slicer_path(), "--export-gcode", *bed_args(bed), "--filament-density", f"{PLA_DENSITY:g}",
           *args, "-o", str(gcode), str(mesh_file)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not gcode.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:]
        raise ShutboxError(f"{mesh_file.name}: PrusaSlicer failed ({' '.join(tail)})")
    return read_summary(gcode)


def _hours(text: str) -> float:
    units = {"d": 24.0, "h": 1.0, "m": 1 / 60, "s": 1 / 3600}
    return sum(float(v) * units[u] for v, u in re.findall(r"(\d+)([dhms])", text))


def read_summary(gcode: Path) -> Sliced:
    """Grams, estimated hours and support lines from a PrusaSlicer G-code file."""
    grams = hours = None
    support = 0
    with gcode.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(";TYPE:Support material"):
                support += 1
            elif line.startswith("; total filament used [g] ="):
                grams = float(line.split("=")[1])
            elif line.startswith("; estimated printing time (normal mode) ="):
                hours = _hours(line.split("=")[1])
    if grams is None or hours is None:
        raise ShutboxError(f"{gcode}: no filament or time summary; allowed: G-code written by PrusaSlicer")
    return Sliced(grams, hours, support, gcode)


def _words(line: str) -> dict[str, float]:
    code = line.split(";", 1)[0].split()
    return {w[0]: float(w[1:]) for w in code[1:] if len(w) > 1 and w[0] in "XYZEF"}


class _Extrusions:
    """The running state of a G-code read: position, extruder, layer and the extruded moment."""

    def __init__(self) -> None:
        self.x = self.y = self.e = 0.0
        self.relative_e = False
        self.layer_z = self.layer_h = self.z_mid = 0.0
        self.kind = ""
        self.moment = np.zeros(3)
        self.total = 0.0

    def comment(self, raw: str) -> None:
        if raw.startswith(";TYPE:"):
            self.kind = raw[6:].strip()
        elif raw.startswith(";Z:"):
            self.layer_z = float(raw[3:])
        elif raw.startswith(";HEIGHT:"):
            self.layer_h = float(raw[8:])
        self.z_mid = self.layer_z - self.layer_h / 2

    def command(self, raw: str) -> None:
        if raw.startswith("M83"):
            self.relative_e = True
        elif raw.startswith("M82"):
            self.relative_e = False
        elif raw.startswith("G92"):
            self.e = _words(raw).get("E", self.e)
        elif raw.startswith(("G1 ", "G0 ")):
            self.move(_words(raw))

    def move(self, w: dict[str, float]) -> None:
        nx, ny = w.get("X", self.x), w.get("Y", self.y)
        de = 0.0
        if "E" in w:
            de = w["E"] if self.relative_e else w["E"] - self.e
            self.e = self.e + w["E"] if self.relative_e else w["E"]
        if de > 0 and (nx != self.x or ny != self.y) and self.kind not in NOT_THE_PART:
            self.moment += de * np.array([(self.x + nx) / 2, (self.y + ny) / 2, self.z_mid])
            self.total += de
        self.x, self.y = nx, ny


def extrusion_centre(gcode: Path) -> tuple[np.ndarray, float]:
    """(centre of mass of the part's extrusions, filament length in mm) from a G-code file.

    Each extruding move counts with its filament length at its midpoint; its height is the middle of
    its layer (``;Z:`` minus half of ``;HEIGHT:``). Skirt, brim, wipes and retractions do not count.
    """
    state = _Extrusions()
    with gcode.open(encoding="utf-8", errors="replace") as f:
        for raw in f:
            if raw.startswith(";"):
                state.comment(raw)
            else:
                state.command(raw)
    if state.total == 0:
        raise ShutboxError(f"{gcode}: no extrusion moves; allowed: G-code written by PrusaSlicer")
    return state.moment / state.total, state.total


def hours_by_type(gcode: Path) -> dict[str, float]:
    """Hours of each ``;TYPE:`` of move (and ``travel``) at the moves' own feed rates.

    A rough split of where the time goes: it ignores acceleration, so it sums to a little less than
    PrusaSlicer's estimate.
    """
    x = y = 0.0
    e = 0.0
    feed = 1000.0  # mm/min until the file sets one
    relative_e = False
    kind = "travel"
    hours: dict[str, float] = {}
    with gcode.open(encoding="utf-8", errors="replace") as f:
        for raw in f:
            if raw.startswith(";TYPE:"):
                kind = raw[6:].strip()
            elif raw.startswith("M83"):
                relative_e = True
            elif raw.startswith("M82"):
                relative_e = False
            elif raw.startswith("G92"):
                e = _words(raw).get("E", e)
            elif raw.startswith(("G1 ", "G0 ")):
                w = _words(raw)
                feed = w.get("F", feed)
                nx, ny = w.get("X", x), w.get("Y", y)
                extrudes = "E" in w and (w["E"] > 0 if relative_e else w["E"] > e)
                if "E" in w:
                    e = e + w["E"] if relative_e else w["E"]
                step = float(np.hypot(nx - x, ny - y))
                if step > 0:
                    label = kind if extrudes else "travel"
                    hours[label] = hours.get(label, 0.0) + step / feed * 60 / 3600
                x, y = nx, ny
    return hours
