"""The ground pour on the underside, filled here as KiCad would fill it: the board less every other net's copper
grown by the pour's clearance, less the holes and the screw heads' rings, without slivers thinner than KiCad's
least width, and only the pieces that touch the ground net (KiCad's island removal)."""

from __future__ import annotations

from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.ops import split, unary_union

from shutbox.cad.board.footprints import Footprint
from shutbox.cad.board.route import TRACK, VIA, Routes, pad_shape
from shutbox.firmware.host.topology import GND

POUR_CLEARANCE = 0.3
_MARGIN = 0.03  # the pour's clearance as cut: arcs are drawn as chords inside them
POUR_EDGE = 0.5
MIN_WIDTH = 0.25
LAYER = "B.Cu"


def pour(outline: Polygon, parts: tuple[Footprint, ...], routes: Routes) -> tuple[Polygon, list[Polygon]]:
    """The zone's outline and its filled pieces (each without holes, as KiCad stores a fill)."""
    area = outline.buffer(-POUR_EDGE, join_style="mitre")
    keep_out = []
    ground = []
    for part in parts:
        for pad in part.pads:
            shape = pad_shape(part, pad)
            if pad.kind == "np_thru_hole":
                keep_out.append(shape.buffer(POUR_CLEARANCE + _MARGIN))
            elif "B.Cu" in pad.copper:
                (ground if pad.net == GND else keep_out).append(
                    shape if pad.net == GND else shape.buffer(POUR_CLEARANCE + _MARGIN))
    for track in routes.tracks:
        if track.layer != LAYER:
            continue
        line = LineString([track.start, track.end]).buffer(TRACK / 2, cap_style="round")
        (ground if track.net == GND else keep_out).append(
            line if track.net == GND else line.buffer(POUR_CLEARANCE + _MARGIN))
    for via in routes.vias:
        disc = Point(via.at).buffer(VIA / 2, quad_segs=16)
        if via.net == GND:
            ground.append(disc)
        else:
            keep_out.append(disc.buffer(POUR_CLEARANCE + _MARGIN))
    raw = area.difference(unary_union(keep_out))
    # no slivers thinner than KiCad's least width, and nothing outside the first cut (the round-off of the arcs
    # kept on the safe side)
    fill = raw.buffer(-MIN_WIDTH / 2 - 0.01, join_style="mitre").buffer(MIN_WIDTH / 2 + 0.01, join_style="mitre")
    fill = fill.intersection(raw)
    grounds = unary_union(ground)
    pieces = [p for p in _polygons(fill) if p.intersects(grounds) and p.area > 1.0]
    out: list[Polygon] = []
    for piece in pieces:
        out += fracture(piece)
    return area if isinstance(area, Polygon) else box(*outline.bounds), out


def _polygons(shape: object) -> list[Polygon]:
    if isinstance(shape, Polygon):
        return [shape] if not shape.is_empty else []
    if isinstance(shape, MultiPolygon):
        return list(shape.geoms)
    geoms = getattr(shape, "geoms", [])
    return [g for g in geoms if isinstance(g, Polygon)]


def fracture(polygon: Polygon) -> list[Polygon]:
    """``polygon`` cut into pieces without holes: a cut along y through each hole in turn."""
    if not polygon.interiors:
        return [polygon.buffer(0)] if polygon.area > 0 else []
    hole = polygon.interiors[0]
    x0, _, x1, _ = hole.bounds
    x = (x0 + x1) / 2
    _, y0, _, y1 = polygon.bounds
    parts = split(polygon, LineString([(x, y0 - 1.0), (x, y1 + 1.0)]))
    out: list[Polygon] = []
    for part in parts.geoms:
        if isinstance(part, Polygon):
            out += fracture(part)
    return out
