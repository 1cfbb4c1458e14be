"""The box in one piece: tray with a felt recess, a deck of dovetailed tile lanes with detent notches
and engraved numbers, and (with sensors) reed switch shafts, wire channels and the controller cavity.

Box frame (see :mod:`shutbox.cad.geometry.layout`); printed upright, as modelled. Every cavity that opens at
the bottom has a 45-degree roof, except the hollow under the deck: its flat roofs bridge along y
(at most ``BRIDGE_SPAN``), which slicers print as bridges without support.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import cadquery as cq

from shutbox.cad.geometry.boardslots import board_keeps, board_tools
from shutbox.cad.geometry.keys import rib_solid
from shutbox.cad.geometry.layout import (
    BEAM_DEPTH,
    BOSS_RADIUS,
    BRIDGE_SPAN,
    BUTTON_BODY,
    BUTTON_HOLE,
    BUTTON_NUT,
    BUTTON_PANEL,
    CORNER_RADIUS,
    COVER_FLANGE_X,
    COVER_GAP,
    COVER_THICKNESS,
    DECK_SKIN,
    FELT_MARGIN,
    FLARE,
    GATE_GAP,
    GROOVE,
    HOLLOW_RIB,
    JOINT_DEPTH,
    MEMBRANE,
    SCREW_CLEAR,
    SCREW_HEAD,
    SCREW_PILOT,
    SEAT_TOOTH,
    SILL_DEPTH,
    SILL_HEIGHT,
    SPINE_BAND,
    SQRT2,
    TAB_BLOCK,
    TAB_THICKNESS,
    TAB_WIDTH,
    TRAY_RADIUS,
    TUBE_WALL,
    USB_WIDTH,
    Gate,
    Layout,
    gates,
)
from shutbox.cad.geometry.printable import ROOF_SLOPE
from shutbox.cad.geometry.sensors import switch_columns, switch_pockets, switch_rib_posts
from shutbox.cad.geometry.shapes import cut_all, gabled_channel_x, gabled_channel_y, shape_of, text_solid
from shutbox.cad.geometry.tiles import bump_outline

if TYPE_CHECKING:
    from shutbox.cad.geometry.split import Key


def lane_profile(lay: Layout) -> list[tuple[float, float]]:
    """Cross-section (x, z) of a lane in the tile frame: the tile's profile grown by the clearance."""
    c, wt, wb = lay.clearance, lay.tile_width, lay.tile_foot
    foot = wb / 2 + c + c * SQRT2
    knee = FLARE + c * (SQRT2 - 1)
    top = lay.tile_thickness + 2.0
    return [(-foot, -c), (foot, -c), (wt / 2 + c, knee), (wt / 2 + c, top), (-wt / 2 - c, top), (-wt / 2 - c, knee)]


def _rounded_block(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float, r: float) -> cq.Shape:
    return shape_of(
        cq.Workplane("XY").workplane(offset=z0).center((x0 + x1) / 2, (y0 + y1) / 2)
        .rect(x1 - x0, y1 - y0).extrude(z1 - z0).edges("|Z").fillet(r)
    )


def lane_tools(lay: Layout, number: int) -> list[cq.Shape]:
    """The lane (less its key rib), its two detent notches and its engraved number, for tile ``number``."""
    x = lay.lane_x(number)
    c = lay.clearance
    lane = (
        cq.Workplane("XZ").workplane(offset=-(lay.deck_front - c)).center(x, lay.tile_z)
        .polyline(lane_profile(lay)).close().extrude(-(lay.lane_end - lay.deck_front + c)).findSolid()
        .cut(rib_solid(lay, number))  # the key rib stays on the lane floor (shutbox.cad.geometry.keys)
    )
    # The lane mouth over the sill: the sill stops a tile at "shut", the tile's top shows above it.
    half = lay.tile_width / 2 + c
    sill_top = lay.lane_floor + SILL_HEIGHT
    mouth = cq.Solid.makeBox(2 * half, SILL_DEPTH + 2.0, lay.height + 1.0 - sill_top,
                             cq.Vector(x - half, lay.deck_front - c - SILL_DEPTH - 1.5, sill_top))
    tools = [lane, mouth]
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


