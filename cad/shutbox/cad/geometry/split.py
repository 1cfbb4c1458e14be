"""Splitting the box to fit the printer bed: plan the fewest pieces, then cut them with dovetail keys.

Cuts across the long side fall on the ribs between lanes (never through a lane). A cut along it falls
at the tray's back wall when the tray fits the bed (the tray pieces carry screwed tabs into slots under
the deck), else in the tray. Each cut across carries dovetail keys on the left (or front) piece that drop
into matching pockets in its neighbour: tall keys under the deck, whose tops slope at 45 degrees so the
pockets need no support, and flat keys in the tray floor under the felt. Planning is pure arithmetic, so
a bed that is too small is refused before any geometry is built.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shutbox.base.errors import ShutboxError
from shutbox.cad.geometry.layout import (
    BUTTON_BODY,
    BUTTON_PANEL,
    COVER_GAP,
    FELT_MARGIN,
    FLOOR,
    GROOVE,
    JOINT_ANGLE,
    JOINT_DEPTH,
    JOINT_ROOT,
    TAB_REACH,
    TAB_THICKNESS,
    TAB_WIDTH,
    Layout,
)

if TYPE_CHECKING:
    import cadquery as cq

EPS = 1e-6
MAX_ROWS = 3
RELIEF = 0.4  # elephant's-foot relief and lead-in chamfer on keys and pockets (45 degrees)


@dataclass(frozen=True)
class Key:
    """One dovetail key across a cut. ``axis`` 'x': the cut is the plane x = ``at`` (key points +x)."""

    axis: str
    at: float
    centre: float  # position along the cut (y for an 'x' cut, x for a 'y' cut)
    top: float  # z of the key's top at the cut face
    sloped: bool  # top falls at 45 degrees towards the tip (deck keys)
    tab: bool = False  # a screwed tab under the deck's front wall (a cut at the tray's back wall), not a dovetail
    reach: float = JOINT_DEPTH  # how far it reaches across the cut
    sign: int = 1  # +1: carried by the piece below the cut and pointing up the axis; -1: the other way round


@dataclass(frozen=True)
class Piece:
    """One printed piece: a cell of the grid of cuts, with its extents as printed."""

    name: str
    column: int
    row: int
    x0: float
    x1: float
    y0: float
    y1: float
    size: tuple[float, float, float]  # x, y, z extent including the keys it carries
    rotate: bool  # printed turned 90 degrees about z to fit the bed


@dataclass(frozen=True)
class SplitPlan:
    xs: tuple[float, ...]  # cut positions along x
    ys: tuple[float, ...]  # cut positions along y
    pieces: tuple[Piece, ...]
    keys: tuple[Key, ...]


def fits(size: tuple[float, float, float], bed: tuple[float, float, float]) -> bool | None:
    """None if ``size`` does not fit the bed; otherwise whether it must be turned 90 degrees."""
    a, b, h = size
    bw, bh, bz = bed
    if h > bz + EPS:
        return None
    if a <= bw + EPS and b <= bh + EPS:
        return False
    if a <= bh + EPS and b <= bw + EPS:
        return True
    return None


def allowed_x_cuts(lay: Layout) -> list[float]:
    """Ribs between lanes that a cut may pass through (not through the controller cavity and its cover)."""
    ribs = [lay.wall + lay.pitch * k for k in range(1, lay.tiles)]
    if lay.sensors:
        limit = lay.cover_origin[0] - COVER_GAP - JOINT_DEPTH - 4.0
        ribs = [r for r in ribs if r < limit]
    return ribs


def y_cut_range(lay: Layout) -> tuple[float, float]:
    """Where a cut along the box may fall: across the tray, clear of its walls."""
    return (lay.wall + FELT_MARGIN + 15.0, lay.deck_front - FELT_MARGIN - 15.0)


def wall_cut(lay: Layout) -> float:
    """y of a cut along the box at the tray's back wall (the deck's front face): joined by screwed tabs."""
    return lay.tray[3]


def at_wall(lay: Layout, cut: float) -> bool:
    """Whether a cut along the box at ``cut`` (as planned, or as a manifest gives it to 3 decimals) is at the
    tray's back wall."""
    return abs(cut - wall_cut(lay)) < 1e-3


