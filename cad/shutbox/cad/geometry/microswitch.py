"""The lever microswitch option (``--sensors microswitch``): a subminiature hinge-lever switch under each lane, pressed
by a cam on its tile when the tile is shut.

The part: Omron SS-5GL (and the many "KW11-3Z" hinge-lever switches of the same size), figures from Omron's SS
datasheet ("Dimensions and Operating Characteristics", hinge lever): a 19.8 x 6.4 x 10.2 mm body with two 2.35 mm
mounting holes 9.5 mm apart, 2.9 mm over the body's foot, three solder tabs (C, NO, NC) under it, and a 0.3 mm
stainless lever hinged at one end of its top. Positions are heights of the lever's tip over the mounting holes'
centre line: operating position OP 8.8 +- 0.8 mm, free position FP at most 13.6 mm, overtravel OT at least 1.2 mm,
movement differential MD at most 0.8 mm; operating force at most 0.49 N, release force at least 0.06 N.

How it sits (box frame, :mod:`shutbox.cad.geometry.layout`): under each lane, its long side along the lane, lever up,
its
hinge at the back and its tip pointing at the player, in a pocket open to the lane through a window in the lane
floor. It goes in from above before the tiles, tabs first (their wires fed down through the gap in the pocket's
floor into the hollow under the deck), and rests on a ledge under each end of its body; the lever's reaction
presses it there. The pocket is cut in a shelf across the hollow from the rib on one side of the lane to the rib on
the other, its underside rising from each rib at the hollow's roof slope to the ledges under the lane's middle, so it
prints out from the ribs with no support and clears the controller bay. The tile has a channel along the
middle of its underside, open at its front end: with the tile open the lever rises into it and rests under its
roof, released; shutting the tile, a 45-degree ramp at the channel's end rides along the lever from its hinge to its
tip and the tile's flat underside then holds the tip ``PRESS`` mm over the holes: past the operating position by
half the overtravel. A tile has ``clearance`` of play all round, so a shut tile lies on the lane floor
(``clearance`` lower) when a finger presses it and is lifted by the lever until its flanks meet the lane's
(``clearance x sqrt 2`` higher); the lever must stay past OP and within OT over that whole range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from shutbox.base.errors import ShutboxError
from shutbox.cad.geometry.printable import ROOF_SLOPE, SQRT2

if TYPE_CHECKING:  # CadQuery is imported where a solid is made: planning a kit and its guide loads no CAD kernel
    import cadquery as cq

    from shutbox.kit.model import Kit


class Lanes(Protocol):
    """What placing a switch reads of the kit's layout (:class:`~shutbox.cad.geometry.layout.Layout` is one; the
    layout asks this module to check a microswitch kit, so this module names only what it reads)."""

    @property
    def kit(self) -> Kit: ...
    @property
    def height(self) -> float: ...
    @property
    def wall(self) -> float: ...
    @property
    def clearance(self) -> float: ...
    @property
    def deck_front(self) -> float: ...
    @property
    def tile_z(self) -> float: ...
    @property
    def shift_board(self) -> bool: ...
    @property
    def cavity(self) -> tuple[float, float, float, float]: ...
    @property
    def cavity_width(self) -> float: ...
    @property
    def cavity_height(self) -> float: ...
    def lane_x(self, number: int) -> float: ...

#: What the parts list calls the switch.
PART = "microswitch, subminiature, hinge lever"
MODEL = "Omron SS-5GL or a KW11-3Z hinge-lever switch of the same size"
LENGTH, WIDTH, HEIGHT = 19.8, 6.4, 10.2  # the body: along the lane, across it, up
HOLE_DIAMETER, HOLE_PITCH, HOLE_UP = 2.35, 9.5, 2.9  # mounting holes: diameter, apart, over the body's foot
TOP_OVER_HOLES = HEIGHT - HOLE_UP  # 7.3: the body's top over the holes' centre line
TAB_WIDTH, TAB_THICKNESS, TAB_LENGTH = 3.2, 0.5, 3.6  # each solder tab (C, NO, NC) under the body
TAB_AT = (2.5, 9.9, 17.3)  # the tabs' centres from the body's front end
LEVER_LENGTH, LEVER_WIDTH, LEVER_THICKNESS = 14.5, 3.6, 0.3  # hinge to tip
HINGE_INSET = 0.6  # the lever's hinge in from the body's back end
OPERATE = 8.8  # OP: the tip over the holes when the switch operates (+- OPERATE_TOLERANCE)
OPERATE_TOLERANCE = 0.8
FREE = 13.6  # FP at most
OVERTRAVEL = 1.2  # OT at least: how far past OP the lever may go
DIFFERENTIAL = 0.8  # MD at most: it releases this much above where it operated
OPERATE_FORCE, RELEASE_FORCE = 0.49, 0.06  # N
#: Where a shut tile holds the lever's tip, over the holes: past OP by half the overtravel (the guide states it).
PRESS = OPERATE - OVERTRAVEL / 2
#: Tile-frame y of the lever's tip under a shut tile: the window over the switch lies behind the lane's engraved
#: number and under an open tile.
TIP_AT = 27.0
RAMP_BEFORE = 2.0  # the ramp's foot this far in front of the tip of a shut tile's lever
CHANNEL_DEPTH = 2.4  # the channel's roof over the tile's underside: the open lever rests under it, released
CHANNEL_PLAY = 0.5  # channel beside the lever, per side
POCKET_PLAY = 0.2  # the pocket round the body, per side
LEDGE = 0.8  # the ledge under each end of the body it rests on (the solder tabs hang between them)
SHELF_FLOOR = 1.2  # the ledges' thickness over the shelf's underside under the lane's middle
SHELF_WALL = 1.2  # the shelf's plastic in front of and behind the pocket
BAY_CLEAR = 2.0  # least room between the shelf and the controller bay's walls under it
RELEASE_MARGIN = 0.5  # the open tile's channel lets the tip rise at least this far above the highest release point
PRESS_TOLERANCE = 0.5  # the measured press within this of PRESS
SEAT_NUDGE = 0.2  # dropped this much further, the seated body runs into its ledges
CLASH_MM3 = 1e-3


# --- where it sits ---------------------------------------------------------------------------------

def body_top(lay: Lanes) -> float:
    """z of a seated switch's top (the pocket's roof): a tile at its modelled height holds the tip at PRESS."""
    return lay.tile_z - (PRESS - TOP_OVER_HOLES)


def holes_z(lay: Lanes) -> float:
    """z of the mounting holes' centre line: the datum of the switch's positions."""
    return body_top(lay) - TOP_OVER_HOLES


def hinge_y(lay: Lanes) -> float:
    """Box-frame y of the lever's hinge: the lever's length behind the tip of a shut tile's lever."""
    return lay.deck_front + TIP_AT + LEVER_LENGTH


