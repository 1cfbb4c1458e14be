"""The solids the box is cut with and keeps for the switch-row circuit board: its slots, screw blocks and pilot
holes (what and where: :mod:`shutbox.cad.geometry.boardfit`)."""

from __future__ import annotations

import cadquery as cq

from shutbox.cad.geometry.boardfit import BLOCK, BOARD_PLAY, block_top, board_fit, strip_slot
from shutbox.cad.geometry.layout import HOLLOW_RIB, MEMBRANE, SCREW_PILOT, WALL_MIN, Layout
from shutbox.cad.geometry.shapes import gabled_channel_x


def board_tools(lay: Layout) -> list[cq.Shape]:
    """The slots (open at the bed) for the strip (gabled; flat-roofed over the board at each screw block) and the
    neck (flat-roofed), and
    the screws' pilot holes up through the blocks (from a membrane over that roof, out through the block's top)."""
    fit = board_fit(lay)
    if fit is None:
        return []
    x0, x1, yc, width, height = strip_slot(fit)
    slot = gabled_channel_x(x0, x1, yc, width, height)
    over = [cq.Solid.makeBox(BLOCK, width + 2.0, lay.height, cq.Vector(x - BLOCK / 2, yc - width / 2 - 1.0, fit.top))
            for x, _ in fit.screws]
    if over:
        slot = slot.cut(*over).clean()
    # The neck's slot is flat-roofed at the strip slot's straight height, a bridge across it (a gable along y would
    # meet the strip's and the bay's gables in valleys shallower than 45 degrees): it ends on the strip slot's
    # upright wall at one end and on the bay's at the other.
    nx0, nx1, ny0, ny1 = fit.neck
    neck = cq.Solid.makeBox(nx1 - nx0 + 2 * BOARD_PLAY, ny1 - ny0 + 1.0, height + 1.0,
                            cq.Vector(nx0 - BOARD_PLAY, ny0 - 1.0, -1.0))
    # each pilot runs up from the membrane out through the plinth's roof into the hollow: no closed top to bridge
    out = max(block_top(fit), height + width / 2 + 2 * HOLLOW_RIB) + 1.0
    pilots = [cq.Solid.makeCylinder(SCREW_PILOT / 2, out - fit.top - MEMBRANE, cq.Vector(x, y, fit.top + MEMBRANE))
              for x, y in fit.screws]
    return [slot, neck, *pilots]


def board_keeps(lay: Layout) -> list[cq.Shape]:
    """What stays solid under the deck for the board: the plinth round the strip's slot (a wall of the hollow's rib
    over it) and the screw blocks, standing on the bed either side of the slot."""
    fit = board_fit(lay)
    if fit is None:
        return []
    x0, x1, yc, width, height = strip_slot(fit)
    rib = HOLLOW_RIB
    keep = [gabled_channel_x(x0 - rib, x1 + rib, yc, width + 2 * rib, height + rib)]
    wide = width + 2 * WALL_MIN
    keep += [cq.Solid.makeBox(BLOCK, wide, block_top(fit) + 1.0, cq.Vector(x - BLOCK / 2, yc - wide / 2, -1.0))
             for x, _ in fit.screws]
    return keep
