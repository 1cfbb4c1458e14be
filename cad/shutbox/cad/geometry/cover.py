"""The cover of the controller cavity: a plate with countersunk screw holes, pins for the board and a round notch
for each of its seat's teeth (``SEAT_TOOTH``).

Cover frame: x, y from its lower-left corner, z from its outer face (0, on the bed and flush with the
box bottom when fitted) up; the board sits on four standoffs with its USB end towards +x.
"""

from __future__ import annotations

import cadquery as cq

from shutbox.cad.geometry.layout import (
    COVER_GAP,
    COVER_HEIGHT,
    COVER_THICKNESS,
    PIN_DIAMETER,
    SCREW_CLEAR,
    SCREW_HEAD,
    SEAT_TOOTH,
    STANDOFF,
    Layout,
)
from shutbox.cad.geometry.shapes import cut_all


def build_cover(lay: Layout) -> cq.Shape:
    w, h = lay.cover_size
    body = cq.Solid.makeBox(w, h, COVER_THICKNESS)
    for x, y in lay.pin_points():
        body = body.fuse(cq.Solid.makeCylinder(2.0, COVER_THICKNESS + STANDOFF, cq.Vector(x, y, 0)))
        body = body.fuse(cq.Solid.makeCylinder(PIN_DIAMETER / 2, COVER_HEIGHT, cq.Vector(x, y, 0)))
    if lay.shift_board:  # the 74HC165 board's rails and end stops
        from shutbox.cad.geometry.sensors import shift_rails

        body = body.fuse(*shift_rails(lay))
    # The seat's teeth (cad/shutbox/cad/geometry/layout.py, SEAT_TOOTH), the cover's gap in its seat round each.
    tools: list[cq.Shape] = [
        cq.Solid.makeCylinder(SEAT_TOOTH + COVER_GAP, COVER_THICKNESS + 2.0, cq.Vector(x, y, -1.0))
        for x, y in lay.seat_teeth()]
    sink = (SCREW_HEAD - SCREW_CLEAR) / 2
    for x, y in lay.screw_points():
        tools.append(cq.Solid.makeCylinder(SCREW_CLEAR / 2, COVER_THICKNESS + 2, cq.Vector(x, y, -1)))
        tools.append(cq.Solid.makeCone(SCREW_HEAD / 2 + 0.01, SCREW_CLEAR / 2, sink + 0.01, cq.Vector(x, y, -0.01)))
    return cut_all(body.clean(), tools)


def place_cover(lay: Layout, cover: cq.Shape) -> cq.Shape:
    x, y = lay.cover_origin
    return cover.translate(cq.Vector(x, y, 0.0))