def gate_tools(lay: Layout, gate_list: list[Gate]) -> list[cq.Shape]:
    """The pocket behind each column's lanes that its gate drops into, and the gate screws' pilot holes."""
    tools: list[cq.Shape] = []
    for gate in gate_list:
        size = (gate.x1 - gate.x0, lay.width + 1.0 - lay.lane_end, lay.height + 1.0 - lay.gate_floor)
        tools.append(cq.Solid.makeBox(*size, cq.Vector(gate.x0, lay.lane_end, lay.gate_floor)))
        z0, z1 = lay.gate_pilot
        for x, y in gate.screw_points(lay):
            tools.append(cq.Solid.makeCylinder(SCREW_PILOT / 2, z1 - z0 + 0.5, cq.Vector(x, y, z0)))
    return tools


def hollows(lay: Layout, gate_list: list[Gate], cuts: tuple[float, ...], tabs: Sequence[Key] = ()) -> cq.Shape:
    """The open-bottomed hollow under the deck, less what stays solid.

    A spine along x under the reed switches splits it in two; each half's flat roof bridges along y (front wall
    to spine, spine to back wall); the cross ribs under the lanes (``_cross_ribs``) keep the slicer from laying
    them along x. In front of the spine the roof is a skin under the engraved numbers, behind it a skin under the
    lane floor, stepping down to a skin under the gate pockets. Solid: the spine (beams, or arches with
    microswitches) with the tubes round the reed shafts and the plinth over the wire trunk, the gate screws'
    bosses, the walls round the controller bay, the button panel, the doubled rib at each cut and the blocks round
    the split keys' pockets.
    """
    y0, y1 = lay.tray[3] + lay.wall, lay.width - lay.wall
    sy, x0, x1 = lay.switch_y, lay.wall, lay.length - lay.wall
    tool = cq.Solid.makeBox(x1 - x0, sy - y0, lay.hollow_roof + 1.0, cq.Vector(x0, y0, -1.0))
    back, gate = lay.back_roof, lay.gate_roof
    # Behind the spine: a skin under the lane floor, stepping down over the gate wall to one under the gate pockets.
    step = lay.lane_end - HOLLOW_RIB / 2
    profile = [(sy - 0.1, -1.0), (sy - 0.1, back), (step, back), (step, gate), (y1, gate), (y1, -1.0)]
    tool = tool.fuse(shape_of(cq.Workplane("YZ").workplane(offset=x0).polyline(profile).close().extrude(x1 - x0)))
    # Inside the box's rounded corners, so the hollow never breaks through the outer wall.
    if CORNER_RADIUS - lay.wall > 0.5:
        inner = _rounded_block(lay.wall, lay.length - lay.wall, lay.wall, lay.width - lay.wall, -2.0,
                               lay.height, CORNER_RADIUS - lay.wall)
        tool = tool.intersect(inner)
    keep = (_spine(lay, cuts) + _cross_ribs(lay, cuts) + _hollow_blocks(lay, gate_list, cuts)
            + [tab_block(lay, key) for key in tabs])
    return cut_all(tool, keep)


def _spine(lay: Layout, cuts: tuple[float, ...]) -> list[cq.Shape]:
    """The spine under the switches (beams, or arches with microswitches, between its columns: see ``_beams``)
    and, with sensors, the tubes round the shafts (its columns) and the plinth over the wire trunk."""
    tall = lay.height + 2.0
    sy = lay.switch_y
    spine = cq.Solid.makeBox(lay.length, HOLLOW_RIB, tall, cq.Vector(0.0, sy - HOLLOW_RIB / 2, -1.0))
    posts = [(-1.0, lay.wall), (lay.length - lay.wall, lay.length + 1.0)]
    posts += [(x - lay.wall, x + lay.wall) for x in cuts]
    columns = switch_columns(lay, shelf_supports(lay, cuts)) if lay.sensors else []
    posts += [span for span, _ in columns]
    arches = _arches(sorted(posts), "XZ", sy, lambda a, b: min(lay.hollow_roof, lay.back_roof), _beams(lay))
    keep: list[cq.Shape] = [spine.cut(*arches).clean() if arches else spine]
    if lay.sensors:
        keep += [solid for _, solid in columns]
        x0, x1 = trunk_span(lay)
        rib = HOLLOW_RIB
        keep.append(gabled_channel_x(x0 - rib, x1 + rib, sy, GROOVE + 2 * rib, GROOVE + rib))
        keep += board_keeps(lay)  # the circuit board's slot and screw blocks (shutbox.cad.geometry.boardslots)
    return keep


