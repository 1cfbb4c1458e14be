"""Where the box takes the switch-row circuit board (:mod:`shutbox.cad.board`): a slot along the switch channel
for its strip, gabled at 45 degrees so it prints without support, and a flat-roofed one through the electronics
bay's front wall for its neck; over the strip, blocks its screws go up into, the slot's roof there a short flat
bridge. The carrier in the bay rests on the cover's standoffs and pins as the controller board does when the box is
wired by hand; the slots hold the hand wiring's channels too.

The solids are cut in :mod:`shutbox.cad.geometry.boardslots` (this module needs no CAD kernel: the build guide
reads it). Box frame (:mod:`shutbox.cad.geometry.layout`). Here is where the board lies: its strip, neck and carrier
(:func:`board_regions`), its screws (:func:`strip_screws`), its height; the board's plan (:mod:`shutbox.cad.board.plan`)
and the box's slots both read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shutbox.base.errors import ShutboxError
from shutbox.cad.geometry.layout import (
    COVER_GAP,
    COVER_THICKNESS,
    MEMBRANE,
    PILOT_EXTRA,
    SQRT2,
    STANDOFF,
    Layout,
)
from shutbox.cad.geometry.split import plan_split

THICKNESS = 1.6  # the board (FR4, 2 layers)
STRIP_BELOW = 4.0  # the strip's front edge in front of the switch row
STRIP_LEFT = 9.5  # the strip's left end beyond the first lane: room for its pull resistor
STRIP_RIGHT = 9.7  # its right end beyond the last lane's: room for the button's pads
STRIP_PLAY = 0.5  # the strip's back edge from the walls round the bay
CARRIER_PLAY = 0.5  # the carrier inside the bay's cavity, per side
NECK = 20.0  # the neck's width (x), at the bay's left end
STRIP_SCREW = "M3 x 8 mm pan-head screw (forms its thread in the printed 2.5 mm pilot)"
SCREW_HEAD = 5.5  # an M3 pan head's diameter: kept free of copper on the underside
SCREW_EVERY = 2  # a strip screw on every second rib between lanes (at most)
#: The controller the board carries: a Raspberry Pi Pico, its length and width (mm).
PICO_SIZE = (51.0, 21.0)
BOARD_PLAY = 0.3  # round the strip and neck in their slots, per side
ROOM = 1.5  # over the board's top side before a slot's roof starts to close in: the wires' solder joints
BLOCK = 8.0  # a screw block's length along the strip
SCREW_LENGTH = 8.0  # the strip's screws (M3 pan head, :data:`shutbox.cad.board.plan.STRIP_SCREW`)


Region = tuple[float, float, float, float]


def board_regions(lay: Layout) -> tuple[Region, Region, Region]:
    """x0, x1, y0, y1 (box frame) of the strip, the neck and the carrier (the settings only need sensors and the
    layout; :class:`ShutboxError` when the bay leaves the strip too little room)."""
    cx0, cx1, cy0, cy1 = lay.cavity
    sy = lay.switch_y
    ox, oy = lay.cover_origin
    top = oy - COVER_GAP - lay.wall * SQRT2 - STRIP_PLAY  # the walls round the bay's cover seat
    x0 = lay.lane_x(1) - STRIP_LEFT
    x1 = min(lay.lane_x(lay.tiles) + STRIP_RIGHT, lay.length - lay.wall - 1.5)
    if top - (sy - STRIP_BELOW) < 10.0:
        raise ShutboxError(f"--board-width {lay.kit.sensors.board_width_mm:g}: the bay leaves no room for the "
                           "board's strip along the switch row")
    strip = (x0, x1, sy - STRIP_BELOW, top)
    carrier = (cx0 + CARRIER_PLAY, cx1 - CARRIER_PLAY, cy0 + CARRIER_PLAY, cy1 - CARRIER_PLAY)
    neck = (carrier[0], carrier[0] + NECK, top - 1.0, carrier[2] + 1.0)
    return strip, neck, carrier


def strip_screws(lay: Layout, strip: tuple[float, float, float, float],
                 carrier: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    """Box-frame x, y of the screws holding the strip up: on the ribs between lanes, every ``SCREW_EVERY``-th rib
    from the first, left of the bay (the carrier rests on the cover), never at a cut of a box split for the bed (a
    screw block there would be cut in two), near the strip's front edge."""
    try:
        cuts = plan_split(lay, lay.kit.printer.bed_mm).xs
    except ShutboxError:  # no split for this bed: the CAD refuses it anyway
        cuts = ()
    chosen: list[float] = []
    for k in range(1, lay.tiles):
        x = lay.wall + lay.pitch * k
        clear = all(abs(x - c) > lay.pitch / 2 for c in cuts) and x < carrier[0] - 8.0
        if clear and (not chosen or x - chosen[-1] >= SCREW_EVERY * lay.pitch - 1e-6):
            chosen.append(x)
    return [(x, strip[2] + 3.5) for x in chosen]


@dataclass(frozen=True)
class Fit:
    """The board's place in the box: its strip and neck (with their slots' play), the plane it lies in, its screws."""

    strip: Region
    neck: Region
    carrier: Region
    plane: float
    screws: tuple[tuple[float, float], ...]
    row: float  #: y of the switch row (the lanes' switches)

    @property
    def top(self) -> float:
        """z of the board's top side."""
        return self.plane + THICKNESS


def board_fit(lay: Layout) -> Fit | None:
    """Where the kit's board lies, or None for a kit without one (no sensors, a controller other than the Pico's
    size, a bay that leaves the strip no room)."""
    s = lay.kit.sensors
    if not lay.sensors or (s.board_length_mm, s.board_width_mm) != PICO_SIZE:
        return None
    try:
        strip, neck, carrier = board_regions(lay)
    except ShutboxError:
        return None
    return Fit(strip, neck, carrier, COVER_THICKNESS + STANDOFF, tuple(strip_screws(lay, strip, carrier)),
               lay.switch_y)


def strip_slot(fit: Fit) -> tuple[float, float, float, float, float]:
    """x0, x1, y0, y1 and the lower wall's straight height of the strip's slot (its roof rises at 45 degrees from
    both walls to a ridge over the switch row: :func:`shutbox.cad.geometry.boardslots.ridged_x`)."""
    x0, x1, y0, y1 = fit.strip
    return x0 - BOARD_PLAY, x1 + BOARD_PLAY, y0 - BOARD_PLAY, y1 + BOARD_PLAY, fit.top + ROOM


def block_top(fit: Fit) -> float:
    """z of a screw block's top: the screw's reach past the membrane, a pilot's extra depth and a millimetre."""
    return fit.top + MEMBRANE + SCREW_LENGTH - THICKNESS + PILOT_EXTRA + 1.0
