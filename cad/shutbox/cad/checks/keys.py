"""``cad check``'s proof of the tile keys: each tile slides the right way round through its lane keeping the
clearance, and turned round or flipped over it is blocked at both ends of the travel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from shutbox.cad.checks.findings import Finding
from shutbox.cad.checks.measure import bounds, common_solid, volume_in
from shutbox.cad.geometry.keys import KEY_BLOCK_MM3, flipped, rigid, turned_round
from shutbox.cad.geometry.tiles import place_tile

if TYPE_CHECKING:
    import cadquery as cq

    from shutbox.cad.geometry.layout import Layout


SLIDE_STEPS = 5  # positions from open to shut (both ends included) at which the tile's clearance is measured


def key_finding(near: list[cq.Shape], tile: cq.Shape, lay: Layout, lane: int, name: str) -> Finding:
    """Tile ``tile`` (tile frame, as printed) against lane ``lane`` of the box (``near``: the box pieces and gates
    round that lane): right way round it slides from open to shut keeping the clearance; turned round, and
    flipped over, its rigid part runs into at least ``KEY_BLOCK_MM3`` of the lane at both ends of the travel."""
    import cadquery as cq


    body = rigid(lay, tile)
    c = lay.clearance
    shut, open_ = lay.tile_y(True), lay.tile_y(False)
    gaps = []
    for i in range(SLIDE_STEPS):
        y = shut + (open_ - shut) * i / (SLIDE_STEPS - 1)
        placed = place_tile(lay, body, lane).translate(cq.Vector(0.0, y - open_, 0.0))
        gaps.append(min(part.distance(placed) for part in near) if near else float("inf"))
    wrong = {}
    for label, turned in (("turned round", turned_round(lay, body)), ("flipped", flipped(lay, body))):
        placed = place_tile(lay, turned, lane)
        wrong[label] = [volume_in(near, placed.translate(cq.Vector(0.0, y - open_, 0.0))) for y in (open_, shut)]
    slides = min(gaps) >= c - 1e-3
    blocked = all(v >= KEY_BLOCK_MM3 for vs in wrong.values() for v in vs)
    return Finding("key", f"{name} in lane {lane}", slides and blocked,
                   f"right way round slides open to shut at least {min(gaps):.3f} mm from the lane (clearance "
                   f"{c:g}, {SLIDE_STEPS} places); "
                   + "; ".join(f"{label}: {', '.join(f'{v:.0f}' for v in vs)} mm3 in the way at open, shut"
                               for label, vs in wrong.items())
                   + f" (at least {KEY_BLOCK_MM3:g}, detent arm left out)")


def lane_surroundings(solids: list[tuple[str, str, cq.Shape]], lay: Layout, lane: int) -> list[cq.Shape]:
    """The box pieces and gates round lane ``lane``, over its whole length (cropped: booleans on the whole box
    take far longer)."""
    import cadquery as cq


    walls = [shape for _, kind, shape in solids if kind in ("box", "gate")]
    x = lay.lane_x(lane)
    y0, z0 = lay.deck_front - 6.0, lay.lane_floor - 2.0
    region = cq.Solid.makeBox(lay.tile_foot + 2.0, lay.lane_end + 6.0 - y0, lay.height + 1.0 - z0,
                              cq.Vector(x - lay.tile_foot / 2 - 1.0, y0, z0))
    common = common_solid(walls, region)
    return [common] if common is not None else []


def tile_frame(lay: Layout, placed: cq.Shape, lane: int) -> cq.Shape:
    """A tile placed in lane ``lane`` (box frame, open or shut) moved back into its tile frame."""
    import cadquery as cq


    return placed.translate(cq.Vector(-lay.lane_x(lane), -bounds(placed).ymin, -lay.tile_z))


def check_keys(solids: list[tuple[str, str, cq.Shape]], lay: Layout,
               lanes: dict[str, int] | None = None) -> Iterator[Finding]:
    """Each tile of the assembly (placed open in its own lane) tried in lane ``lanes[name]`` (its own by
    default): see :func:`key_finding`."""

    for name, kind, placed in solids:
        if kind != "tile":
            continue
        bb = bounds(placed)
        own = min(range(1, lay.tiles + 1), key=lambda n: abs(lay.lane_x(n) - (bb.xmin + bb.xmax) / 2))
        lane = (lanes or {}).get(name, own)
        tile = tile_frame(lay, placed, own)
        yield key_finding(lane_surroundings(solids, lay, lane), tile, lay, lane, name)