def _rib_xs(lay: Layout, cuts: tuple[float, ...]) -> list[float]:
    """x of the cross ribs under the deck: one under every lane's centre line, through its reed shaft's tube; with
    microswitches, whose shelves rest on the ribs either side of their lane, one between every two lanes."""
    if lay.kit.sensors.lever:
        xs = [lay.wall + lay.pitch * k for k in range(1, lay.tiles)]
    else:
        xs = [lay.lane_x(n) for n in range(1, lay.tiles + 1)]
    if lay.sensors:  # beside the wire channel to the bay, never in it
        branch, clear = lay.cavity[0] + GROOVE, GROOVE / 2 + HOLLOW_RIB
        xs = [branch - clear if abs(x - branch) < clear else x for x in xs]
    return [x for x in xs if all(abs(x - c) > lay.wall for c in cuts)]


def shelf_supports(lay: Layout, cuts: tuple[float, ...]) -> list[float]:
    """x of what stands under the deck across it, a shelf may rest on: the end walls, the cross ribs and each half of
    a cut's doubled rib."""
    return sorted([lay.wall / 2, lay.length - lay.wall / 2, *_rib_xs(lay, cuts),
                   *(x + k * lay.wall / 2 for x in cuts for k in (-1, 1))])


def _cross_ribs(lay: Layout, cuts: tuple[float, ...]) -> list[cq.Shape]:
    """What keeps every bridge of the hollow's roofs short whichever way the slicer lays it: a rib across the
    hollow (along y) under every lane, and the gate wall along x under the lanes' back ends (where the roof steps
    down to the gate pockets'), each a beam (or with microswitches an arch, ``_beams``) between the others and the
    walls. A rib's post at the spine is the tube round its lane's reed shaft (without sensors, the spine itself, a
    whole wall then): no post of its own there."""
    tall = lay.height + 2.0
    w, rib, sy = lay.wall, HOLLOW_RIB, lay.switch_y
    if lay.kit.sensors.lever:  # ribs between the lanes: a post of their own at the spine, over the wire trunk
        spine = GROOVE / 2 + 2 * HOLLOW_RIB
    else:
        spine = lay.shaft_radius + TUBE_WALL if lay.sensors else rib / 2
    wall_y = lay.lane_end - rib
    # Under beams a rib reaches from its spine post to the back wall in one bridge when that is short enough, and the
    # gate wall is a shallower beam hung from the ribs' beams (bridged from rib to rib once they stand under its
    # ends): no slender column from the bed where the two meet. Else the gate wall stands on posts at the ribs.
    hung = _beams(lay) is not None and lay.width - w - (sy + spine) <= BRIDGE_SPAN - 4.0
    keep: list[cq.Shape] = []
    xs = _rib_xs(lay, cuts)
    for x in xs:
        shape = cq.Solid.makeBox(rib, lay.width, tall, cq.Vector(x - rib / 2, 0.0, -1.0))
        posts = [(-1.0, lay.tray[3] + w), (lay.width - w, lay.width + 1.0), (sy - spine, sy + spine),
                 *([] if hung else [(wall_y, wall_y + rib)]), *switch_rib_posts(lay)]
        arches = _arches(sorted(posts), "YZ", x, lambda a, b: min(lay.roof_at(a), lay.roof_at(b)), _beams(lay))
        keep.append(shape.cut(*arches).clean() if arches else shape)
    if hung:
        z0 = lay.gate_roof - BEAM_DEPTH / 2
        keep.append(cq.Solid.makeBox(lay.length, rib, tall - 1.0 - z0, cq.Vector(0.0, wall_y, z0)))
        return keep
    gate_wall = cq.Solid.makeBox(lay.length, rib, tall, cq.Vector(0.0, wall_y, -1.0))
    posts = [(-1.0, w), (lay.length - w, lay.length + 1.0)]
    posts += [(x - rib / 2, x + rib / 2) for x in xs] + [(x - w, x + w) for x in cuts]
    arches = _arches(sorted(posts), "XZ", wall_y + rib / 2, lambda a, b: lay.gate_roof, _beams(lay))
    keep.append(gate_wall.cut(*arches).clean() if arches else gate_wall)
    return keep