def carried(lay: Layout | None, cut: float) -> float:
    """How far the keys (or tabs) across ``cut`` reach into the next piece."""
    if lay is not None and at_wall(lay, cut):
        return lay.wall + TAB_REACH
    return JOINT_DEPTH


def _spans(cuts: tuple[float, ...], end: float, lay: Layout | None = None) -> list[float]:
    """Extent of each piece between the cuts along 0..``end``, with the keys all but the last piece carry
    (``lay``: given for cuts along the box, where a cut at the tray's back wall carries tabs)."""
    edges = (0.0, *cuts, end)
    return [edges[i + 1] - edges[i] + (carried(lay, edges[i + 1]) if i < len(cuts) else 0.0)
            for i in range(len(edges) - 1)]


def _x_spans(cuts: tuple[float, ...], end: float) -> list[float]:
    """Extent of each column between cuts across the box: the deck keys point both ways, so a piece carries a
    key's reach past each of its cuts."""
    edges = (0.0, *cuts, end)
    return [edges[i + 1] - edges[i] + JOINT_DEPTH * ((i < len(cuts)) + (i > 0)) for i in range(len(edges) - 1)]


def reach_before(plan: SplitPlan, piece: Piece) -> float:
    """How far ``piece``'s keys reach below its x0 (into the column before it)."""
    reach = [k.reach for k in plan.keys if k.axis == "x" and k.sign < 0 and _owner(plan, k)[0] is piece]
    return max(reach, default=0.0)


def _best_x(lay: Layout, count: int, limit: float) -> tuple[float, ...] | None:
    """Cuts giving ``count`` columns each at most ``limit`` long, as even as possible."""
    best: tuple[float, tuple[float, ...]] | None = None
    for cuts in itertools.combinations(allowed_x_cuts(lay), count - 1):
        worst = max(_x_spans(cuts, lay.length))
        if worst <= limit + EPS and (best is None or worst < best[0] - EPS):
            best = (worst, cuts)
    return best[1] if best else None


def _best_y(lay: Layout, count: int, limit: float) -> tuple[float, ...] | None:
    """Cuts giving ``count`` rows each at most ``limit`` deep: for two rows the tray's back wall when the tray
    (with its tabs) fits, else even rows kept inside the tray."""
    if count == 1:
        return () if lay.width <= limit + EPS else None
    if count == 2 and max(_spans((wall_cut(lay),), lay.width, lay)) <= limit + EPS:
        return (wall_cut(lay),)  # tray and deck apart, screwed together: no joint across the tray's floor
    lo, hi = y_cut_range(lay)
    if lo > hi:
        return None
    even = (lay.width + (count - 1) * JOINT_DEPTH) / count
    cuts = []
    for k in range(1, count):
        cuts.append(min(max(k * (even - JOINT_DEPTH), lo), hi))
    cuts_t = tuple(cuts)
    if any(b - a < 20.0 for a, b in itertools.pairwise((0.0, *cuts_t, lay.width))):
        return None
    if max(_spans(cuts_t, lay.width)) > limit + EPS:  # clamping into the tray made a row too deep
        return None
    return cuts_t


