"""What a sliced part's G-code says about support and bridges, measured as a user would slice it.

- support: PrusaSlicer with support *on* (``SUPPORT_CHECK_ARGS``: auto, 40-degree threshold) at its built-in
  settings; every ``;TYPE:Support material`` extrusion is weighed (filament length x cross-section x density);
- bridges: every ``;TYPE:Bridge infill`` and ``;TYPE:Overhang perimeter`` move is sampled along its length
  against the part's section just below its layer (the mesh cut there, filled by scan lines); the longest run
  of samples over air is the move's unsupported span.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.cad.checks.findings import Finding

BRIDGE_MAX = 45.0  # mm: longest line over air a bridge may print
BRIDGE_TYPES = ("Bridge infill", "Overhang perimeter")
FILAMENT_DIAMETER = 1.75
CELL = 0.2  # mm: raster of a section
STEP = 0.2  # mm: samples along a move


@dataclass(frozen=True)
class Move:
    """One extruding move: its ``;TYPE:``, layer top z and height, ends and filament (mm)."""

    kind: str
    z: float
    height: float
    x0: float
    y0: float
    x1: float
    y1: float
    filament: float


def _words(line: str) -> dict[str, float]:
    code = line.split(";", 1)[0].split()
    return {w[0]: float(w[1:]) for w in code[1:] if len(w) > 1 and w[0] in "XYZE"}


def extrusions(gcode: Path) -> Iterator[Move]:
    """Every extruding move in a PrusaSlicer G-code file (relative or absolute E)."""
    state = {"x": 0.0, "y": 0.0, "e": 0.0, "z": 0.0, "h": 0.0}
    relative, kind = False, ""
    with gcode.open(encoding="utf-8", errors="replace") as f:
        for raw in f:
            if raw.startswith(";"):
                if raw.startswith(";TYPE:"):
                    kind = raw[6:].strip()
                elif raw.startswith((";Z:", ";HEIGHT:")):
                    key, value = raw[1:].split(":", 1)
                    state["z" if key == "Z" else "h"] = float(value)
            elif raw.startswith(("M83", "M82")):
                relative = raw.startswith("M83")
            elif raw.startswith("G92"):
                state["e"] = _words(raw).get("E", state["e"])
            elif raw.startswith(("G1 ", "G0 ")):
                move = _move(state, _words(raw), relative, kind)
                if move is not None:
                    yield move


def _move(state: dict[str, float], w: dict[str, float], relative: bool, kind: str) -> Move | None:
    """Advance the read ``state`` by one G1/G0 move; the move if it extrudes."""
    x, y = state["x"], state["y"]
    nx, ny = w.get("X", x), w.get("Y", y)
    de = 0.0
    if "E" in w:
        de = w["E"] if relative else w["E"] - state["e"]
        state["e"] = state["e"] + w["E"] if relative else w["E"]
    state["x"], state["y"] = nx, ny
    if de > 0 and (nx != x or ny != y):
        return Move(kind, state["z"], state["h"], x, y, nx, ny, de)
    return None


def filament_grams(length_mm: float, density: float) -> float:
    """Grams of ``length_mm`` of 1.75 mm filament at ``density`` g/cm3."""
    return length_mm * math.pi * (FILAMENT_DIAMETER / 2) ** 2 * density / 1000.0


def support_grams(gcode: Path, density: float) -> float:
    """Grams of support material the G-code extrudes."""
    return filament_grams(sum(m.filament for m in extrusions(gcode) if m.kind == "Support material"), density)


@dataclass(frozen=True)
class Span:
    """The longest line over air of one bridge move: how long, where (G-code frame) and at which layer."""

    length: float
    x: float
    y: float
    z: float


class Section:
    """The part's section at one height, as a raster (True: plastic) in the mesh's own frame."""

    def __init__(self, mesh: Any, z: float) -> None:
        from trimesh.intersections import mesh_plane

        lo, hi = mesh.bounds[0][:2] - 1.0, mesh.bounds[1][:2] + 1.0
        self.lo = lo
        nx, ny = (int(math.ceil(v)) for v in (hi - lo) / CELL)
        self.grid = np.zeros((ny, nx), dtype=bool)
        lines = np.asarray(mesh_plane(mesh, (0.0, 0.0, 1.0), (0.0, 0.0, z)))
        if len(lines) == 0:
            return
        a, b = lines[:, 0, :2], lines[:, 1, :2]
        ys = lo[1] + (np.arange(ny) + 0.5) * CELL
        ylo, yhi = np.minimum(a[:, 1], b[:, 1]), np.maximum(a[:, 1], b[:, 1])
        order = np.argsort(ylo)
        a, b, ylo, yhi = a[order], b[order], ylo[order], yhi[order]
        for row, yr in enumerate(ys):  # even-odd fill along each row
            upto = np.searchsorted(ylo, yr, side="right")
            hit = yhi[:upto] > yr
            if not hit.any():
                continue
            pa, pb = a[:upto][hit], b[:upto][hit]
            t = (yr - pa[:, 1]) / (pb[:, 1] - pa[:, 1])
            xs = np.sort(pa[:, 0] + t * (pb[:, 0] - pa[:, 0]))
            for x0, x1 in zip(xs[0::2], xs[1::2], strict=False):
                c0, c1 = int(math.floor((x0 - lo[0]) / CELL + 0.5)), int(math.floor((x1 - lo[0]) / CELL + 0.5))
                self.grid[row, max(c0, 0):max(c1, 0)] = True
        # A sample within a cell of plastic rests on it (the edge of an extrusion overlaps its neighbour).
        g = self.grid
        grown = g.copy()
        grown[1:, :] |= g[:-1, :]
        grown[:-1, :] |= g[1:, :]
        grown[:, 1:] |= g[:, :-1]
        grown[:, :-1] |= g[:, 1:]
        self.grid = grown

    def solid(self, pts: np.ndarray) -> np.ndarray:
        """Which of the points (N x 2, mesh frame) are over plastic."""
        cells = np.floor((pts - self.lo) / CELL).astype(int)
        ny, nx = self.grid.shape
        inside = (cells[:, 0] >= 0) & (cells[:, 0] < nx) & (cells[:, 1] >= 0) & (cells[:, 1] < ny)
        out = np.zeros(len(pts), dtype=bool)
        out[inside] = self.grid[cells[inside, 1], cells[inside, 0]]
        return out


def gcode_offset(gcode_moves: list[Move], mesh: Any) -> np.ndarray:
    """The x, y shift from the mesh's frame to the G-code's: the centres of the part's outer walls' extents."""
    walls = [m for m in gcode_moves if m.kind in ("External perimeter", "Overhang perimeter")]
    if not walls:
        raise ShutboxError("G-code holds no perimeters; allowed: G-code written by PrusaSlicer for this part")
    xs = [v for m in walls for v in (m.x0, m.x1)]
    ys = [v for m in walls for v in (m.y0, m.y1)]
    g_mid = np.array([(min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2])
    return g_mid - mesh.bounds.mean(axis=0)[:2]


def bridge_spans(gcode: Path, mesh: Any) -> list[Span]:
    """The longest line over air of every bridge move (see the module's docstring), longest first."""
    moves = list(extrusions(gcode))
    shift = gcode_offset(moves, mesh)
    z0 = float(mesh.bounds[0][2])
    bridges = [m for m in moves if m.kind in BRIDGE_TYPES and m.z - m.height > z0 + 1e-3]
    sections: dict[float, Section] = {}
    spans: list[Span] = []
    run, last_end, last_dir = 0.0, None, None
    for m in bridges:
        below = round(m.z - m.height - 0.05 - z0, 3) + z0
        if below not in sections:
            sections[below] = Section(mesh, below)
        a, b = np.array([m.x0, m.y0]), np.array([m.x1, m.y1])
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / length
        n = max(2, int(math.ceil(length / STEP)) + 1)
        pts = a + np.outer(np.linspace(0.0, 1.0, n), b - a) - shift
        solid = sections[below].solid(pts)
        # A line over air continues across consecutive moves in the same direction.
        joined = (last_end is not None and last_dir is not None and np.allclose(last_end, a, atol=1e-3)
                  and float(direction @ last_dir) > 0.98)
        best, best_at = 0.0, a
        cur = run if joined else 0.0
        step = length / (n - 1)
        for i, ok in enumerate(solid):
            if ok:
                cur = 0.0
            else:
                cur += step if i else 0.0
                if cur > best:
                    best, best_at = cur, pts[i] + shift
        run, last_end, last_dir = cur, b, direction
        if best > 0:
            spans.append(Span(best, float(best_at[0]), float(best_at[1]), m.z))
    return sorted(spans, key=lambda s: -s.length)


@dataclass(frozen=True)
class SupportAndBridges:
    """One part sliced with support on at PrusaSlicer's built-in settings: support grams and its bridges."""

    support_grams: float
    spans: list[Span]

    @property
    def longest(self) -> float:
        return self.spans[0].length if self.spans else 0.0


def slice_with_support(mesh_file: Path, gcode: Path, bed: tuple[float, float, float]) -> SupportAndBridges:
    """Slice ``mesh_file`` as a user would with support switched on (built-in settings, 0.2 mm layers) and
    measure what support it gets and how far its bridges run over air."""
    from shutbox.cad.geometry.mesh import load_mesh
    from shutbox.cad.slicer.slicing import DEFAULT_ARGS, PLA_DENSITY, SUPPORT_CHECK_ARGS, slice_part

    slice_part(mesh_file, gcode, [*DEFAULT_ARGS, *SUPPORT_CHECK_ARGS], bed)
    return SupportAndBridges(support_grams(gcode, PLA_DENSITY), bridge_spans(gcode, load_mesh(mesh_file)))


def check_sliced(folder: Path) -> list[Finding]:
    """``cad check --slice``: every part of a built folder sliced with support on, one at a time; each must get
    no support and no bridge line longer than ``BRIDGE_MAX`` over air (remembered by the file's content)."""
    import json
    import tempfile

    from shutbox.cad.checks.measure import remembered

    manifest = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))
    bed = tuple(manifest["bed_mm"])
    findings: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="shutbox-slice-") as tmp:
        for part in manifest["parts"]:
            fmt = next((f for f in ("stl", "3mf") if f in part["files"]), None)
            if fmt is None:
                findings.append(Finding("sliced", part["name"], False, "no mesh file to slice; allowed: --formats "
                                        "with stl or 3mf"))
                continue
            path = Path(folder) / part["files"][fmt]
            findings += remembered("sliced", path, [list(bed), BRIDGE_MAX],
                                    lambda path=path: sliced_findings(path, Path(tmp), bed))
    return findings


def sliced_findings(path: Path, work: Path, bed: tuple[float, float, float]) -> list[Finding]:
    """The support and bridge findings of one mesh file."""
    result = slice_with_support(path, work / f"{path.stem}.gcode", bed)
    top = result.spans[0] if result.spans else None
    where = f" (at x {top.x:.0f}, y {top.y:.0f}, z {top.z:.1f} on the bed)" if top else ""
    return [Finding("support", path.name, result.support_grams == 0.0,
                    f"{result.support_grams:.2f} g of support with support on (auto, 40 degrees)"),
            Finding("bridge", path.name, result.longest <= BRIDGE_MAX,
                    f"longest line over air {result.longest:.1f} mm{where}, at most {BRIDGE_MAX:g}")]
