"""The sliding tiles: a dovetailed slider with its number, a detent arm, a key groove and a magnet pocket (or, with
microswitches, the channel and cam that work the switch's lever) underneath.

Tile frame: x across the tile (centred), y from its front end (0, towards the player) to its back
end, z from its foot (0, the print bed) to its top. Printed as modelled: foot down, number up.
"""

from __future__ import annotations

import cadquery as cq

from shutbox.cad.geometry.keys import groove_tool
from shutbox.cad.geometry.layout import (
    ARM_LENGTH,
    ARM_THICKNESS,
    BUMP_BASE,
    BUMP_FROM_BACK,
    FLARE,
    MAGNET_AT,
    SCOOP_DEPTH,
    SLIT,
    Layout,
)
from shutbox.cad.geometry.shapes import cut_all, prism_xy, text_solid


def tile_profile(lay: Layout) -> list[tuple[float, float]]:
    """Cross-section (x, z) of a tile: straight sides over a 45-degree flare at the foot."""
    wt, wb, tp = lay.tile_width, lay.tile_foot, lay.tile_thickness
    return [(-wb / 2, 0.0), (wb / 2, 0.0), (wt / 2, FLARE), (wt / 2, tp), (-wt / 2, tp), (-wt / 2, FLARE)]


def bump_outline(lay: Layout, y_centre: float) -> list[tuple[float, float]]:
    """Plan (x, y) of the detent bump on the tile's +x side, centred on ``y_centre``."""
    x = lay.tile_width / 2
    b = lay.kit.tile_fit.detent_mm
    return [(x - 0.3, y_centre - BUMP_BASE / 2), (x, y_centre - BUMP_BASE / 2), (x + b, y_centre),
            (x, y_centre + BUMP_BASE / 2), (x - 0.3, y_centre + BUMP_BASE / 2)]


def number_centre_y(lay: Layout) -> float:
    """Tile-frame y of the centre of the number on the tile's top."""
    return (MAGNET_AT - scoop_radius(lay) - 1.0) / 2 + 1.0


def scoop_radius(lay: Layout) -> float:
    """Radius of the finger scoop's rim on the tile top (centred over the magnet)."""
    return min(5.0, lay.tile_width / 2 - ARM_THICKNESS - SLIT - 1.0)


def scoop_tool(lay: Layout) -> cq.Shape:
    """The whole sphere whose cap is the finger scoop: ``SCOOP_DEPTH`` deep at its centre, rim of ``scoop_radius``.

    A whole sphere: ``Solid.makeSphere`` with its default angles is only the upper half, which never
    reaches the tile below its centre.
    """
    a = scoop_radius(lay)
    radius = (a * a + SCOOP_DEPTH * SCOOP_DEPTH) / (2 * SCOOP_DEPTH)
    centre = cq.Vector(0.0, MAGNET_AT, lay.tile_thickness + radius - SCOOP_DEPTH)
    return cq.Solid.makeSphere(radius, centre, angleDegrees1=-90, angleDegrees2=90)


def build_tile(lay: Layout, number: int) -> cq.Shape:
    """Tile ``number`` in its print orientation (tile frame)."""
    tl, tp = lay.tile_length, lay.tile_thickness
    body = cq.Workplane("XZ").polyline(tile_profile(lay)).close().extrude(-tl).findSolid()
    body = body.fuse(prism_xy(bump_outline(lay, tl - BUMP_FROM_BACK), 0.0, tp)).clean()
    x_slit = lay.tile_width / 2 - ARM_THICKNESS
    tools = [
        cq.Solid.makeBox(SLIT, ARM_LENGTH + 1.0, tp + 2.0, cq.Vector(x_slit - SLIT, tl - ARM_LENGTH, -1.0)),
        text_solid(str(number), lay.number_size, lay.engrave, 0.0, number_centre_y(lay), tp),
    ]
    tools += [scoop_tool(lay), groove_tool(lay)]  # the key: see shutbox.cad.geometry.keys
    if lay.sensors and lay.kit.sensors.magnets:
        d, depth = lay.magnet_pocket  # flat-roofed: the slicer bridges its roof, and the tile can be thin
        tools.append(cq.Solid.makeCylinder(d / 2, depth + 1.0, cq.Vector(0.0, MAGNET_AT, -1.0)))
    elif lay.sensors:
        from shutbox.cad.geometry.microswitch import channel_tool

        tools.append(channel_tool(lay))  # the microswitch's lever rises into it; the underside behind is the cam
    return cut_all(body, tools)


def place_tile(lay: Layout, tile: cq.Shape, number: int, shut: bool = False) -> cq.Shape:
    """Tile moved from its frame into its lane in the box frame."""
    return tile.translate(cq.Vector(lay.lane_x(number), lay.tile_y(shut), lay.tile_z))
