"""The printable parts of one kit on a small shared base: each kind of part is a :class:`PartSpec`
subclass that says how to build and place it and carries its print settings, preview colour, the
``cad check`` checks that apply to it and the hardware fitted into it (its parts-list lines).

The geometry modules are imported only when a part is built, so planning a kit (and refusing a bed
that is too small) needs no CadQuery.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from shutbox.base.errors import ShutboxError
from shutbox.cad.geometry.boardfit import STRIP_SCREW, board_fit
from shutbox.cad.geometry.layout import (
    CAMERA_HFOV,
    CAMERA_IMAGE,
    COVER_HEIGHT,
    COVER_SCREW,
    GATE_SCREW,
    REFERENCE_MAGNET,
    SCREW_NAME,
    TAB_SCREW,
    Gate,
    Layout,
    button_name,
    gates,
)
from shutbox.cad.geometry.mount import build_mount, place_mount, plan_mount
from shutbox.cad.geometry.split import Piece, SplitPlan, fits
from shutbox.kit.model import Kit, kit_as_dict

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
    nozzle_mm: float = 0.4  # the printer's nozzle (a plate's parts share one: cad/shutbox/cad/build/plates.py)

    @property
    def infill(self) -> str:
        return "solid (100%)" if self.infill_percent >= 100 else f"{self.infill_percent}% {self.infill_pattern}"

    def object_config(self) -> dict[str, str]:
        """These settings as PrusaSlicer's per-object keys (what a project 3MF stores for the part)."""
        pattern = "rectilinear" if self.infill_percent >= 100 else self.infill_pattern
        return {"layer_height": f"{self.layer_height_mm:g}", "perimeters": str(self.perimeters),
                "fill_density": f"{self.infill_percent}%", "fill_pattern": pattern}

    def slicer_args(self) -> list[str]:
        """The PrusaSlicer command-line options that give these settings (first layer = layer height)."""
        keys = self.object_config()
        return ["--nozzle-diameter", f"{self.nozzle_mm:g}",
                "--layer-height", keys["layer_height"], "--first-layer-height", keys["layer_height"],
                "--perimeters", keys["perimeters"], "--fill-density", keys["fill_density"],
                "--fill-pattern", keys["fill_pattern"]]

    def as_dict(self) -> dict[str, Any]:
        return {"nozzle_mm": self.nozzle_mm, "layer_height_mm": self.layer_height_mm, "perimeters": self.perimeters,
                "infill": self.infill, "supports": "none", "orientation": self.orientation,
                **({"brim": self.brim} if self.brim else {})}


@dataclass(frozen=True)
class Item:
    """One line of the parts list: something to buy, how many, and what it is for."""

    name: str
    quantity: int
    note: str


@dataclass(frozen=True)
class PartSpec:
    """One printable part: ``quantity`` copies of the same file. Subclasses fill in the class variables."""

    name: str
    quantity: int
    inputs: dict[str, Any]  # everything the geometry depends on (the cache key)
    size: tuple[float, float, float]  # expected print extents, for the bed check before building

    kind: ClassVar[str]
    colour: ClassVar[tuple[int, int, int]]  # RGB in previews and the assembly
    settings: ClassVar[PrintSettings]
    #: Names of the part-specific checks ``cad check`` runs on this part's mesh (see check.PART_CHECKS).
    checks: ClassVar[tuple[str, ...]] = ()

    @property
    def print_settings(self) -> PrintSettings:
        return self.settings

    def build(self, builder: Builder) -> cq.Shape:
        """The part as printed (what the cache keeps: it depends only on ``inputs``)."""
        raise NotImplementedError

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        """Each copy of the printed part moved to its place in the assembled kit (box frame)."""
        raise NotImplementedError

    def fitted(self, kit: Kit, lay: Layout) -> list[Item]:
        """Hardware fitted into (each copy of) this part."""
        return []