def body_y(lay: Lanes) -> tuple[float, float]:
    """Box-frame y range of the body."""
    back = hinge_y(lay) + HINGE_INSET
    return back - LENGTH, back


def tabs_at(lay: Lanes) -> tuple[float, float]:
    """Box-frame (y, z) of the middle solder tab's foot, where a seated switch's wires leave it."""
    return body_y(lay)[0] + TAB_AT[1], body_top(lay) - HEIGHT - TAB_LENGTH


def ramp_end(lay: Lanes) -> float:
    """Tile-frame y where the channel's ramp meets the tile's underside: the cam that holds the lever down."""
    return TIP_AT - RAMP_BEFORE


def shelf_y(lay: Lanes) -> tuple[float, float]:
    """Box-frame y range of the shelf the pocket is cut in (the cross ribs are solid there)."""
    y0, y1 = body_y(lay)
    return y0 - POCKET_PLAY - SHELF_WALL, y1 + POCKET_PLAY + SHELF_WALL


def shelf_bottom(lay: Lanes) -> float:
    """z of the shelf's underside under the lane's middle (the ledges' underside)."""
    return body_top(lay) - HEIGHT - SHELF_FLOOR


def bay_top(lay: Lanes, y: float) -> float:
    """z of the top of the walls round the controller bay's gabled cavity at ``y``
    (:func:`shutbox.cad.geometry.box._bay_walls`:
    the cavity's 45-degree roof grown by a wall)."""
    _, _, y0, y1 = lay.cavity
    return lay.cavity_height + lay.cavity_width / 2 + lay.wall * SQRT2 - abs(y - (y0 + y1) / 2)