def _beams(lay: Layout) -> float | None:
    """How deep the spine, cross ribs and gate wall stand under the roof between their posts: BEAM_DEPTH, as
    beams bridged from post to post, with reed switches or none; None (arches from the bed) with microswitches,
    whose shelves rest on the ribs lower down."""
    return None if lay.kit.sensors.lever else BEAM_DEPTH


def _arches(posts: list[tuple[float, float]], plane: str, at: float,
            ceiling: Callable[[float, float], float], beam: float | None = None) -> list[cq.Shape]:
    """Openings through a wall between its ``posts`` (ranges along it), open at the bed, each topped by a ceiling
    rising at ROOF_SLOPE to SPINE_BAND under ``ceiling(a, b)`` (the lowest roof over the opening from a to b);
    none where the gap is too narrow or too wide for that. With ``beam``, each opening's top is flat, ``beam``
    under that roof: the wall left over it is a beam the slicer bridges from post to post (none wider than
    BRIDGE_SPAN). The wall runs along x at y = ``at`` (``plane`` "XZ") or along y at x = ``at`` ("YZ")."""
    out = []
    for (_, a), (b, _) in itertools.pairwise(posts):
        if beam is not None:
            top = ceiling(a, b) - beam
            if b - a < 4.0 or b - a > BRIDGE_SPAN or top < 5.0:
                continue
            outline = [(a, -2.0), (b, -2.0), (b, top), (a, top)]
        else:
            apex = ceiling(a, b) - SPINE_BAND
            shoulder = apex - (b - a) / 2 * ROOF_SLOPE
            if b - a < 4.0 or shoulder < 5.0:
                continue
            outline = [(a, -2.0), (b, -2.0), (b, shoulder), ((a + b) / 2, apex), (a, shoulder)]
        offset = -at - 2.0 if plane == "XZ" else at - 2.0  # the XZ plane faces -y
        out.append(shape_of(cq.Workplane(plane).workplane(offset=offset).polyline(outline).close().extrude(4.0)))
    return out


def _corbel(lay: Layout, x: float, y: float, z: float, radius: float) -> cq.Shape:
    """What a column of ``radius`` at (``x``, ``y``) whose foot is at ``z`` stands on: a wedge out of the back wall,
    its underside rising at ROOF_SLOPE to the column's front edge."""
    y_front, back = y - radius, lay.width - lay.wall + 1.0
    wedge = [(y_front, z), (y_front, z + 1.0), (back, z + 1.0), (back, z - (back - y_front) * ROOF_SLOPE)]
    return shape_of(cq.Workplane("YZ").workplane(offset=x - radius).polyline(wedge).close().extrude(2 * radius))


