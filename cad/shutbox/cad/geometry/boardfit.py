"""Where the box takes the switch-row circuit board (:mod:`shutbox.cad.board`): a slot along the switch channel
for its strip, and one through the electronics bay's front wall for its neck, each gabled at 45 degrees so it
prints without support; over the strip, blocks its screws go up into, the slot's roof there a short flat bridge. The
carrier in the bay rests on the cover's standoffs and pins as the controller board does when the box is wired by
hand; the slots hold the hand wiring's channels too.

The solids are cut in :mod:`shutbox.cad.geometry.boardslots` (this module needs no CAD kernel: the build guide
reads it). Box frame (:mod:`shutbox.cad.geometry.layout`); the board's regions, height and screws come from
:func:`shutbox.cad.board.plan.board_regions` and :func:`shutbox.cad.board.plan.strip_screws`.
"""

from __future__ import annotations

from dataclasses import dataclass

from shutbox.base.errors import ShutboxError
from shutbox.cad.board import footprints as fp
from shutbox.cad.board.plan import THICKNESS, Region, board_regions, strip_screws
from shutbox.cad.geometry.layout import COVER_THICKNESS, MEMBRANE, PILOT_EXTRA, STANDOFF, Layout

BOARD_PLAY = 0.3  # round the strip and neck in their slots, per side
ROOM = 1.5  # over the board's top side before a slot's roof starts to close in: the wires' solder joints
BLOCK = 8.0  # a screw block's length along the strip
SCREW_LENGTH = 8.0  # the strip's screws (M3 pan head, :data:`shutbox.cad.board.plan.STRIP_SCREW`)


@dataclass(frozen=True)
class Fit:
    """The board's place in the box: its strip and neck (with their slots' play), the plane it lies in, its screws."""

    strip: Region
    neck: Region
    carrier: Region
    plane: float
    screws: tuple[tuple[float, float], ...]

    @property
    def top(self) -> float:
        """z of the board's top side."""
        return self.plane + THICKNESS


def board_fit(lay: Layout) -> Fit | None:
    """Where the kit's board lies, or None for a kit without one (no sensors, a controller other than the Pico's
    size, a bay that leaves the strip no room)."""
    s = lay.kit.sensors
    if not lay.sensors or (s.board_length_mm, s.board_width_mm) != (fp.PICO_LENGTH, fp.PICO_WIDTH):
        return None
    try:
        strip, neck, carrier = board_regions(lay)
    except ShutboxError:
        return None
    return Fit(strip, neck, carrier, COVER_THICKNESS + STANDOFF, tuple(strip_screws(lay, strip, carrier)))


def strip_slot(fit: Fit) -> tuple[float, float, float, float, float]:
    """x0, x1, y of the middle, width and straight height of the strip's slot."""
    x0, x1, y0, y1 = fit.strip
    width = y1 - y0 + 2 * BOARD_PLAY
    return x0 - BOARD_PLAY, x1 + BOARD_PLAY, (y0 + y1) / 2, width, fit.top + ROOM


def block_top(fit: Fit) -> float:
    """z of a screw block's top: the screw's reach past the membrane, a pilot's extra depth and a millimetre."""
    return fit.top + MEMBRANE + SCREW_LENGTH - THICKNESS + PILOT_EXTRA + 1.0