def gap_bottom(lay: Lanes) -> float:
    """z of the lowest point of the gap the tabs and wires hang through (it runs down through the shelf's sloping
    underside beside the lane's middle)."""
    return shelf_bottom(lay) - (WIDTH / 2 + POCKET_PLAY) * ROOF_SLOPE - 1.0


def check_layout(lay: Lanes) -> None:
    """Refuse a kit whose tiles cannot work the switch (a tile's play taking the lever out of its window: past OP
    when the lever lifts the tile, within OT when a finger presses it down) or whose bay leaves no room for the
    shelves over it."""
    c = lay.clearance
    widest = min((OPERATE - PRESS) / SQRT2, PRESS - (OPERATE - OVERTRAVEL))
    if c > widest + 1e-9:
        raise ShutboxError(f"--clearance {c:g}: with --sensors microswitch a shut tile's play would take its switch's "
                           f"lever out of its travel; allowed: <= {math.floor(widest * 100) / 100:g}")
    room = min(gap_bottom(lay), body_top(lay) - HEIGHT - TAB_LENGTH) - BAY_CLEAR - bay_top(lay, body_y(lay)[1])
    if room < 0:
        s = lay.kit.sensors
        tall = "--shift-board-height" if lay.shift_board else "--board-height"
        value = s.shift_board_height_mm if lay.shift_board else s.board_height_mm
        raise ShutboxError(f"{tall} {value:g}: the controller bay would reach the microswitches' shelves under the "
                           f"lanes; allowed: <= {math.floor((value + room) * 10) / 10:g}")


def contact(normally_closed: bool) -> str:
    """The tab the wiring uses besides C: NO, or NC where the wiring wants a switch that opens when shut."""
    return "NC" if normally_closed else "NO"


def switch_item(lanes: int, normally_closed: bool) -> tuple[str, int, str]:
    """The parts list's line for ``lanes`` switches, wired C and NO (or NC): what, how many, and its notes."""
    return (f"{PART}, SPDT ({MODEL})", lanes,
                f"{LENGTH:g} x {WIDTH:g} x {HEIGHT:g} mm body, mounting holes {HOLE_DIAMETER:g} mm, "
                f"{HOLE_PITCH:g} mm apart; operates {OPERATE:g} +- {OPERATE_TOLERANCE:g} mm over its holes, "
                f"overtravel {OVERTRAVEL:g} mm, at most {OPERATE_FORCE:g} N; one under each lane, wired C and "
                f"{contact(normally_closed)}")


# --- the box and the tile ----------------------------------------------------------------------------

def pocket_tool(lay: Lanes, x: float) -> cq.Shape:
    """The pocket at lane centre ``x``: a window in the lane floor the body goes in through, down to its ledges, and
    the gap between them (across the shelf) the tabs and wires hang through."""
    import cadquery as cq

    y0, y1 = body_y(lay)
    p, foot = POCKET_PLAY, body_top(lay) - HEIGHT
    pocket = cq.Solid.makeBox(WIDTH + 2 * p, LENGTH + 2 * p, lay.height + 1.0 - foot,
                              cq.Vector(x - WIDTH / 2 - p, y0 - p, foot))
    gap = cq.Solid.makeBox(WIDTH + 2 * p, LENGTH - 2 * LEDGE, foot + 1.0 - gap_bottom(lay),
                           cq.Vector(x - WIDTH / 2 - p, y0 + LEDGE, gap_bottom(lay)))
    return pocket.fuse(gap).clean()


def rib_posts(lay: Lanes) -> list[tuple[float, float]]:
    """The y range where the cross ribs under the deck stand solid: the shelves' ends rest on them."""
    return [shelf_y(lay)]


def column(lay: Lanes, number: int, supports: list[float]) -> tuple[tuple[float, float], cq.Shape]:
    """Lane ``number``'s shelf across the hollow, from the nearest of ``supports`` (x of the ribs and walls that stand
    under the deck) on its left to the nearest on its right, and where the spine under the lanes may stand solid
    beside it. Its underside rises from each support at ``ROOF_SLOPE`` to the ledges' level under the lane's middle,
    so it prints layer on layer out from the ribs (a flat shelf would have its edges over air), and the ribs stand
    solid under its ends (:func:`rib_posts`)."""
    import cadquery as cq

    from shutbox.cad.geometry.shapes import shape_of

    x = lay.lane_x(number)
    left = max(v for v in supports if v < x)
    right = min(v for v in supports if v > x)
    y0, y1 = shelf_y(lay)
    z, top = shelf_bottom(lay), lay.height + 1.0
    outline = [(left, top), (left, z - (x - left) * ROOF_SLOPE), (x, z), (right, z - (right - x) * ROOF_SLOPE),
               (right, top)]
    solid = shape_of(cq.Workplane("XZ").workplane(offset=-y0).polyline(outline).close().extrude(-(y1 - y0)))
    return (left - 0.6, left + 0.6), solid