def _hollow_blocks(lay: Layout, gate_list: list[Gate], cuts: tuple[float, ...]) -> list[cq.Shape]:
    """What else stays solid in the hollow, each block standing on the bed (or on a corbel)."""
    tall = lay.height + 2.0
    keep: list[cq.Shape] = []
    if lay.sensors:
        keep += _bay_walls(lay)
        yb, zb = lay.button_at  # a thicker panel round the end-turn button
        r = BUTTON_NUT / 2 + 2.0
        keep.append(cq.Solid.makeBox(BUTTON_PANEL + 1.0, 2 * r, zb + r + 1.0,
                                     cq.Vector(lay.length - BUTTON_PANEL, yb - r, -1.0)))
    foot = lay.gate_pilot[0] - DECK_SKIN  # a skin under the pilot holes
    for gate in gate_list:  # bosses under the gate screws, on corbels out of the back wall
        for x, y in gate.screw_points(lay):
            keep.append(cq.Solid.makeCylinder(BOSS_RADIUS, tall - 1.0 - foot, cq.Vector(x, y, foot)))
            keep.append(_corbel(lay, x, y, foot, BOSS_RADIUS))
    w = lay.wall
    spots = key_spots(lay, cuts)
    for x, y, half, sign in spots:  # round each key's pocket (the key itself stands on the rib)
        x0 = x if sign > 0 else x - JOINT_DEPTH - 2.0
        keep.append(cq.Solid.makeBox(JOINT_DEPTH + 2.0, 2 * half, tall, cq.Vector(x0, y - half, -1.0)))
    for x in cuts:  # a rib twice as thick where the box is cut (each piece keeps a wall), arched between its keys
        rib = cq.Solid.makeBox(2 * w, lay.width, tall, cq.Vector(x - w, 0.0, -1.0))
        trunk = GROOVE / 2 + 2 * HOLLOW_RIB
        sy = lay.switch_y
        posts = [(-1.0, lay.tray[3] + w), (lay.width - w, lay.width + 1.0), (sy - trunk, sy + trunk)]
        posts += [(y - half, y + half) for kx, y, half, _ in spots if abs(kx - x) < 1e-6]
        posts += switch_rib_posts(lay) if lay.sensors else []
        arches = _arches(sorted(posts), "YZ", x, lambda a, b: min(lay.roof_at(a), lay.roof_at(b)), _beams(lay))
        keep.append(rib.cut(*arches).clean() if arches else rib)
    return keep


def _bay_walls(lay: Layout) -> list[cq.Shape]:
    """Walls round the controller bay, standing on the bed: its cover seat, the seat's taper, the cavity and the
    USB opening, each grown by the box's wall (square to every face), and a column round each cover screw."""
    t = lay.wall * SQRT2  # grown this much across, a 45-degree face keeps a whole wall
    ox, oy = lay.cover_origin
    w, h = lay.cover_size
    cx0, cx1, cy0, cy1 = lay.cavity
    g = COVER_GAP
    seat = cq.Solid.makeBox(w + 2 * (g + t), h + 2 * (g + t), COVER_THICKNESS + 1.0,
                            cq.Vector(ox - g - t, oy - g - t, -1.0))
    taper = shape_of(
        cq.Workplane("XY").workplane(offset=COVER_THICKNESS - 1e-3).center(ox + w / 2, oy + h / 2)
        .rect(w + 2 * (g + t), h + 2 * (g + t)).workplane(offset=COVER_FLANGE_X + g)
        .rect(cx1 - cx0 + 2 * t, cy1 - cy0 + 2 * t).loft()
    )
    # The gabled cavity and USB opening grown by a wall square to every face: out by the wall on the upright
    # sides, so the 45-degree roof rises by t and its shoulder by t - wall.
    w0 = lay.wall
    cavity = gabled_channel_x(cx0 - w0, cx1 + w0, (cy0 + cy1) / 2, cy1 - cy0 + 2 * w0, lay.cavity_height + t - w0)
    usb = gabled_channel_x(cx1 - 1.0, lay.length, lay.usb_y, USB_WIDTH + 2 * w0, lay.usb_height + t - w0)
    return [seat, taper, cavity, usb, *flange_beams(lay)]


def trunk_span(lay: Layout) -> tuple[float, float]:
    """x range of the wire trunk along the switches, from the first shaft to the last or the bay's branch."""
    branch_x = lay.cavity[0] + GROOVE
    return lay.lane_x(1) - GROOVE, max(lay.lane_x(lay.tiles), branch_x) + GROOVE


