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
from dataclasses import dataclass

import cadquery as cq
import numpy as np

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


# --- seated as drawn ------------------------------------------------------------------------------


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


