"""The kit laid out on bed plates: every printed copy of every part placed on a plate of the kit's bed,
inside it and clear of the others, the parts of one plate sharing a nozzle (each plate is one project
3MF, ``cad/shutbox/cad/slicer/project3mf.py``).

Parts are packed in rows (largest first), turned 90 degrees only when they must be, each plate's layout
centred on the bed. The same packing runs on the planned sizes (the build guide names the plates before
any geometry) and on the meshes as built (the project files), so both list the same plates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shutbox.base.errors import ShutboxError

EDGE = 5.0  # mm kept free round the bed's edge (skirt, purge line)
GAP = 6.0  # mm between two parts on a plate
EPS = 1e-6


@dataclass(frozen=True)
class Piece:
    """One part to lay out: its name, copies, footprint (x, y extents as printed, mm) and nozzle."""

    name: str
    quantity: int
    size: tuple[float, float]
    nozzle_mm: float


@dataclass(frozen=True)
class Placed:
    """One copy on a plate: the footprint's lower-left corner on the bed, and whether it is turned 90 degrees
    (counter-clockwise, about z) from the file's own orientation."""

    name: str
    copy: int
    x: float
    y: float
    turned: bool
    size: tuple[float, float]  # on the bed, after turning


@dataclass(frozen=True)
class Plate:
    """One bed's worth of parts, printed with one nozzle."""

    number: int
    nozzle_mm: float
    placed: tuple[Placed, ...]

    @property
    def file(self) -> str:
        """The project file's path in a built folder."""
        return f"project/plate-{self.number}.3mf"

    @property
    def parts(self) -> list[str]:
        """The part names on this plate, in order, each once."""
        return list(dict.fromkeys(p.name for p in self.placed))


class _Rows:
    """Row packing on one bed: rows along x, stacked along y."""

    def __init__(self, bed: tuple[float, float], edge: float) -> None:
        self.w, self.h, self.edge = bed[0], bed[1], edge
        self.rows: list[list[float]] = []  # [y, depth, x cursor]
        self.placed: list[Placed] = []

    def add(self, name: str, copy: int, size: tuple[float, float]) -> bool:
        for turned, (a, b) in ((False, size), (True, (size[1], size[0]))):
            for row in self.rows:
                if b <= row[1] + EPS and row[2] + a <= self.w - self.edge + EPS:
                    self.placed.append(Placed(name, copy, row[2], row[0], turned, (a, b)))
                    row[2] += a + GAP
                    return True
            y = self.rows[-1][0] + self.rows[-1][1] + GAP if self.rows else self.edge
            if y + b <= self.h - self.edge + EPS and self.edge + a <= self.w - self.edge + EPS:
                self.rows.append([y, b, self.edge + a + GAP])
                self.placed.append(Placed(name, copy, self.edge, y, turned, (a, b)))
                return True
        return False

    def centred(self) -> tuple[Placed, ...]:
        x0 = min(p.x for p in self.placed)
        y0 = min(p.y for p in self.placed)
        x1 = max(p.x + p.size[0] for p in self.placed)
        y1 = max(p.y + p.size[1] for p in self.placed)
        dx, dy = (self.w - (x1 - x0)) / 2 - x0, (self.h - (y1 - y0)) / 2 - y0
        return tuple(Placed(p.name, p.copy, round(p.x + dx, 3), round(p.y + dy, 3), p.turned, p.size)
                     for p in self.placed)


def plates(pieces: Sequence[Piece], bed: tuple[float, float, float]) -> list[Plate]:
    """Every copy of every piece on plates of ``bed``: one nozzle per plate, the largest nozzle's plates
    first, fewest plates the row packing finds (largest footprints first, a new plate when one is full)."""
    result: list[Plate] = []
    for nozzle in sorted({p.nozzle_mm for p in pieces}, reverse=True):
        group = sorted((p for p in pieces if p.nozzle_mm == nozzle),
                       key=lambda p: (-max(p.size), -min(p.size), p.name))
        open_plates: list[_Rows] = []
        for piece in group:
            for copy in range(1, piece.quantity + 1):
                if any(rows.add(piece.name, copy, piece.size) for rows in open_plates):
                    continue
                for edge in (EDGE, 0.0):  # a part as large as the bed goes on without the free edge
                    rows = _Rows(bed[:2], edge)
                    if rows.add(piece.name, copy, piece.size):
                        open_plates.append(rows)
                        break
                else:
                    a, b = piece.size
                    raise ShutboxError(f"{piece.name}: {a:.1f} x {b:.1f} mm does not fit the {bed[0]:g} x {bed[1]:g} "
                                       "mm bed; allowed: a bed that holds it")
        result += [Plate(len(result) + i + 1, nozzle, rows.centred()) for i, rows in enumerate(open_plates)]
    return result