def sensor_tools(lay: Layout) -> list[cq.Shape]:
    """Reed switch shafts, wire channels, the controller cavity with its cover seat, USB opening, pilot holes."""
    tools: list[cq.Shape] = []
    tools += switch_pockets(lay)
    cx0, cx1, cy0, cy1 = lay.cavity
    branch_x = cx0 + GROOVE
    trunk_x0, trunk_x1 = trunk_span(lay)
    tools.append(gabled_channel_x(trunk_x0, trunk_x1, lay.switch_y, GROOVE, GROOVE))
    # The branch to the bay is taller than the trunk it leaves: the trunk's gable ends on the branch's upright
    # walls (two gables of one height would meet in valleys only 35 degrees steep).
    tools.append(gabled_channel_y(lay.switch_y, cy0 + 1.0, branch_x, GROOVE, GROOVE * 1.5 + 0.5))
    tools += board_tools(lay)
    tools.append(gabled_channel_x(cx0, cx1, (cy0 + cy1) / 2, cy1 - cy0, lay.cavity_height))
    # Cover seat: straight for the cover's thickness, then walls closing in (45 degrees or steeper)
    # onto the cavity, so the seat has no flat ceiling to print.
    ox, oy = lay.cover_origin
    w, h = lay.cover_size
    g = COVER_GAP
    seat = cq.Solid.makeBox(w + 2 * g, h + 2 * g, COVER_THICKNESS + 1.0, cq.Vector(ox - g, oy - g, -1.0))
    seat = seat.cut(*seat_teeth(lay, -2.0, COVER_THICKNESS + 1.0))
    rise = COVER_FLANGE_X + g
    taper = shape_of(
        cq.Workplane("XY").workplane(offset=COVER_THICKNESS - 1e-3).center(ox + w / 2, oy + h / 2)
        .rect(w + 2 * g, h + 2 * g).workplane(offset=rise).rect(cx1 - cx0, cy1 - cy0).loft()
    )
    # The screws go into the slabs and columns the taper spares, with WALL_MIN of plastic round the pilot holes.
    # The teeth stand up to the slabs: the taper starts a hair under the seat's top, so it spares them there too.
    tools += [seat, taper.cut(*flange_beams(lay), *seat_teeth(lay, COVER_THICKNESS - 0.01, COVER_THICKNESS)).clean()]
    tools.append(usb_opening(lay, lay.length + 1.0))
    for sx, sy in lay.screw_points():
        # From over the slab's bridge (the screw pierces its first layers: a hole in a bridge would hang in the air)
        # out through the column's top into the hollow (no closed void).
        z0 = COVER_THICKNESS + MEMBRANE
        hole = cq.Solid.makeCylinder(SCREW_PILOT / 2, column_top(lay) + 1.0 - z0, cq.Vector(ox + sx, oy + sy, z0))
        tools.append(hole)
    return tools


def seat_teeth(lay: Layout, z0: float, z1: float) -> list[cq.Shape]:
    """The seat wall's teeth (``SEAT_TOOTH``, box frame) from ``z0`` to ``z1``: round posts centred where the flange
    slabs' free edges meet the seat's side walls."""
    ox, oy = lay.cover_origin
    return [cq.Solid.makeCylinder(SEAT_TOOTH, z1 - z0, cq.Vector(ox + x, oy + y, z0)) for x, y in lay.seat_teeth()]


def teardrop_x(x0: float, x1: float, y: float, z: float, radius: float) -> cq.Shape:
    """A hole along x with a 45-degree pointed top, so it prints in a vertical wall without support."""
    cyl = cq.Solid.makeCylinder(radius, x1 - x0, cq.Vector(x0, y, z), cq.Vector(1, 0, 0))
    k = radius / SQRT2
    roof = [(y - k, z + k), (y + k, z + k), (y, z + radius * SQRT2)]
    prism = shape_of(cq.Workplane("YZ").workplane(offset=x0).polyline(roof).close().extrude(x1 - x0))
    return cyl.fuse(prism).clean()


def button_tools(lay: Layout) -> list[cq.Shape]:
    """The end-turn button's hole through the right end wall and the room behind it for its nut and body."""
    yb, zb = lay.button_at
    inner = lay.length - BUTTON_PANEL
    return [teardrop_x(inner - 0.5, lay.length + 1.0, yb, zb, BUTTON_HOLE / 2),
            teardrop_x(inner - BUTTON_BODY, inner, yb, zb, BUTTON_NUT / 2)]


