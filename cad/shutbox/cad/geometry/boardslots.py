"""The solids the box is cut with and keeps for the switch-row circuit board: its slots, screw blocks and pilot
holes (what and where: :mod:`shutbox.cad.geometry.boardfit`)."""

from __future__ import annotations

import cadquery as cq

from shutbox.cad.geometry.boardfit import BLOCK, BOARD_PLAY, block_top, board_fit, strip_slot
from shutbox.cad.geometry.layout import (
    HOLLOW_RIB,
    MEMBRANE,
    SCREW_PILOT,
    WALL_MIN,
    Layout,
)
from shutbox.cad.geometry.shapes import shape_of


def ridged_x(x0: float, x1: float, y0: float, y1: float, ridge: float, height: float) -> cq.Shape:
    """A channel along x open at z=0 from ``y0`` to ``y1``, its roof rising at 45 degrees from both walls to a ridge
    at y = ``ridge`` (over the switch row: each reed's shaft opens into the ridge, as into the hand wiring's channel;
    a shaft through a slope leaves plastic the slicer supports); the wall farther from the ridge ``height`` tall,
    the nearer one taller by the difference."""
    top = height + max(ridge - y0, y1 - ridge)
    profile = [(y0, -1.0), (y1, -1.0), (y1, top - (y1 - ridge)), (ridge, top), (y0, top - (ridge - y0))]
    return shape_of(cq.Workplane("YZ").workplane(offset=x0).polyline(profile).close().extrude(x1 - x0))


def board_tools(lay: Layout) -> list[cq.Shape]:
    """The slots (open at the bed) for the strip (gabled; flat-roofed over the board at each screw block) and the
    neck (flat-roofed), and
    the screws' pilot holes up through the blocks (from a membrane over that roof, out through the block's top)."""
    fit = board_fit(lay)
    if fit is None:
        return []
    x0, x1, y0, y1, height = strip_slot(fit)
    slot = ridged_x(x0, x1, y0, y1, fit.row, height)
    over = [cq.Solid.makeBox(BLOCK, y1 - y0 + 2.0, lay.height, cq.Vector(x - BLOCK / 2, y0 - 1.0, fit.top))
            for x, _ in fit.screws]
    if over:
        slot = slot.cut(*over).clean()
    # The neck's slot is flat-roofed at the strip slot's lower wall's height, a bridge across it (a gable along y
    # would meet the strip's and the bay's gables in valleys shallower than 45 degrees): it ends on the strip slot's
    # upright wall at one end and in the bay at the other. PrusaSlicer still supports 0.45 g under it (see docs/pcb.md).
    nx0, nx1, ny0, ny1 = fit.neck
    neck = cq.Solid.makeBox(nx1 - nx0 + 2 * BOARD_PLAY, ny1 - ny0 + 1.0, height + 1.0,
                            cq.Vector(nx0 - BOARD_PLAY, ny0 - 1.0, -1.0))
    # each pilot runs up from the membrane out through the plinth's roof into the hollow: no closed top to bridge
    out = max(block_top(fit), height + max(fit.row - y0, y1 - fit.row) + 2 * HOLLOW_RIB) + 1.0
    pilots = [cq.Solid.makeCylinder(SCREW_PILOT / 2, out - fit.top - MEMBRANE, cq.Vector(x, y, fit.top + MEMBRANE))
              for x, y in fit.screws]
    return [slot, neck, *pilots]


def board_keeps(lay: Layout) -> list[cq.Shape]:
    """What stays solid under the deck for the board: the plinth round the strip's slot (a wall of the hollow's rib
    over it) and the screw blocks, standing on the bed either side of the slot."""
    fit = board_fit(lay)
    if fit is None:
        return []
    x0, x1, y0, y1, height = strip_slot(fit)
    rib = HOLLOW_RIB
    keep = [ridged_x(x0 - rib, x1 + rib, y0 - rib, y1 + rib, fit.row, height + rib)]
    keep += [cq.Solid.makeBox(BLOCK, y1 - y0 + 2 * WALL_MIN, block_top(fit) + 1.0,
                              cq.Vector(x - BLOCK / 2, y0 - WALL_MIN, -1.0)) for x, _ in fit.screws]
    return keep