@dataclass(frozen=True)
class BoxPieceSpec(PartSpec):
    """A piece of the box (the whole box when it fits the bed), printed upright."""

    kind: ClassVar[str] = "box"
    colour: ClassVar[tuple[int, int, int]] = (205, 170, 115)
    #: A 0.6 mm nozzle and 0.3 mm layers: the walls' perimeters are most of the kit's print time.
    settings: ClassVar[PrintSettings] = PrintSettings(0.3, 2, 15, "gyroid", "upright, bottom on the bed",
                                                      "3 mm if your bed adhesion is weak", nozzle_mm=0.6)

    def piece(self, builder: Builder) -> Piece:
        return next(p for p in builder.plan.pieces if p.name == self.name)

    def build(self, builder: Builder) -> cq.Shape:
        from shutbox.cad.geometry.split import cut_piece, print_piece

        piece = self.piece(builder)
        return print_piece(piece, cut_piece(builder.lay, builder.whole_box(), builder.plan, piece))

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        import cadquery as cq

        piece = self.piece(builder)
        solid = printed.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), -90) if piece.rotate else printed
        from shutbox.cad.geometry.split import reach_before

        bb = solid.BoundingBox()
        x0 = piece.x0 - reach_before(builder.plan, piece)
        return [solid.translate(cq.Vector(x0 - bb.xmin, piece.y0 - bb.ymin, -bb.zmin))]

    def fitted(self, kit: Kit, lay: Layout) -> list[Item]:
        return self._tab_screws(kit, lay) + self._sensing(kit, lay)

    def _sensing(self, kit: Kit, lay: Layout) -> list[Item]:
        if not lay.sensors:
            return []
        from shutbox.firmware.host.plan import pin_map
        from shutbox.firmware.host.topology import topology

        x0, x1 = self.inputs["span_x"]
        y0, y1 = self.inputs["span_y"]
        # The switches this piece holds: its lanes' shafts, when the piece reaches across the shafts' row (a box
        # also cut along its length has a piece without them in front of every piece with them).
        lanes = sum(x0 <= lay.lane_x(n) < x1 for n in kit.rules.tile_numbers) if y0 <= lay.switch_y < y1 else 0
        wiring = topology(pin_map(kit))
        contact = "normally closed" if wiring.tiles.normally_closed else "normally open"
        s = kit.sensors
        if s.lever:
            from shutbox.cad.geometry.microswitch import switch_item

            items = [Item(*switch_item(lanes, wiring.tiles.normally_closed))] if lanes else []
        else:
            items = [Item(f"reed switch, {contact}, glass body", lanes,
                          f"up to {s.reed_length_mm:g} mm long, {s.reed_diameter_mm:g} mm diameter; rated to close at "
                          f"{s.reed_operate_mm:g} mm and open by {s.reed_release_mm:g} mm from a "
                          f"{REFERENCE_MAGNET[0]:g} x {REFERENCE_MAGNET[1]:g} mm NdFeB rod magnet, end on (a 10-20 AT "
                          "reed); one under each lane")
                     ] if lanes else []
        if wiring.button is not None and x1 >= lay.length - 1e-6 and y0 <= lay.button_at[0] <= y1:
            items.append(Item(button_name(wiring.button.normally_closed), 1,
                              "ends the turn; in the right end wall, wired to the controller bay"))
        return items

    def _tab_screws(self, kit: Kit, lay: Layout) -> list[Item]:
        """The screws through the tabs this piece carries (a tray piece of a box cut at the tray's back wall)."""
        from shutbox.cad.geometry.split import plan_split

        x0, x1 = self.inputs["span_x"]
        y1 = self.inputs["span_y"][1]
        tabs = [k for k in plan_split(lay, kit.printer.bed_mm).keys
                if k.tab and x0 <= k.centre <= x1 and abs(k.at - y1) < 1e-6]
        return [Item(f"{SCREW_NAME}, {TAB_SCREW:g} mm", len(tabs),
                     "hold the tray to the deck: from below, through the tabs")] if tabs else []


@dataclass(frozen=True)
class TileSpec(PartSpec):
    """A sliding tile with its number, printed foot down."""

    kind: ClassVar[str] = "tile"
    colour: ClassVar[tuple[int, int, int]] = (240, 228, 200)
    #: 0.25 mm layers: 24 of them make the 6 mm tile (the numbers are cut into its flat top).
    settings: ClassVar[PrintSettings] = PrintSettings(0.25, 2, 20, "gyroid", "foot on the bed, number up")
    checks: ClassVar[tuple[str, ...]] = ("scoop",)

    def build(self, builder: Builder) -> cq.Shape:
        from shutbox.cad.geometry.tiles import build_tile

        return build_tile(builder.lay, self.inputs["number"])

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        from shutbox.cad.geometry.tiles import place_tile

        return [place_tile(builder.lay, printed, self.inputs["number"])]

    def fitted(self, kit: Kit, lay: Layout) -> list[Item]:
        if not lay.sensors or not kit.sensors.magnets:
            return []
        s = kit.sensors
        return [Item(f"disc magnet, axially magnetised, {s.magnet_grade} or stronger", 1,
                     f"{s.magnet_diameter_mm:g} x {s.magnet_height_mm:g} mm; one in each tile")]