def column_top(lay: Layout) -> float:
    """z of the top of the columns round the cover screws (a wall over the screw's reach)."""
    return lay.cover_pilot[1] + SCREW_PILOT / 2 + lay.wall


def flange_beams(lay: Layout) -> list[cq.Shape]:
    """What the cover screws go into: a slab across each end flange of the cover's seat, its underside a bridge
    from one side of the seat to the other (the USB opening runs over the far one), and a column on it round each
    screw (a boss hanging from above would start as an island in the air)."""
    ox, oy = lay.cover_origin
    w, h = lay.cover_size
    g, t = COVER_GAP, lay.wall * SQRT2
    top = column_top(lay)
    slab = lay.usb_floor - COVER_THICKNESS
    out: list[cq.Shape] = [cq.Solid.makeBox(COVER_FLANGE_X + g, h + 2 * (g + t), slab,
                                            cq.Vector(x, oy - g - t, COVER_THICKNESS))
                           for x in (ox - g, ox + w - COVER_FLANGE_X)]
    out += [cq.Solid.makeCylinder(BOSS_RADIUS, top - COVER_THICKNESS, cq.Vector(ox + sx, oy + sy, COVER_THICKNESS))
            for sx, sy in lay.screw_points()]
    return out


def usb_opening(lay: Layout, x1: float, grow: float = 0.0) -> cq.Shape:
    """The USB opening from the cavity out through the end wall to ``x1``, its floor on the flange slab (grown by
    ``grow`` on its upright sides and roof: the walls round it)."""
    x0 = lay.cavity[1] - 1.0
    t = grow * SQRT2
    channel = gabled_channel_x(x0, x1, lay.usb_y, USB_WIDTH + 2 * grow, lay.usb_height + t - grow)
    floor = lay.usb_floor - (grow if grow else 0.0)
    return channel.cut(cq.Solid.makeBox(x1 - x0 + 2.0, USB_WIDTH + 2 * grow + 2.0, floor + 1.0,
                                        cq.Vector(x0 - 1.0, lay.usb_y - USB_WIDTH / 2 - grow - 1.0, -1.0)))


def tab_keys(lay: Layout, cuts: tuple[float, ...], ycuts: tuple[float, ...]) -> list[Key]:
    """The screwed tabs of a box cut at ``cuts`` and ``ycuts`` (none unless one y cut is at the tray's back wall)."""
    if not ycuts:
        return []
    from shutbox.cad.geometry.split import plan_keys

    return [k for k in plan_keys(lay, cuts, ycuts) if k.tab]


def tab_block(lay: Layout, key: Key) -> cq.Shape:
    """The block behind the deck's front wall that a tab reaches into (its slot is cut when the box is split)
    and its screw's pilot goes up into, standing on the bed."""
    half = TAB_WIDTH / 2 + 3.0
    y0 = key.at + lay.wall - 0.5
    size = (2 * half, key.reach - lay.wall + 3.5, TAB_BLOCK + 1.0)
    return cq.Solid.makeBox(*size, cq.Vector(key.centre - half, y0, -1.0))


def tab_screw_tools(lay: Layout, key: Key) -> list[cq.Shape]:
    """A tab's screw, from below: countersink and clearance hole through the tab, pilot up into the block.

    The pilot starts a membrane over the slot's roof (the screw pierces it: a hole in the roof's bridge would hang
    its perimeters in the air) and runs out through the block's top into the hollow (no closed void)."""
    from shutbox.cad.geometry.split import tab_screw

    x, y = tab_screw(lay, key)
    sink = SCREW_HEAD / 2
    z0 = lay.tab_pilot[0] + MEMBRANE
    return [cq.Solid.makeCone(sink + 0.01, 0.0, sink + 0.01, cq.Vector(x, y, -0.01)),
            cq.Solid.makeCylinder(SCREW_CLEAR / 2, TAB_THICKNESS + 1.0, cq.Vector(x, y, -1.0)),
            cq.Solid.makeCylinder(SCREW_PILOT / 2, TAB_BLOCK + 1.0 - z0, cq.Vector(x, y, z0))]


