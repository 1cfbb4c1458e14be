"""The build guide's part on the switch-row circuit board (:mod:`shutbox.cad.board`): order it, solder the parts,
fit it. Wiring by hand (:func:`shutbox.cad.guide.buildnotes.build_notes`) stays the other way."""

from __future__ import annotations

from collections import Counter

from shutbox.base.errors import ShutboxError
from shutbox.cad.board.kicad import STEM
from shutbox.cad.board.plan import plan_board
from shutbox.cad.geometry.boardfit import STRIP_SCREW, board_fit
from shutbox.cad.geometry.layout import Layout
from shutbox.kit.model import Kit

#: Where a kit's guide (``cad/build.md``) finds the board's pictures: ``shutbox pcb --out pcb`` beside ``cad/``.
BOARD_IMAGES = f"../pcb/{STEM}-"


def board_steps(kit: Kit, lay: Layout, shell: str, second: str, images: str = BOARD_IMAGES) -> list[str]:
    """The guide's lines for the board (none for a kit without one); ``shell``: the ```sh block of its command;
    ``second``: the microswitch tab the return goes on besides C."""
    fit = board_fit(lay)
    if fit is None:
        return []
    try:
        board = plan_board(kit)
    except ShutboxError:  # the pin plan refuses these settings: the firmware build says why
        return []
    x0, y0, x1, y1 = board.outline.bounds
    n = kit.rules.tiles
    counts = Counter(part.ref.rstrip("0123456789") for part in board.footprints)
    lines = [
        "### The circuit board: order it, solder the parts, fit it",
        "",
        "`shutbox pcb` writes a circuit board for this kit, laid out from the same layout as the box and wired as "
        "the firmware's pin plan says: a strip under the switch row with each tile's wire pads under its pocket, "
        "and a carrier in the electronics bay the Pico is soldered onto. KiCad's DRC has checked it; the folder "
        f"holds its Gerbers and drill files zipped for a fab house, its BOM and placement file ({STEM}-bom.csv, "
        f"{STEM}-pos.csv; a kit folder holds the same in `pcb/`):",
        "",
        shell,
        "",
        f"![The board's top side: the strip under the switch row, the carrier in the bay]({images}front.svg)",
        "",
        f"![The board's underside: the ground pour]({images}back.svg)",
        "",
        f"- Order it: upload `pcb/{STEM}-fab.zip` as a two-layer, 1.6 mm board ({x1 - x0:.0f} x {y1 - y0:.0f} mm).",
        "- Solder the Pico flat on the carrier by its castellated pads (U1, its USB socket at the carrier's end)"
        + (f", the {counts['R']} 0805 resistors" if counts.get("R") else "")
        + (f", the {counts['U'] - 1} 74HC165 chips (DIP-16, notch to the left) and their 100 nF capacitors"
           if counts.get("U", 0) > 1 else "") + ".",
        (f"- Solder a wire to the C tab and one to the {second} tab of each microswitch; after fitting the switches "
         f"they go to the C and {second} pads of S1 to S{n} (S*k* under tile *k*), the NC or NO pad left free."
         if kit.sensors.lever else
         f"- Each reed switch's two leads go to the two pads of S1 to S{n} under its shaft (S*k* under tile *k*): "
         "solder a wire to the lower lead (pliers as a heat sink) and one to the folded top lead's end."),
        "- The button's two wires go to the pads J1 at the strip's right end.",
        f"- Fit it from below before the cover: the strip into the slot along the switch channel, the neck through "
        f"the bay's front wall, the carrier into the bay. Screw the strip up to its blocks with {len(fit.screws)} "
        f"screws ({STRIP_SCREW}), then put the switches' wires through their pads and solder them from below. The "
        "cover goes in as below: its pins through the carrier's holes.",
        "",
        "### Or wire it by hand",
        "",
    ]
    return lines
