"""The key that lets a tile into a lane only the right way round (front to the player, number upright).

A groove runs the whole length of the tile's underside, off to the side away from its detent arm (tile
frame -x, midway between the magnet pocket and the tile's side); a rib on the lane floor runs in it. The
groove has upright sides and a 45-degree roof, so the tile, printed foot down, needs no support and has no
bridge over it; the rib is the groove shrunk by the sliding clearance, so the tile keeps its clearance all
round. The rib stands from an open tile's front end to the lane's back end: under the tile at every point of
its travel, never over the number engraved in the lane floor in front of an open tile.

Turned round (180 degrees about the vertical), a tile's solid underside sits where the rib is; flipped over,
its dovetail foot does not fit under the lane's lips. Every lane is keyed alike: any tile goes into any lane,
always reading the right way up (the lane's own number, in front of an open tile, says which is which).

Tile frame and box frame: see :mod:`shutbox.cad.geometry.tiles` and :mod:`shutbox.cad.geometry.layout`. The sizes need
no CadQuery
(planning a kit imports none); the solids import it when built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shutbox.cad.geometry.layout import ARM_LENGTH, ARM_THICKNESS, KEY_HALF, KEY_STRAIGHT, SLIT, SQRT2
from shutbox.cad.geometry.split import RELIEF

if TYPE_CHECKING:
    import cadquery as cq

    from shutbox.cad.geometry.layout import Layout


def magnet_radius(lay: Layout) -> float:
    """Radius of the magnet pocket the key keeps clear of (0 without sensors: there is none)."""
    return lay.magnet_pocket[0] / 2 if lay.sensors else 0.0


def key_x(lay: Layout) -> float:
    """Tile-frame x of the groove's centre line: midway between the magnet pocket and the tile's -x side."""
    return -(magnet_radius(lay) + lay.tile_width / 2) / 2


def key_room(lay: Layout) -> float:
    """Plastic left on either side of the groove (at least ``KEY_WALL`` for the key to fit)."""
    return (lay.tile_width / 2 - magnet_radius(lay)) / 2 - KEY_HALF


def groove_profile(lay: Layout) -> list[tuple[float, float]]:
    """Cross-section (x, z) of the groove in the tile frame, open at the foot (z 0), its mouth flared by ``RELIEF``
    at 45 degrees (the first layers spread out: the elephant's foot would narrow it)."""
    x, a, s, r = key_x(lay), KEY_HALF, KEY_STRAIGHT, RELIEF
    return [(x - a - r, -1.0), (x + a + r, -1.0), (x + a + r, 0.0), (x + a, r), (x + a, s), (x, s + a), (x - a, s),
            (x - a, r), (x - a - r, 0.0)]


def rib_profile(lay: Layout) -> list[tuple[float, float]]:
    """Cross-section (x, z) of the rib in the tile frame: the groove shrunk by the clearance on every face, its
    foot below the lane floor (z = -clearance)."""
    x, c = key_x(lay), lay.clearance
    a, s = KEY_HALF - c, KEY_STRAIGHT + c - c * SQRT2  # where the shrunk sides meet the shrunk roof
    apex = KEY_STRAIGHT + KEY_HALF - c * SQRT2
    foot = -c - 1.0
    return [(x - a, foot), (x + a, foot), (x + a, s), (x, apex), (x - a, s)]


def _along_y(profile: list[tuple[float, float]], y0: float, y1: float) -> cq.Shape:
    """A prism over an (x, z) profile from y0 to y1 (the XZ workplane faces -y)."""
    import cadquery as cq

    from shutbox.cad.geometry.shapes import shape_of

    return shape_of(cq.Workplane("XZ").workplane(offset=-y0).polyline(profile).close().extrude(-(y1 - y0)))


def groove_tool(lay: Layout) -> cq.Shape:
    """What is cut from a tile (tile frame): the groove, through both ends."""
    return _along_y(groove_profile(lay), -1.0, lay.tile_length + 1.0)


def rib_y(lay: Layout) -> tuple[float, float]:
    """Box-frame y range of the rib: from an open tile's front end to past the lane's back end (the gate pocket
    cuts it off there)."""
    return (lay.tile_y(False), lay.lane_end + 1.0)


def rib_solid(lay: Layout, number: int) -> cq.Shape:
    """The rib in lane ``number`` (box frame): what the lane's cut leaves standing on its floor."""
    import cadquery as cq

    y0, y1 = rib_y(lay)
    return _along_y(rib_profile(lay), y0, y1).translate(cq.Vector(lay.lane_x(number), 0.0, lay.tile_z))


def arm_zone(lay: Layout) -> cq.Shape:
    """The detent arm and its bump (tile frame): the part of a tile that gives way when pushed, so it is left out
    when asking what the rest of the tile runs into."""
    import cadquery as cq

    x0 = lay.tile_width / 2 - ARM_THICKNESS - SLIT - 0.01  # just inside the slit's inner face
    y0 = lay.tile_length - ARM_LENGTH
    size = (lay.tile_foot / 2 + 2.0 - x0, ARM_LENGTH + 1.0, lay.tile_thickness + 2.0)
    return cq.Solid.makeBox(*size, cq.Vector(x0, y0, -1.0))


# --- the proof: right way round it slides, turned round or flipped it does not go in -----------------------

KEY_BLOCK_MM3 = 20.0  # plastic in the way of a tile the wrong way round, its detent arm left out


def turned_round(lay: Layout, tile: cq.Shape) -> cq.Shape:
    """A tile (tile frame) turned 180 degrees about the vertical through its centre: its back end to the front."""
    import cadquery as cq

    centre = cq.Vector(0.0, lay.tile_length / 2, 0.0)
    return tile.rotate(centre, centre + cq.Vector(0, 0, 1), 180)


def flipped(lay: Layout, tile: cq.Shape) -> cq.Shape:
    """A tile (tile frame) turned upside down about its long axis: foot up, number down."""
    import cadquery as cq

    axis = cq.Vector(0.0, 0.0, lay.tile_thickness / 2)
    return tile.rotate(axis, axis + cq.Vector(0, 1, 0), 180)


def rigid(lay: Layout, tile: cq.Shape) -> cq.Shape:
    """A tile (tile frame) without its detent arm: what cannot give way when the tile is pushed."""
    return tile.cut(arm_zone(lay))