@dataclass(frozen=True)
class DieSpec(PartSpec):
    """A die, printed solid so its plastic is even (1 on the bed, see :mod:`shutbox.cad.geometry.dice`)."""

    kind: ClassVar[str] = "die"
    colour: ClassVar[tuple[int, int, int]] = (245, 245, 242)
    settings: ClassVar[PrintSettings] = PrintSettings(0.2, 3, 100, "rectilinear", "{face} on the bed")
    checks: ClassVar[tuple[str, ...]] = ("balance",)

    @property
    def print_settings(self) -> PrintSettings:
        """The die's settings with the layer height closest to 0.2 mm that divides its size (no partial top layer)
        and the face that goes on the bed."""
        from dataclasses import replace

        from shutbox.cad.geometry.layout import BED_FACE

        size = self.inputs["size"]
        layers = max(1, round(size / self.settings.layer_height_mm))
        return replace(self.settings, layer_height_mm=round(size / layers, 4),
                       orientation=self.settings.orientation.format(face=BED_FACE))

    def build(self, builder: Builder) -> cq.Shape:
        from shutbox.cad.geometry.dice import build_die, print_die

        size = self.inputs["size"]
        return print_die(build_die(size), size)

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        import cadquery as cq

        lay = builder.lay
        half = self.inputs["size"] / 2
        return [printed.translate(cq.Vector(x - half, y - half, lay.tray_floor)) for x, y in lay.die_places()]


@dataclass(frozen=True)
class CoverSpec(PartSpec):
    """The electronics cover with the board's pins, printed outer face down."""

    kind: ClassVar[str] = "cover"
    colour: ClassVar[tuple[int, int, int]] = (90, 120, 160)
    settings: ClassVar[PrintSettings] = PrintSettings(0.3, 3, 30, "gyroid", "outer face on the bed, pins up",
                                                      nozzle_mm=0.6)

    def build(self, builder: Builder) -> cq.Shape:
        from shutbox.cad.geometry.cover import build_cover

        return build_cover(builder.lay)

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        from shutbox.cad.geometry.cover import place_cover

        return [place_cover(builder.lay, printed)]

    def fitted(self, kit: Kit, lay: Layout) -> list[Item]:
        s = kit.sensors
        board = {"pico": "Raspberry Pi Pico (RP2040)", "pico2": "Raspberry Pi Pico 2 (RP2350)"}[kit.firmware.board]
        return [
            Item(board, 1, f"{s.board_length_mm:g} x {s.board_width_mm:g} mm, on the cover's pins; runs the firmware"),
            Item(f"{SCREW_NAME}, {COVER_SCREW:g} mm", len(lay.screw_points()), "hold the electronics cover"),
            *([Item(STRIP_SCREW, len(fit.screws), "hold the circuit board's strip up under the lanes, if you fit "
                    "the board (docs/pcb.md)")] if (fit := board_fit(lay)) is not None and fit.screws else []),
        ]


@dataclass(frozen=True)
class GateSpec(PartSpec):
    """A gate closing the back of one column's lanes (fitted after the tiles), printed top face down."""

    kind: ClassVar[str] = "gate"
    colour: ClassVar[tuple[int, int, int]] = (185, 150, 100)
    settings: ClassVar[PrintSettings] = PrintSettings(0.3, 3, 15, "gyroid", "top face on the bed, countersinks down",
                                                      nozzle_mm=0.6)

    def gate(self, builder: Builder) -> Gate:
        return next(g for g in gates(builder.lay, builder.plan.xs) if g.name == self.name)

    def build(self, builder: Builder) -> cq.Shape:
        from shutbox.cad.geometry.box import build_gate

        return build_gate(builder.lay, self.gate(builder))

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        from shutbox.cad.geometry.box import place_gate

        return [place_gate(builder.lay, self.gate(builder), printed)]

    def fitted(self, kit: Kit, lay: Layout) -> list[Item]:
        count = len(next(g for g in gates(lay, self.inputs["cuts"]) if g.name == self.name).screw_points(lay))
        return [Item(f"{SCREW_NAME}, {GATE_SCREW:g} mm", count, "hold a gate behind the lanes")]