def channel_tool(lay: Lanes, ramp: float | None = None) -> cq.Shape:
    """The channel under a tile (tile frame): open at its front end, its roof ``CHANNEL_DEPTH`` over the foot, then a
    45-degree ramp down to the underside at ``ramp`` (default :func:`ramp_end`); the flat underside behind it is the
    cam. (A chamfer at its mouth got support from the slicer; the lever's sloping top slides under the square edge.)"""
    import cadquery as cq

    from shutbox.cad.geometry.shapes import shape_of

    end = ramp_end(lay) if ramp is None else ramp
    d, half = CHANNEL_DEPTH, LEVER_WIDTH / 2 + CHANNEL_PLAY
    profile = [(-1.0, -1.0), (end + 1.0, -1.0), (end - d, d), (-1.0, d)]
    return shape_of(cq.Workplane("YZ").workplane(offset=-half).polyline(profile).close().extrude(2 * half))


# --- the switch as a body --------------------------------------------------------------------------

@dataclass(frozen=True)
class Switch:
    """A microswitch seated under lane ``number`` (box frame): its body with the tabs, and its lever."""

    number: int
    body: cq.Shape
    lever: cq.Shape


def tip_height(angle: float) -> float:
    """The lever's tip over the holes with the lever raised ``angle`` radians off the body's top."""
    return TOP_OVER_HOLES + LEVER_LENGTH * math.sin(angle) + LEVER_THICKNESS * math.cos(angle)


def angle_for(height: float) -> float:
    """The lever's angle that puts its tip ``height`` over the holes (between lying on the body and FP)."""
    lo, hi = 0.0, math.pi / 2
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tip_height(mid) < height else (lo, mid)
    return lo


def switch(lay: Lanes, number: int, tip: float = PRESS, lift: float = 0.0) -> Switch:
    """Lane ``number``'s switch seated (``lift``: pushed that much higher), its lever's tip ``tip`` over the holes."""
    import cadquery as cq

    x = lay.lane_x(number)
    y0, _ = body_y(lay)
    top = body_top(lay) + lift
    box = cq.Solid.makeBox(WIDTH, LENGTH, HEIGHT, cq.Vector(x - WIDTH / 2, y0, top - HEIGHT))
    zh = top - TOP_OVER_HOLES
    yc = y0 + LENGTH / 2
    holes = [cq.Solid.makeCylinder(HOLE_DIAMETER / 2, WIDTH + 2.0, cq.Vector(x - WIDTH / 2 - 1.0, y, zh),
                                   cq.Vector(1, 0, 0)) for y in (yc - HOLE_PITCH / 2, yc + HOLE_PITCH / 2)]
    tabs = [cq.Solid.makeBox(TAB_THICKNESS, TAB_WIDTH, TAB_LENGTH + 0.01,
                             cq.Vector(x - TAB_THICKNESS / 2, y0 + at - TAB_WIDTH / 2, top - HEIGHT - TAB_LENGTH))
            for at in TAB_AT]
    body = box.cut(*holes).fuse(*tabs).clean()
    hinge = hinge_y(lay)
    strip = cq.Solid.makeBox(LEVER_WIDTH, LEVER_LENGTH, LEVER_THICKNESS,
                             cq.Vector(x - LEVER_WIDTH / 2, hinge - LEVER_LENGTH, top))
    angle = angle_for(tip) if tip > TOP_OVER_HOLES + LEVER_THICKNESS else 0.0
    lever = strip.rotate(cq.Vector(x, hinge, top), cq.Vector(x + 1.0, hinge, top), -math.degrees(angle))
    return Switch(number, body, lever)


# --- seated as drawn ----------------------------------------------------------------------------------


