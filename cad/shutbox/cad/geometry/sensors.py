"""What the box holds but does not print: the reed switches with their leads folded as the build guide says,
the tiles' magnets, the controller board and the 74HC165 board, as solids placed in the box frame; the shape
of the reed switch shafts that seat them; and the magnet's pull on a reed switch.

A seated reed switch: glass of the kit's reed length and diameter; the bottom lead straight down; the top lead
straight out of the seal for ``REED_BEND`` (the pliers' jaw), then folded down in a U so its return leg lies
along the glass. Pushed up its shaft, the U stops against the shaft's small flat ceiling, which is placed so the
glass then sits ``reed_gap_mm`` under a shut tile's magnet (see :mod:`shutbox.cad.geometry.layout`).

The magnet's pull: the field of an axially magnetised disc (or rod) magnet, from the magnetic charge on its two
faces (exact for a uniformly magnetised cylinder, integrated numerically), is taken along the reed's axis at the
glass's near end. A reed switch's rating is an operate and a release distance with a reference magnet (a
reed maker's catalogue: Reed Relays and Electronics India's actuation distance tables give a 10-20 AT
sub-miniature reed, e.g. the SM-1322, 7.5-11.0 mm operate and 9.0-12.0 mm release with their NDC-S, an NdFeB
rod of 3 mm diameter and 7 mm length, end on); the field that magnet gives at those distances is the field
that closes and the field that opens the switch. The reference magnet's grade is not stated, so the operate
field is worked out for the strongest grade (the most field the switch may need) and the release field for the
weakest (the least field it may take to open). A first-order model (the reed's own iron bends the field), so
the checks keep a margin.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cadquery as cq
import numpy as np

from shutbox.cad.checks.findings import Finding
from shutbox.cad.geometry.layout import (
    COVER_THICKNESS,
    GROOVE,
    MAGNET_AT,
    REED_BEND,
    REED_LEAD,
    REED_LEAD_LENGTH,
    REFERENCE_MAGNET,
    SHIFT_GAP,
    SHIFT_RAIL,
    STANDOFF,
    TUBE_WALL,
    Layout,
)
from shutbox.cad.geometry.shapes import shape_of
from shutbox.kit.model import MAGNET_GRADES, Kit

GAP_TOLERANCE = 0.5  # the seated glass within this of the stated gap, mm
SEAT_NUDGE = 0.2  # a seated part pushed this much further runs into what seats it, mm
CLASH_MM3 = 1e-3  # common volume that counts as a collision
PICO_PCB = 1.0  # the controller board's PCB thickness (Raspberry Pi Pico: 1 mm)
PICO_HOLE = 2.1  # its mounting holes
USB_SOCKET = (5.5, 8.0)  # micro-USB socket: length along the board, width
PERFBOARD = 1.6  # the 74HC165 board's PCB
SOLDER_TAILS = 2.0  # solder joints and wire ends under the 74HC165 board
DIP16 = (19.3, 6.35)  # a DIP-16 package's body, length x width
BOARD_CLEARANCE = 0.3  # least room between a board and the box round it, mm


# --- the shaft ------------------------------------------------------------------------------------

def shaft_tool(lay: Layout, x: float) -> cq.Shape:
    """The reed switch shaft at lane centre ``x``: open at the bed, straight up to ``shaft_top``, then tapering at
    45 degrees to a small flat ceiling (``shaft_ceiling``) that stops the folded lead."""
    y, r = lay.switch_y, lay.shaft_radius
    straight = cq.Solid.makeCylinder(r, lay.shaft_top + 1.0, cq.Vector(x, y, -1.0))
    taper = cq.Solid.makeCone(r, lay.ceiling_radius, lay.shaft_ceiling - lay.shaft_top,
                              cq.Vector(x, y, lay.shaft_top - 1e-3))
    return straight.fuse(taper).clean()


def switch_pockets(lay: Layout) -> list[cq.Shape]:
    """Each lane's switch pocket: the reed switch's shaft or the microswitch's pocket and lever slot."""
    if lay.kit.sensors.lever:
        from shutbox.cad.geometry.microswitch import pocket_tool

        return [pocket_tool(lay, lay.lane_x(n)) for n in range(1, lay.tiles + 1)]
    return [shaft_tool(lay, lay.lane_x(n)) for n in range(1, lay.tiles + 1)]


