"""The catalogue of printable parts for one kit: names, quantities, what each depends on, how to build it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from shutbox.cad.layout import COVER_HEIGHT, Layout
from shutbox.cad.split import Piece, SplitPlan, fits
from shutbox.errors import ShutboxError
from shutbox.model import Kit, kit_as_dict

if TYPE_CHECKING:
    import cadquery as cq

@dataclass(frozen=True)
class PrintSettings:
    """How one part is sliced (PrusaSlicer's names) and laid on the bed."""

    layer_height_mm: float
    perimeters: int
    infill_percent: int
    infill_pattern: str  # PrusaSlicer's --fill-pattern (100% is solid, laid as rectilinear)
    orientation: str
    brim: str = ""

    @property
    def infill(self) -> str:
        return "solid (100%)" if self.infill_percent >= 100 else f"{self.infill_percent}% {self.infill_pattern}"

    def slicer_args(self) -> list[str]:
        """The PrusaSlicer command-line options that give these settings (first layer = layer height)."""
        h = f"{self.layer_height_mm:g}"
        pattern = "rectilinear" if self.infill_percent >= 100 else self.infill_pattern
        return ["--layer-height", h, "--first-layer-height", h, "--perimeters", str(self.perimeters),
                "--fill-density", f"{self.infill_percent}%", "--fill-pattern", pattern]

    def as_dict(self) -> dict[str, Any]:
        return {"layer_height_mm": self.layer_height_mm, "perimeters": self.perimeters, "infill": self.infill,
                "supports": "none", "orientation": self.orientation, **({"brim": self.brim} if self.brim else {})}


#: Print settings per kind of part, shown in the manifest and the build guide.
PRINT_SETTINGS: dict[str, PrintSettings] = {
    "box": PrintSettings(0.2, 3, 15, "gyroid", "upright, bottom on the bed", "3 mm if your bed adhesion is weak"),
    "tile": PrintSettings(0.15, 3, 40, "gyroid", "foot on the bed, number up"),
    # Solid: sparse infill leaves a die's plastic heavier towards the bed (0.3 mm off centre at 15-20%).
    "die": PrintSettings(0.2, 3, 100, "rectilinear", "1 on the bed"),
    "cover": PrintSettings(0.2, 3, 30, "gyroid", "outer face on the bed, pins up"),
}


@dataclass(frozen=True)
class PartSpec:
    """One printable part: ``quantity`` copies of the same file."""

    name: str
    kind: str
    quantity: int
    inputs: dict[str, Any]  # everything the geometry depends on (the cache key)
    size: tuple[float, float, float]  # expected print extents, for the bed check before building


def tile_part_name(number: int) -> str:
    """The part name of tile ``number`` (``tile-01`` ...), as in the manifest and file names."""
    return f"tile-{number:02d}"


def _sections(kit: Kit, *names: str) -> dict[str, Any]:
    data = kit_as_dict(kit)
    return {name: data[name] for name in names}


def part_specs(kit: Kit, lay: Layout, plan: SplitPlan) -> list[PartSpec]:
    """Every part to print, box pieces first; refuses a bed too small for any of them."""
    mesh = _sections(kit, "cad")
    tile_inputs = {**_sections(kit, "box", "tile_fit", "sensors"), **mesh, "tiles": kit.rules.tiles}
    box_inputs = {**tile_inputs, "bed": list(kit.printer.bed_mm)}
    specs = [PartSpec(p.name, "box", 1, {**box_inputs, "piece": p.name}, p.size) for p in plan.pieces]
    tile_size = (max(lay.tile_foot, lay.tile_width + kit.tile_fit.detent_mm), lay.tile_length, lay.tile_thickness)
    for n in kit.rules.tile_numbers:
        specs.append(PartSpec(tile_part_name(n), "tile", 1, {**tile_inputs, "number": n}, tile_size))
    s = kit.dice.size_mm
    specs.append(PartSpec(f"die-{s:g}mm", "die", 2, {"size": s, **mesh}, (s, s, s)))
    if lay.sensors:
        w, h = lay.cover_size
        specs.append(PartSpec("electronics-cover", "cover", 1, {**_sections(kit, "sensors"), **mesh},
                              (w, h, COVER_HEIGHT)))
    bed = kit.printer.bed_mm
    for spec in sorted(specs, key=lambda p: min(p.size[:2])):
        if fits(spec.size, bed) is None:
            a, b, c = spec.size
            raise ShutboxError(
                f"--bed {kit.printer.bed}: too small for the {spec.kind} ({a:.1f} x {b:.1f} x {c:.1f} mm); "
                f"allowed: a bed that holds it"
            )
    return specs


class Builder:
    """Builds parts for one kit, sharing the one-piece box between the box pieces."""

    def __init__(self, kit: Kit, lay: Layout, plan: SplitPlan) -> None:
        self.kit, self.lay, self.plan = kit, lay, plan
        self._box: cq.Shape | None = None

    def whole_box(self) -> cq.Shape:
        if self._box is None:
            from shutbox.cad.box import build_box

            self._box = build_box(self.lay)
        return self._box

    def build(self, spec: PartSpec) -> cq.Shape:
        """The part as printed (what the cache keeps: it depends only on ``spec.inputs``)."""
        lay = self.lay
        if spec.kind == "box":
            from shutbox.cad.split import cut_piece, print_piece

            piece = self._piece(spec)
            return print_piece(piece, cut_piece(lay, self.whole_box(), self.plan, piece))
        if spec.kind == "tile":
            from shutbox.cad.tiles import build_tile

            return build_tile(lay, spec.inputs["number"])
        if spec.kind == "die":
            from shutbox.cad.dice import build_die, print_die

            size = spec.inputs["size"]
            return print_die(build_die(size), size)
        if spec.kind == "cover":
            from shutbox.cad.cover import build_cover

            return build_cover(lay)
        raise KeyError(spec.kind)

    def place(self, spec: PartSpec, printed: cq.Shape) -> list[cq.Shape]:
        """Each copy of the printed part moved to its place in the assembled kit (box frame)."""
        import cadquery as cq

        lay = self.lay
        if spec.kind == "box":
            piece = self._piece(spec)
            solid = printed.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), -90) if piece.rotate else printed
            bb = solid.BoundingBox()
            return [solid.translate(cq.Vector(piece.x0 - bb.xmin, piece.y0 - bb.ymin, -bb.zmin))]
        if spec.kind == "tile":
            from shutbox.cad.tiles import place_tile

            return [place_tile(lay, printed, spec.inputs["number"])]
        if spec.kind == "die":
            half = spec.inputs["size"] / 2
            return [printed.translate(cq.Vector(x - half, y - half, lay.tray_floor)) for x, y in lay.die_places()]
        if spec.kind == "cover":
            from shutbox.cad.cover import place_cover

            return [place_cover(lay, printed)]
        raise KeyError(spec.kind)

    def _piece(self, spec: PartSpec) -> Piece:
        return next(p for p in self.plan.pieces if p.name == spec.name)