def plan_split(lay: Layout, bed: tuple[float, float, float]) -> SplitPlan:
    """The fewest pieces (a grid of cuts) whose every piece fits ``bed``; refuse a bed that cannot work."""
    bw, bh, bz = bed
    if lay.height > bz + EPS:
        raise ShutboxError(
            f"--bed {_bed(bed)}: the box is {lay.height:g} mm tall and the bed takes {bz:g} mm; "
            f"allowed: a bed at least {lay.height:g} mm high"
        )
    long_side, short_side = max(bw, bh), min(bw, bh)
    options = []
    for nx in range(1, lay.tiles + 1):
        for ny in range(1, MAX_ROWS + 1):
            for lim_x, lim_y in ((long_side, short_side), (short_side, long_side)):
                xs = _best_x(lay, nx, lim_x)
                ys = _best_y(lay, ny, lim_y)
                if xs is not None and ys is not None:
                    worst = max(max(_x_spans(xs, lay.length)), max(_spans(ys, lay.width, lay)))
                    options.append((nx * ny, ny, worst, xs, ys))
    if not options:
        raise ShutboxError(
            f"--bed {_bed(bed)}: too small to print the box in up to {lay.tiles} x {MAX_ROWS} pieces "
            f"(a piece must hold a whole lane, {lay.pitch + lay.wall + JOINT_DEPTH:.0f} mm); allowed: a larger bed"
        )
    _, _, _, xs, ys = min(options, key=lambda o: (o[0], o[1], o[2]))
    pieces = []
    x_edges = (0.0, *xs, lay.length)
    y_edges = (0.0, *ys, lay.width)
    x_spans, y_spans = _x_spans(xs, lay.length), _spans(ys, lay.width, lay)
    for j in range(len(y_edges) - 1):
        for i in range(len(x_edges) - 1):
            size = (x_spans[i], y_spans[j], lay.height)
            rotate = fits(size, bed)
            assert rotate is not None, "planner chose a piece that does not fit"
            pieces.append(Piece(
                name=_piece_name(lay, xs, ys, i, j), column=i, row=j, x0=x_edges[i], x1=x_edges[i + 1],
                y0=y_edges[j], y1=y_edges[j + 1], size=size, rotate=rotate,
            ))
    return SplitPlan(xs=xs, ys=ys, pieces=tuple(pieces), keys=tuple(plan_keys(lay, xs, ys)))


def _bed(bed: tuple[float, float, float]) -> str:
    return "x".join(f"{v:g}" for v in bed)


def _piece_name(lay: Layout, xs: tuple[float, ...], ys: tuple[float, ...], i: int, j: int) -> str:
    if not xs and not ys:
        return "box"
    parts = ["box"]
    if ys:
        rows = ["front", "back"] if len(ys) == 1 else ["front", "middle", "back"]
        parts.append(rows[j])
    if xs:
        edges = (0.0, *xs, lay.length)
        first = round((edges[i] - lay.wall) / lay.pitch) + 1
        last = round((edges[i + 1] - lay.wall) / lay.pitch)
        parts.append(f"tiles-{max(first, 1)}-{min(last, lay.tiles)}")
    return "-".join(parts)


def key_half_widths() -> tuple[float, float]:
    """Half width of a dovetail key at its root and at its tip."""
    root = JOINT_ROOT / 2
    return root, root + JOINT_DEPTH * math.tan(math.radians(JOINT_ANGLE))


def plan_keys(lay: Layout, xs: tuple[float, ...], ys: tuple[float, ...]) -> list[Key]:
    """The dovetail keys across cuts at ``xs`` (across the long side) and ``ys`` (along it)."""
    _, tip = key_half_widths()
    room = tip + 2.0
    keys: list[Key] = []
    for x in xs:
        for y0, y1 in itertools.pairwise((0.0, *ys, lay.width)):
            keys += _keys_across_x(lay, x, y0, y1, room)
    for y in ys:
        for x0, x1 in itertools.pairwise((0.0, *xs, lay.length)):
            keys += _tabs(lay, y, x0, x1) if at_wall(lay, y) else _keys_across_y(lay, y, x0, x1, room)
    return keys


TAB_ROOM = TAB_WIDTH / 2 + 3.0 + JOINT_DEPTH + 4.0  # a tab's centre from a cut across the box: clear of key blocks