def switch_columns(lay: Layout, supports: list[float]) -> list[tuple[tuple[float, float], cq.Shape]]:
    """What stands round each lane's switch pocket in the hollow under the deck: an x range where the spine stands
    solid (a post of its arches) and the solid: a tube round a reed's shaft, or a microswitch's shelf from one of
    ``supports`` (x of the cross ribs and walls) to the next."""
    if lay.kit.sensors.lever:
        from shutbox.cad.geometry.microswitch import column

        return [column(lay, n, supports) for n in range(1, lay.tiles + 1)]
    tube, tall, y = lay.shaft_radius + TUBE_WALL, lay.height + 2.0, lay.switch_y
    return [((x - tube, x + tube), cq.Solid.makeCylinder(tube, tall, cq.Vector(x, y, -1.0)))
            for x in (lay.lane_x(n) for n in range(1, lay.tiles + 1))]


def switch_rib_posts(lay: Layout) -> list[tuple[float, float]]:
    """The y ranges where the cross ribs under the deck stand solid for the switches (a microswitch's shelf rests on
    them; none for reed switches)."""
    if lay.kit.sensors.lever:
        from shutbox.cad.geometry.microswitch import rib_posts

        return rib_posts(lay)
    return []


# --- bodies ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reed:
    """A reed switch seated in lane ``number``'s shaft: its glass, and glass and leads together (box frame)."""

    number: int
    glass: cq.Shape
    leads: cq.Shape
    body: cq.Shape


def reed(lay: Layout, number: int, lift: float = 0.0) -> Reed:
    """The reed switch of lane ``number`` as the guide has it folded and seated (``lift``: pushed that much higher)."""
    s = lay.kit.sensors
    r_glass, r_lead, fold = s.reed_diameter_mm / 2, REED_LEAD / 2, lay.fold_radius
    cx, y = lay.lane_x(number), lay.switch_y
    gx = cx - lay.glass_offset  # the glass's axis; the U of the top lead is centred on the shaft's
    top = lay.reed_top + lift
    glass = cq.Solid.makeCylinder(r_glass, s.reed_length_mm, cq.Vector(gx, y, top - s.reed_length_mm))
    bottom = cq.Solid.makeCylinder(r_lead, REED_LEAD_LENGTH + 0.01,
                                   cq.Vector(gx, y, top - s.reed_length_mm - REED_LEAD_LENGTH))
    up = cq.Solid.makeCylinder(r_lead, REED_BEND + 0.01, cq.Vector(gx, y, top - 0.01))
    bend = shape_of(cq.Workplane("XY").moveTo(-fold, 0).circle(r_lead).revolve(180, (0, 0, 0), (0, 1, 0)))
    u = bend.translate(cq.Vector(cx, y, top + REED_BEND))
    back = REED_LEAD_LENGTH - REED_BEND - math.pi * fold  # what is left of the lead, down along the glass
    down = cq.Solid.makeCylinder(r_lead, back + 0.01, cq.Vector(cx + fold, y, top + REED_BEND - back))
    leads = [bottom, up, u, down]
    return Reed(number, glass, cq.Compound.makeCompound(leads),  # type: ignore[arg-type]
                cq.Compound.makeCompound([glass, *leads]))  # type: ignore[arg-type]


def magnet(lay: Layout, number: int, shut: bool = True, lift: float = 0.0) -> cq.Shape:
    """Tile ``number``'s magnet, pressed to the bottom of its pocket (``lift``: pushed that much further in)."""
    s = lay.kit.sensors
    base = cq.Vector(lay.lane_x(number), lay.tile_y(shut) + MAGNET_AT, lay.magnet_face + lift)
    return cq.Solid.makeCylinder(s.magnet_diameter_mm / 2, s.magnet_height_mm, base)


