"""The box in one piece: tray with a felt recess, a deck of dovetailed tile lanes with detent notches
and engraved numbers, and (with sensors) reed switch shafts, wire channels and the controller cavity.

Box frame (see :mod:`shutbox.cad.layout`); printed upright, as modelled. Every cavity that opens at
the bottom has a 45-degree roof.
"""

from __future__ import annotations

import cadquery as cq

from shutbox.cad.layout import (
    CORNER_RADIUS,
    COVER_FLANGE_X,
    COVER_GAP,
    COVER_THICKNESS,
    FELT_MARGIN,
    FLARE,
    GROOVE,
    SCREW_DEPTH,
    SCREW_PILOT,
    SQRT2,
    TRAY_RADIUS,
    USB_WIDTH,
    Layout,
)
from shutbox.cad.shapes import coned_hole, cut_all, gabled_channel_x, gabled_channel_y, text_solid
from shutbox.cad.tiles import bump_outline


def lane_profile(lay: Layout) -> list[tuple[float, float]]:
    """Cross-section (x, z) of a lane in the tile frame: the tile's profile grown by the clearance."""
    c, wt, wb = lay.clearance, lay.tile_width, lay.tile_foot
    foot = wb / 2 + c + c * SQRT2
    knee = FLARE + c * (SQRT2 - 1)
    top = lay.tile_thickness + 2.0
    return [(-foot, -c), (foot, -c), (wt / 2 + c, knee), (wt / 2 + c, top), (-wt / 2 - c, top), (-wt / 2 - c, knee)]


def _rounded_block(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float, r: float) -> cq.Shape:
    return (
        cq.Workplane("XY").workplane(offset=z0).center((x0 + x1) / 2, (y0 + y1) / 2)
        .rect(x1 - x0, y1 - y0).extrude(z1 - z0).edges("|Z").fillet(r).val()
    )


def lane_tools(lay: Layout, number: int) -> list[cq.Shape]:
    """The lane, its two detent notches and its engraved number, for tile ``number``."""
    x = lay.lane_x(number)
    lane = (
        cq.Workplane("XZ").workplane(offset=-(lay.deck_front - 1.0)).center(x, lay.tile_z)
        .polyline(lane_profile(lay)).close().extrude(-(lay.lane_length + 1.0)).val()
    )
    tools = [lane]
    for shut in (True, False):
        outline = [(px + x, py) for px, py in bump_outline(lay, lay.bump_y(shut))]
        notch = (
            cq.Workplane("XY").workplane(offset=lay.lane_floor).polyline(outline).close()
            .offset2D(lay.clearance, "arc").extrude(lay.height - lay.lane_floor + 1.0).val()
        )
        tools.append(notch)
    y0, y1 = lay.number_zone
    tools.append(text_solid(str(number), lay.number_size, lay.engrave, x, (y0 + y1) / 2, lay.lane_floor))
    return tools


def sensor_tools(lay: Layout) -> list[cq.Shape]:
    """Reed switch shafts, wire channels, the controller cavity with its cover seat, USB opening, pilot holes."""
    tools: list[cq.Shape] = []
    for n in range(1, lay.tiles + 1):
        tools.append(coned_hole(lay.lane_x(n), lay.switch_y, lay.shaft_radius, -1.0, lay.shaft_top))
    cx0, cx1, cy0, cy1 = lay.cavity
    branch_x = cx0 + GROOVE
    trunk_x0 = lay.lane_x(1) - GROOVE
    trunk_x1 = max(lay.lane_x(lay.tiles), branch_x) + GROOVE
    tools.append(gabled_channel_x(trunk_x0, trunk_x1, lay.switch_y, GROOVE, GROOVE))
    tools.append(gabled_channel_y(lay.switch_y, cy0 + 1.0, branch_x, GROOVE, GROOVE))
    tools.append(gabled_channel_x(cx0, cx1, (cy0 + cy1) / 2, cy1 - cy0, lay.cavity_height))
    # Cover seat: straight for the cover's thickness, then walls closing in (45 degrees or steeper)
    # onto the cavity, so the seat has no flat ceiling to print.
    ox, oy = lay.cover_origin
    w, h = lay.cover_size
    g = COVER_GAP
    seat = cq.Solid.makeBox(w + 2 * g, h + 2 * g, COVER_THICKNESS + 1.0, cq.Vector(ox - g, oy - g, -1.0))
    rise = COVER_FLANGE_X + g
    taper = (
        cq.Workplane("XY").workplane(offset=COVER_THICKNESS - 1e-3).center(ox + w / 2, oy + h / 2)
        .rect(w + 2 * g, h + 2 * g).workplane(offset=rise).rect(cx1 - cx0, cy1 - cy0).loft().val()
    )
    tools += [seat, taper]
    usb_y = oy + lay.board_origin[1] + lay.kit.sensors.board_width_mm / 2
    tools.append(gabled_channel_x(cx1 - 1.0, lay.length + 1.0, usb_y, USB_WIDTH, lay.usb_height))
    for sx, sy in lay.screw_points():
        tools.append(coned_hole(ox + sx, oy + sy, SCREW_PILOT / 2, -1.0, COVER_THICKNESS + SCREW_DEPTH))
    return tools


def build_box(lay: Layout) -> cq.Shape:
    """The whole box in one piece, in the box frame."""
    body = _rounded_block(0.0, lay.length, 0.0, lay.width, 0.0, lay.height, CORNER_RADIUS)
    tx0, tx1, ty0, ty1 = lay.tray
    tools = [
        _rounded_block(tx0, tx1, ty0, ty1, lay.tray_floor, lay.height + 1.0, TRAY_RADIUS),
        _rounded_block(tx0 + FELT_MARGIN, tx1 - FELT_MARGIN, ty0 + FELT_MARGIN, ty1 - FELT_MARGIN,
                       lay.felt_floor, lay.tray_floor + 0.5, TRAY_RADIUS - 1.0),
    ]
    for n in range(1, lay.tiles + 1):
        tools += lane_tools(lay, n)
    if lay.sensors:
        tools += sensor_tools(lay)
    return cut_all(body, tools)