@dataclass(frozen=True)
class CameraMountSpec(PartSpec):
    """The camera mount (:mod:`shutbox.cad.geometry.mount`): clips onto the front wall and holds a webcam or a phone
    over the tray at the layout's camera height; printed upside down, the shelf's top face on the bed."""

    kind: ClassVar[str] = "camera-mount"
    colour: ClassVar[tuple[int, int, int]] = (70, 70, 75)
    settings: ClassVar[PrintSettings] = PrintSettings(0.3, 3, 20, "gyroid", "upside down: the shelf's top face on "
                                                      "the bed, the clip up", nozzle_mm=0.6)

    def build(self, builder: Builder) -> cq.Shape:
        return build_mount(plan_mount(builder.lay))

    def place(self, builder: Builder, printed: cq.Shape) -> list[cq.Shape]:
        return [place_mount(plan_mount(builder.lay), printed)]

    def fitted(self, kit: Kit, lay: Layout) -> list[Item]:
        w, h = CAMERA_IMAGE
        return [Item(f"webcam, {w} x {h} or more, about {CAMERA_HFOV:g} degrees across (or a phone)", 1,
                     "optional, for the scorekeeper's --camera (docs/dice.md): lies face down on the camera "
                     f"mount's shelf, {lay.camera_height:g} mm over the dice")]


#: Every kind of part, by its ``kind``.
KINDS: dict[str, type[PartSpec]] = {cls.kind: cls for cls in (BoxPieceSpec, TileSpec, DieSpec, CoverSpec, GateSpec,
                                                               CameraMountSpec)}


def tile_part_name(number: int) -> str:
    """The part name of tile ``number`` (``tile-01`` ...), as in the manifest and file names."""
    return f"tile-{number:02d}"


def _sections(kit: Kit, *names: str) -> dict[str, Any]:
    data = kit_as_dict(kit)
    return {name: data[name] for name in names}


def part_specs(kit: Kit, lay: Layout, plan: SplitPlan) -> list[PartSpec]:
    """Every part to print, box pieces first; refuses a bed too small for any of them."""
    mesh = {"cad": {k: v for k, v in _sections(kit, "cad")["cad"].items() if k != "cache_limit_mb"}}
    tile_inputs = {**_sections(kit, "box", "tile_fit", "sensors"), **mesh, "tiles": kit.rules.tiles}
    bay = {"shift_board": lay.shift_board}  # the bay takes the 74HC165 board (12 tiles or --tile-input 74hc165)
    box_inputs = {**tile_inputs, **bay, "bed": list(kit.printer.bed_mm)}
    specs: list[PartSpec] = [BoxPieceSpec(p.name, 1, {**box_inputs, "piece": p.name, "span_x": (p.x0, p.x1),
                                                       "span_y": (p.y0, p.y1)},
                                           p.size) for p in plan.pieces]
    for gate in gates(lay, plan.xs):
        depth, height = lay.width - lay.lane_end, lay.height - lay.gate_floor
        specs.append(GateSpec(gate.name, 1, {**box_inputs, "gate": gate.name, "cuts": list(plan.xs)},
                              (gate.x1 - gate.x0, depth, height)))
    tile_size = (max(lay.tile_foot, lay.tile_width + kit.tile_fit.detent_mm), lay.tile_length, lay.tile_thickness)
    for n in kit.rules.tile_numbers:
        specs.append(TileSpec(tile_part_name(n), 1, {**tile_inputs, "number": n}, tile_size))
    s = kit.dice.size_mm
    specs.append(DieSpec(f"die-{s:g}mm", 2, {"size": s, **mesh}, (s, s, s)))
    if lay.sensors:
        w, h = lay.cover_size
        specs.append(CoverSpec("electronics-cover", 1, {**_sections(kit, "sensors"), **bay, **mesh},
                               (w, h, COVER_HEIGHT)))
    specs.append(CameraMountSpec("camera-mount", 1, {**_sections(kit, "box"), **mesh,
                                                      "tray": list(lay.tray), "camera_height": lay.camera_height},
                                 plan_mount(lay).size))
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

    def __init__(self, kit: Kit, lay: Layout, plan: SplitPlan,
                 hollow: Callable[[], cq.Shape | None] | None = None) -> None:
        """``hollow``: gives the box's hollow tool if it was built elsewhere (``build_box``)."""
        self.kit, self.lay, self.plan = kit, lay, plan
        self.hollow = hollow
        self._box: cq.Shape | None = None

    def whole_box(self) -> cq.Shape:
        if self._box is None:
            from shutbox.cad.geometry.box import build_box

            self._box = build_box(self.lay, self.plan.xs, self.plan.ys, self.hollow)
        return self._box

    def build(self, spec: PartSpec) -> cq.Shape:
        """The part as printed (what the cache keeps: it depends only on ``spec.inputs``)."""
        return spec.build(self)

    def place(self, spec: PartSpec, printed: cq.Shape) -> list[cq.Shape]:
        """Each copy of the printed part moved to its place in the assembled kit (box frame)."""
        return spec.place(self, printed)