def _on_cover(lay: Layout, x: float, y: float, z: float) -> cq.Vector:
    ox, oy = lay.cover_origin
    return cq.Vector(ox + x, oy + y, z)


def controller_board(lay: Layout, lift: float = 0.0) -> cq.Shape:
    """The controller board on its standoffs (box frame): PCB with its mounting holes, the USB socket at +x."""
    s = lay.kit.sensors
    bx, by = lay.board_origin
    z = COVER_THICKNESS + STANDOFF + lift
    pcb = cq.Solid.makeBox(s.board_length_mm, s.board_width_mm, PICO_PCB, _on_cover(lay, bx, by, z))
    holes = [cq.Solid.makeCylinder(PICO_HOLE / 2, PICO_PCB + 2.0, _on_cover(lay, px, py, z - 1.0))
             for px, py in lay.pin_points()]
    length, width = USB_SOCKET
    usb = cq.Solid.makeBox(length, width, s.board_height_mm - PICO_PCB,
                           _on_cover(lay, bx + s.board_length_mm - length, by + (s.board_width_mm - width) / 2,
                                     z + PICO_PCB))
    return pcb.cut(*holes).fuse(usb).clean()


def shift_board(lay: Layout, lift: float = 0.0) -> cq.Shape:
    """The 74HC165 board on its rails (box frame): perfboard, two DIP-16 chips end to end, the solder tails under
    it between the rails."""
    board, chips = shift_board_parts(lay, lift)
    return board.fuse(*chips).clean()


def shift_board_parts(lay: Layout, lift: float = 0.0) -> tuple[cq.Shape, list[cq.Shape]]:
    """The 74HC165 board's perfboard with the solder tails under it, and its two chips (box frame)."""
    s = lay.kit.sensors
    bx, by = lay.shift_origin
    length, width = s.shift_board_length_mm, s.shift_board_width_mm
    z = COVER_THICKNESS + STANDOFF + lift
    pcb = cq.Solid.makeBox(length, width, PERFBOARD, _on_cover(lay, bx, by, z))
    chip_h = s.shift_board_height_mm - PERFBOARD - SOLDER_TAILS
    dl, dw = DIP16
    pitch = length / 2
    chips: list[cq.Shape] = []
    for k in range(2):
        corner = _on_cover(lay, bx + pitch * (k + 0.5) - dl / 2, by + (width - dw) / 2, z + PERFBOARD)
        chips.append(cq.Solid.makeBox(dl, dw, chip_h, corner))
    inner = width - 2 * (SHIFT_RAIL + BOARD_CLEARANCE)
    tails = cq.Solid.makeBox(length - 2.0, inner, SOLDER_TAILS,
                             _on_cover(lay, bx + 1.0, by + SHIFT_RAIL + BOARD_CLEARANCE, z - SOLDER_TAILS))
    return pcb.fuse(tails).clean(), chips


def shift_rails(lay: Layout) -> list[cq.Shape]:
    """What the 74HC165 board rests on, on the cover (cover frame): a rail under each long edge, and a stop
    beyond each end that keeps it from sliding into the controller board or the cover's flange."""
    s = lay.kit.sensors
    bx, by = lay.shift_origin
    length, width = s.shift_board_length_mm, s.shift_board_width_mm
    rails: list[cq.Shape] = [cq.Solid.makeBox(length, SHIFT_RAIL, COVER_THICKNESS + STANDOFF, cq.Vector(bx, y, 0.0))
             for y in (by, by + width - SHIFT_RAIL)]
    stop_h = COVER_THICKNESS + STANDOFF + PERFBOARD + 1.0
    stops = [cq.Solid.makeBox(1.2, SHIFT_RAIL, stop_h, cq.Vector(x, by + (width - SHIFT_RAIL) / 2, 0.0))
             for x in (bx - 1.2 - BOARD_CLEARANCE, bx + length + BOARD_CLEARANCE)]
    return rails + stops