def key_spots(lay: Layout, cuts: tuple[float, ...]) -> list[tuple[float, float, float, int]]:
    """(x, y, half width, direction) of the deck keys of a box cut at ``cuts``: kept solid round their pockets."""
    if not cuts:
        return []
    from shutbox.cad.geometry.split import key_half_widths, plan_keys

    _, tip = key_half_widths()
    return [(k.at, k.centre, tip + 2.5, k.sign) for k in plan_keys(lay, cuts, ()) if k.axis == "x" and k.sloped]


def hollow_tool(lay: Layout, cuts: tuple[float, ...] = (), ycuts: tuple[float, ...] = ()) -> cq.Shape:
    """The box's hollow (``hollows``) for the cuts ``build_box`` is given: the slowest of its tools, so a side
    process may build it while this one builds the rest."""
    return hollows(lay, gates(lay, cuts), cuts, tab_keys(lay, cuts, ycuts))


def build_box(lay: Layout, cuts: tuple[float, ...] = (), ycuts: tuple[float, ...] = (),
              hollow: Callable[[], cq.Shape | None] | None = None) -> cq.Shape:
    """The whole box in one piece, in the box frame, ready to be cut at ``cuts`` (x positions on ribs) and
    ``ycuts`` (y positions along the box: with one at the tray's back wall, the blocks and screw holes of its
    tabs are built in). ``hollow``: asked for ``hollow_tool(lay, cuts, ycuts)`` once the other tools are made (it
    may be building elsewhere); when it gives None, the hollow is built here."""
    body = _rounded_block(0.0, lay.length, 0.0, lay.width, 0.0, lay.height, CORNER_RADIUS)
    tx0, tx1, ty0, ty1 = lay.tray
    tray = [
        _rounded_block(tx0, tx1, ty0, ty1, lay.tray_floor, lay.height + 1.0, TRAY_RADIUS),
        _rounded_block(tx0 + FELT_MARGIN, tx1 - FELT_MARGIN, ty0 + FELT_MARGIN, ty1 - FELT_MARGIN,
                       lay.felt_floor, lay.tray_floor + 0.5, TRAY_RADIUS - 1.0),
    ]
    gate_list = gates(lay, cuts)
    tabs = tab_keys(lay, cuts, ycuts)
    tools = []
    for key in tabs:
        tools += tab_screw_tools(lay, key)
    for n in range(1, lay.tiles + 1):
        tools += lane_tools(lay, n)
    tools += gate_tools(lay, gate_list)
    if lay.sensors:
        tools += sensor_tools(lay) + button_tools(lay)
    made = hollow() if hollow is not None else None
    return cut_all(body, [*tray, made if made is not None else hollows(lay, gate_list, cuts, tabs), *tools])


def build_gate(lay: Layout, gate: Gate) -> cq.Shape:
    """A gate as printed: top face on the bed, countersinks down (gate frame: its pocket's corner at the origin)."""
    g = GATE_GAP
    length, depth, height = gate.x1 - gate.x0 - 2 * g, lay.width - lay.lane_end - g, lay.height - lay.gate_floor
    body = cq.Solid.makeBox(length, depth, height, cq.Vector(g, g, 0.0))
    tools = []
    sink = SCREW_HEAD / 2
    for x, y in gate.screw_points(lay):
        px, py = x - gate.x0, y - lay.lane_end
        tools.append(cq.Solid.makeCylinder(SCREW_CLEAR / 2, height + 2.0, cq.Vector(px, py, -1.0)))
        tools.append(cq.Solid.makeCone(sink + 0.01, 0.0, sink + 0.01, cq.Vector(px, py, -0.01)))
    return cut_all(body, tools)


def place_gate(lay: Layout, gate: Gate, printed: cq.Shape) -> cq.Shape:
    """The printed gate turned top up into its pocket (box frame)."""
    flipped = printed.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 1, 0), 180)  # x -> -x, z -> -z
    return flipped.translate(cq.Vector(gate.x1, lay.lane_end, lay.height))