def _tabs(lay: Layout, y: float, x0: float, x1: float) -> list[Key]:
    """The screwed tabs of the tray piece between ``x0`` and ``x1``, a cut at the tray's back wall: two or
    three, spread evenly."""
    lo, hi = max(x0, lay.wall) + TAB_ROOM, min(x1, lay.length - lay.wall) - TAB_ROOM
    if lay.sensors:  # clear of the end-turn button's room behind the right end wall
        hi = min(hi, lay.length - BUTTON_PANEL - BUTTON_BODY - TAB_WIDTH / 2 - 5.0)
    reach = carried(lay, y)
    if hi < lo:
        return [Key("y", y, (x0 + x1) / 2, TAB_THICKNESS, False, True, reach)]
    n = max(2, min(3, int((hi - lo) // 60) + 1))
    return [Key("y", y, lo + (hi - lo) * k / (n - 1), TAB_THICKNESS, False, True, reach) for k in range(n)]


def tab_screw(lay: Layout, key: Key) -> tuple[float, float]:
    """Box-frame x, y of a tab's screw: halfway along the tab behind the deck's front wall."""
    return key.centre, key.at + lay.wall + TAB_REACH / 2


def _keys_across_x(lay: Layout, x: float, y0: float, y1: float, room: float) -> list[Key]:
    """Keys across the cut at ``x`` between ``y0`` and ``y1``: one in the tray floor, two under the deck."""
    keys: list[Key] = []
    lo = max(y0 + room, lay.wall + FELT_MARGIN + room)
    hi = min(y1 - room, lay.deck_front - FELT_MARGIN - room)
    if hi >= lo:
        keys.append(Key("x", x, (lo + hi) / 2, FLOOR, False))
    # Under the deck, on either side of the wire channel.
    d_lo, d_hi = max(y0, lay.deck_front) + room, y1 - room
    if d_hi <= d_lo:
        return keys
    if lay.sensors:
        g0, g1 = lay.switch_y - GROOVE / 2 - room, lay.switch_y + GROOVE / 2 + room
        spans = [(d_lo, min(d_hi, g0)), (max(d_lo, g1), d_hi)]
    else:
        mid = (d_lo + d_hi) / 2
        spans = [(d_lo, mid), (mid, d_hi)]
    deck_top = lay.lane_floor - 3.0
    # The two deck keys point opposite ways: each piece's key hooks under the other's sloped pocket roof, so
    # neither piece lifts off the other.
    return keys + [Key("x", x, (a + b) / 2, deck_top, True, sign=1 if i == 0 else -1)
                   for i, (a, b) in enumerate(spans) if b >= a]


def _keys_across_y(lay: Layout, y: float, x0: float, x1: float, room: float) -> list[Key]:
    """Floor keys across the cut at ``y`` between ``x0`` and ``x1``: one to three, spread evenly."""
    lo = max(x0, lay.wall + FELT_MARGIN) + room
    hi = min(x1, lay.length - lay.wall - FELT_MARGIN) - room
    if hi < lo:
        return []
    n = max(1, min(3, int((hi - lo) // 60) + 1))
    return [Key("y", y, lo + (hi - lo) * (k + 0.5) / n if n > 1 else (lo + hi) / 2, FLOOR, False) for k in range(n)]


def key_solid(key: Key, grow: float = 0.0) -> cq.Shape:
    """The key (``grow`` = 0) or its pocket (``grow`` = the joint clearance) as a solid in the box frame."""
    import cadquery as cq

    from shutbox.cad.geometry.shapes import shape_of

    root, tip = key_half_widths()
    a, c, d = key.at, key.centre, key.reach
    g_side = grow / math.cos(math.radians(JOINT_ANGLE)) if grow else 0.0
    if key.tab:  # straight-sided, reaching under the wall; its slot is closed above (a roof over it)
        root = tip = TAB_WIDTH / 2
        g_side = grow
    # Plan in (along the key, across the key), then mapped to x/y.
    plan = [(-1.0, -root - g_side), (d + grow, -tip - g_side), (d + grow, tip + g_side), (-1.0, root + g_side)]
    if key.tab:
        top = key.top + grow
        side = [(-1.0, -1.0), (d + 2.0, -1.0), (d + 2.0, top), (-1.0, top)]
    elif key.sloped:
        top = key.top + grow * math.sqrt(2.0)
        side = [(-1.0, -1.0), (d + 2.0, -1.0), (d + 2.0, top - (d + 2.0)), (-1.0, top + 1.0)]
    else:
        top = key.top if not grow else key.top + 5.0
        side = [(-1.0, -1.0), (d + 2.0, -1.0), (d + 2.0, top), (-1.0, top)]
    k = key.sign
    if key.axis == "x":
        plan_xy = [(a + k * u, c + v) for u, v in plan]
        side_shape = shape_of(cq.Workplane("XZ").workplane(offset=-(c + 20.0))
                              .polyline([(a + k * u, z) for u, z in side]).close().extrude(40.0))
    else:
        plan_xy = [(c + v, a + k * u) for u, v in plan]
        side_shape = shape_of(cq.Workplane("YZ").workplane(offset=c - 20.0)
                              .polyline([(a + k * u, z) for u, z in side]).close().extrude(40.0))
    # Elephant's-foot relief and lead-in: the key's foot is chamfered in by RELIEF (the first layers spread out),
    # the pocket's mouth (where the key goes in from below) flares out by as much.
    lo = 0.0 if not grow else -1.0
    column = shape_of(cq.Workplane("XY").workplane(offset=RELIEF).polyline(plan_xy).close().extrude(key.top + 20.0))
    foot = _frustum(plan_xy, lo, RELIEF + 1e-3, (RELIEF - lo) if grow else -RELIEF, 0.0)
    return column.fuse(foot).clean().intersect(side_shape)


def _frustum(points: list[tuple[float, float]], z0: float, z1: float, grow0: float, grow1: float) -> cq.Shape:
    """A loft from the polygon grown by ``grow0`` (negative: shrunk) at ``z0`` to it grown by ``grow1`` at ``z1``."""
    import cadquery as cq

    def wire(z: float, grow: float) -> cq.Wire:
        base = cq.Workplane("XY").workplane(offset=z).polyline(points).close()
        value = (base.offset2D(grow, "intersection") if grow else base).val()
        if not isinstance(value, cq.Wire):
            raise TypeError(f"expected a wire, got {type(value).__name__}")
        return value

    return cq.Solid.makeLoft([wire(z0, grow0), wire(z1, grow1)], True)


def _owner(plan: SplitPlan, key: Key) -> tuple[Piece, Piece]:
    """The piece carrying ``key`` and the piece holding its pocket."""
    def find(pred):
        return next(p for p in plan.pieces if pred(p))

    if key.axis == "x":
        carrier = find(lambda p: abs(p.x1 - key.at) < EPS and p.y0 <= key.centre <= p.y1)
        holder = find(lambda p: abs(p.x0 - key.at) < EPS and p.y0 <= key.centre <= p.y1)
    else:
        carrier = find(lambda p: abs(p.y1 - key.at) < EPS and p.x0 <= key.centre <= p.x1)
        holder = find(lambda p: abs(p.y0 - key.at) < EPS and p.x0 <= key.centre <= p.x1)
    return (carrier, holder) if key.sign > 0 else (holder, carrier)


def cut_piece(lay: Layout, box: cq.Shape, plan: SplitPlan, piece: Piece) -> cq.Shape:
    """Piece ``piece`` of the one-piece ``box``, in the box frame (assembled place), keys and pockets cut."""
    import cadquery as cq

    from shutbox.cad.geometry.shapes import boolean

    if len(plan.pieces) == 1:
        return box
    region = cq.Solid.makeBox(piece.x1 - piece.x0, piece.y1 - piece.y0, lay.height + 2.0,
                              cq.Vector(piece.x0, piece.y0, -1.0))
    add, remove = [], []
    for key in plan.keys:
        carrier, holder = _owner(plan, key)
        if carrier is piece:
            add.append(key_solid(key))
        elif holder is piece:
            remove.append(key_solid(key, lay.kit.cad.joint_clearance_mm))
    if add:
        region = region.fuse(*add).clean()
    if remove:
        region = region.cut(*remove).clean()
    return boolean("common", box, [region]).clean()


def print_piece(piece: Piece, solid: cq.Shape) -> cq.Shape:
    """A piece moved (and turned, if the plan says so) to lie on the bed from the origin."""
    import cadquery as cq

    if piece.rotate:
        solid = solid.rotate(cq.Vector(0, 0, 0), cq.Vector(0, 0, 1), 90)
    bb = solid.BoundingBox()
    return solid.translate(cq.Vector(-bb.xmin, -bb.ymin, -bb.zmin))