# --- the magnet's pull ----------------------------------------------------------------------------

_RADIAL, _ANGULAR = np.polynomial.legendre.leggauss(16), 48


def field(br: float, diameter: float, height: float, centre: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Flux density (T) at ``point`` (mm) of a cylinder magnet magnetised along +z with remanence ``br`` (T),
    its centre at ``centre``: the magnetic charge on its faces, integrated (Gauss-Legendre across, even round)."""
    nodes, weights = _RADIAL
    radius = diameter / 2
    rho = (nodes + 1) / 2 * radius
    w_rho = weights / 2 * radius * rho
    theta = np.arange(_ANGULAR) * (2 * math.pi / _ANGULAR)
    rr, tt = np.meshgrid(rho, theta, indexing="ij")
    area = np.repeat(w_rho[:, None], _ANGULAR, axis=1) * (2 * math.pi / _ANGULAR)
    total = np.zeros(3)
    for sign in (1.0, -1.0):
        src = np.stack([centre[0] + rr * np.cos(tt), centre[1] + rr * np.sin(tt),
                        np.full_like(rr, centre[2] + sign * height / 2)], axis=-1)
        d = point - src
        dist = np.linalg.norm(d, axis=-1)
        total += sign * np.einsum("ij,ijk->k", area / dist**3, d)
    return br / (4 * math.pi) * total


def axial_field(br: float, diameter: float, height: float, distance: float) -> float:
    """On the axis, ``distance`` from a face of that magnet: the closed form (for checking :func:`field`)."""
    r, z, length = diameter / 2, distance, height
    return br / 2 * ((z + length) / math.hypot(r, z + length) - z / math.hypot(r, z))


def switch_fields(kit: Kit) -> tuple[float, float]:
    """(operate, release) flux density of the kit's reed switch, T, from its rated distances (module notes)."""
    s = kit.sensors
    d, length = REFERENCE_MAGNET
    strongest, weakest = max(MAGNET_GRADES.values()), min(MAGNET_GRADES.values())
    return (axial_field(strongest, d, length, s.reed_operate_mm), axial_field(weakest, d, length, s.reed_release_mm))


def reach(kit: Kit, flux: float) -> float:
    """How far from the kit's magnet, end on, its field falls to ``flux`` (mm): its operate or release distance."""
    s = kit.sensors
    br = MAGNET_GRADES[s.magnet_grade]
    lo, hi = 0.0, 200.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if axial_field(br, s.magnet_diameter_mm, s.magnet_height_mm, mid) > flux else (lo, mid)
    return lo


def along_reed(lay: Layout, reed_number: int, tile: int, shut: bool) -> float:
    """Flux density (T) along the axis of lane ``reed_number``'s seated reed switch, at its glass's top end, from
    tile ``tile``'s magnet (shut or open)."""
    s = lay.kit.sensors
    br = MAGNET_GRADES[s.magnet_grade]
    centre = np.array([lay.lane_x(tile), lay.tile_y(shut) + MAGNET_AT, lay.magnet_face + s.magnet_height_mm / 2])
    tip = np.array([lay.lane_x(reed_number) - lay.glass_offset, lay.switch_y, lay.reed_top])
    return float(field(br, s.magnet_diameter_mm, s.magnet_height_mm, centre, tip)[2])


def check_pull(lay: Layout) -> Iterator[Finding]:
    """A shut tile's magnet closes its reed switch (field along the reed at least the operate field); the same
    magnet with the tile open, and a neighbouring lane's magnet shut, leave it open (below the release field)."""
    kit = lay.kit
    s = kit.sensors
    operate, release = switch_fields(kit)
    shut = abs(along_reed(lay, 1, 1, True))
    magnet_name = f"{s.magnet_diameter_mm:g} x {s.magnet_height_mm:g} mm {s.magnet_grade}"
    yield Finding("magnet", "shut tile", shut >= operate,
                  f"{magnet_name} {s.reed_gap_mm:g} mm over the glass: {shut * 1e3:.1f} mT along the reed, it closes "
                  f"at {operate * 1e3:.1f} mT (rated {s.reed_operate_mm:g} mm; this magnet reaches "
                  f"{reach(kit, operate):.1f} mm)")
    stray = [("open tile", abs(along_reed(lay, 1, 1, False)))]
    if lay.tiles > 1:
        stray.append(("shut neighbour", abs(along_reed(lay, 1, 2, True))))
    for subject, flux in stray:
        yield Finding("magnet", subject, flux < release,
                      f"{flux * 1e3:.2f} mT along the reed of lane 1, it opens below {release * 1e3:.2f} mT (rated "
                      f"{s.reed_release_mm:g} mm; this magnet {reach(kit, release):.1f} mm)")


# --- seated as drawn ------------------------------------------------------------------------------

def _overlap(a: Any, b: Any) -> bool:
    return not (a.xmax < b.xmin or b.xmax < a.xmin or a.ymax < b.ymin or b.ymax < a.ymin
                or a.zmax < b.zmin or b.zmax < a.zmin)


def _clash(shapes: list[Any], part: Any) -> float:
    """Common volume of ``part`` with ``shapes`` (small ones: crop big pieces first, see :func:`_slim`)."""
    from shutbox.cad.checks.check import _common_volume, bounds

    bb = bounds(part)
    return sum(_common_volume(shape, part) for shape in shapes if _overlap(bounds(shape), bb))


Corner = tuple[float, float, float]


def _slim(shapes: list[Any], regions: list[tuple[Corner, Corner]]) -> list[Any]:
    """The solids of ``shapes`` inside the boxes ``regions`` (each from its low to its high corner): one boolean per
    big piece, so that every part measured afterwards meets only the small solids round it (a boolean costs with
    the faces of both)."""
    from shutbox.cad.checks.check import bounds

    boxes = [cq.Solid.makeBox(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], cq.Vector(*lo)) for lo, hi in regions]
    region = cq.Compound.makeCompound(boxes)  # type: ignore[arg-type]
    out = []
    for shape in shapes:
        if _overlap(bounds(shape), region.BoundingBox()):
            out += shape.intersect(region).Solids()
    return out


def seat_reed(lay: Layout, walls: list[Any], tiles: dict[int, Any], number: int) -> dict[str, float]:
    """Lane ``number``'s reed switch and magnet, measured in the assembled box: what the reed, seated and pushed
    ``SEAT_NUDGE`` further, has in common with the box; the same for the magnet in its (shut) tile; and the
    distance from the glass to the magnet."""
    seated, pushed = reed(lay, number), reed(lay, number, SEAT_NUDGE)
    out = {"reed": _clash(walls, seated.body), "reed_pushed": _clash(walls, pushed.body)}
    tile = tiles.get(number)
    if tile is not None:
        shut = tile.translate(cq.Vector(0, lay.tile_y(True) - lay.tile_y(_is_open(lay, tile) is False), 0))
        s, x, y = lay.kit.sensors, lay.lane_x(number), lay.switch_y
        r, z = s.magnet_diameter_mm / 2 + 1.0, lay.magnet_face
        pocket = _slim([shut], [((x - r, y - r, z - 1.0), (x + r, y + r, z + s.magnet_height_mm + SEAT_NUDGE + 1.0))])
        out["magnet"] = _clash(pocket, magnet(lay, number))
        out["magnet_pushed"] = _clash(pocket, magnet(lay, number, lift=SEAT_NUDGE))
    out["gap"] = seated.glass.distance(magnet(lay, number))
    return out


def _is_open(lay: Layout, tile: Any) -> bool:
    """Whether the assembly has ``tile`` at its open end (else shut)."""
    from shutbox.cad.checks.check import bounds

    return bool(bounds(tile).ymin > lay.tile_y(True) + lay.travel / 2)


def check_reeds(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """Each lane's reed switch, folded as the guide says and pushed up its shaft, seats without touching the box
    and stops there (pushed further it runs into the shaft's ceiling), its glass at the gap the guide states from
    the magnet of the shut tile (which fits its pocket the same way)."""
    from shutbox.cad.checks.check import _fingerprint, _memo

    pieces = [shape for _, kind, shape in solids if kind == "box"]
    tiles = {int(name.split("-")[1]): shape for name, kind, shape in solids if kind == "tile"}
    prints = [_fingerprint(w) for w in pieces]
    want = lay.kit.sensors.reed_gap_mm
    walls: list[Any] = []
    for n in range(1, lay.tiles + 1):
        tile_print = _fingerprint(tiles[n]) if n in tiles else None

        def measure(n: int = n) -> dict[str, float]:
            if not walls:  # the pieces along the row of shafts, once for every lane
                reach = lay.shaft_radius + 1.5
                z0 = lay.reed_top - lay.kit.sensors.reed_length_mm - REED_LEAD_LENGTH - 1.0
                z1 = lay.shaft_ceiling + SEAT_NUDGE + 1.0
                walls.extend(_slim(pieces, [((lay.lane_x(k) - reach, lay.switch_y - reach, z0),
                                             (lay.lane_x(k) + reach, lay.switch_y + reach, z1))
                                            for k in range(1, lay.tiles + 1)]))
            return seat_reed(lay, walls, tiles, n)

        got = _memo("reed-seat", [prints, tile_print, n, _reed_identity(lay)], measure)
        clear = got["reed"] <= CLASH_MM3 and got.get("magnet", 0.0) <= CLASH_MM3
        stops = got["reed_pushed"] > CLASH_MM3 and got.get("magnet_pushed", 1.0) > CLASH_MM3
        near = abs(got["gap"] - want) <= GAP_TOLERANCE
        yield Finding("reed", f"lane {n}", clear and stops and near,
                      f"seated: {got['reed']:.3f} mm3 in the box (magnet {got.get('magnet', float('nan')):.3f} in its "
                      f"tile); pushed {SEAT_NUDGE:g} mm on {got['reed_pushed']:.2f} mm3 (it stops); glass "
                      f"{got['gap']:.2f} mm from the shut tile's magnet, guide {want:g} +- {GAP_TOLERANCE:g}")


def _reed_identity(lay: Layout) -> list[Any]:
    s = lay.kit.sensors
    return [s.reed_length_mm, s.reed_diameter_mm, s.reed_gap_mm, s.magnet_diameter_mm, s.magnet_height_mm,
            s.magnet_slack_mm, REED_BEND, REED_LEAD, REED_LEAD_LENGTH]


def check_bay(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """The controller board and (when the kit needs it) the 74HC165 board, on the fitted cover, touch neither the
    box nor the cover, keep ``BOARD_CLEARANCE`` from the box, and rest on what holds them (dropped
    ``SEAT_NUDGE`` they run into it); the wires have a clear way from the switches' channel to the 74HC165 board
    and on to the controller."""
    from shutbox.cad.checks.check import _fingerprint, _memo

    pieces = [shape for _, kind, shape in solids if kind == "box"]
    covers = [shape for _, kind, shape in solids if kind == "cover"]
    boards = [("controller board", controller_board)] + ([("74HC165 board", shift_board)] if lay.shift_board else [])
    prints = [[_fingerprint(b) for b in pieces], [_fingerprint(c) for c in covers]]
    boxes: list[Any] = []

    def near_bay() -> list[Any]:
        if not boxes:  # the pieces round the bay and the wires' way into it, once
            ox, oy = lay.cover_origin
            w, h = lay.cover_size
            boxes.extend(_slim(pieces, [((ox - 3.0, lay.switch_y - 3.0, -1.0),
                                         (ox + w + 3.0, oy + h + 3.0, lay.cavity_height + lay.cavity_width + 3.0))]))
        return boxes

    for label, make in boards:
        def measure(make: Any = make) -> list[float]:
            body, dropped = make(lay), make(lay, -SEAT_NUDGE)
            gap = min((n.distance(body) for n in near_bay()), default=float("inf"))
            return [_clash(near_bay(), body), _clash(covers, body), _clash(covers, dropped), gap]

        in_box, in_cover, rests, gap = _memo("bay-board", [prints, label, _bay_identity(lay)], measure)
        ok = in_box <= CLASH_MM3 and in_cover <= CLASH_MM3 and rests > CLASH_MM3 and gap >= BOARD_CLEARANCE - 1e-6
        yield Finding("bay", label, ok, f"{in_box:.3f} mm3 in the box, {in_cover:.3f} in the cover, {gap:.2f} mm from "
                      f"the box (at least {BOARD_CLEARANCE:g}); dropped {SEAT_NUDGE:g} mm: {rests:.2f} mm3 (it rests)")
    ways = wire_ways(lay)
    clash = _memo("bay-wires", [prints, _bay_identity(lay)],
                  lambda: [_clash(near_bay() + covers, w) for _, w in ways])
    yield Finding("bay", "wire ways", all(c <= CLASH_MM3 for c in clash),
                  ", ".join(f"{label} {c:.3f} mm3 of plastic" for (label, _), c in zip(ways, clash, strict=True)))


def _bay_identity(lay: Layout) -> list[Any]:
    s = lay.kit.sensors
    return [lay.cavity, lay.cover_origin, lay.board_origin, lay.shift_origin, lay.shift_board, s.board_length_mm,
            s.board_width_mm, s.board_height_mm, s.shift_board_length_mm, s.shift_board_width_mm,
            s.shift_board_height_mm]


def wire_ways(lay: Layout) -> list[tuple[str, cq.Shape]]:
    """The wires' way into the bay (a bundle 2 mm across, along the branch of the switches' channel and over the
    cover's flange to the bay's edge) and, with the 74HC165 board, across the gap to the controller board over
    the boards' solder joints (box frame)."""
    x0, _, y0, y1 = lay.cavity
    bundle = 2.0
    branch = x0 + GROOVE
    # over the cover's flange, where the channel enters the bay
    into = cq.Solid.makeBox(bundle, y0 - lay.switch_y, bundle,
                            cq.Vector(branch - bundle / 2, lay.switch_y, COVER_THICKNESS + BOARD_CLEARANCE))
    ways: list[tuple[str, cq.Shape]] = [("switches to the bay", into)]
    if lay.shift_board:
        ox, oy = lay.cover_origin
        gx = ox + lay.board_origin[0] - SHIFT_GAP
        z = COVER_THICKNESS + STANDOFF + lay.kit.sensors.shift_board_height_mm - SOLDER_TAILS
        ways.append(("74HC165 board to the controller",
                     cq.Solid.makeBox(SHIFT_GAP - 2 * BOARD_CLEARANCE, y1 - y0 - 2.0, bundle,
                                      cq.Vector(gx + BOARD_CLEARANCE, y0 + 1.0, z))))
    return ways


def check_sensors(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """The sensor findings on an assembly: reeds seated and the magnet's pull, or the microswitches seated and worked
    by their tiles; the bay (nothing without sensors)."""
    if not lay.sensors:
        return
    if lay.kit.sensors.lever:
        from shutbox.cad.geometry.microswitch import check_switches

        yield from check_switches(solids, lay)
    else:
        yield from check_reeds(solids, lay)
        yield from check_pull(lay)
    yield from check_bay(solids, lay)


def check_seated(folder: Path) -> list[Finding]:
    """``shutbox cad check``'s sensor findings on a built folder (its assembly.step as read for the other checks).
    Not part of the build's own checks: the booleans take seconds, and the build's time is kept."""
    from shutbox.cad.checks.check import _assembly, _context

    ctx = _context(Path(folder))
    if not ctx["lay"].sensors:
        return []
    if "solids" not in ctx:
        ctx["solids"] = _assembly(Path(folder), ctx["manifest"])
    return list(check_sensors(ctx["solids"], ctx["lay"]))
