"""Figures for the build guide that are not views of the model: how to bend a reed switch's leads.

Drawn to scale from the kit's reed switch size with Pillow, in the shipped DejaVu Sans.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from shutbox.cad.layout import REED_BEND, REED_LEAD
from shutbox.model import Kit
from shutbox.typefaces import BOLD, REGULAR, font_file

PX_MM = 26.0  # drawing scale
LEAD_MM = REED_LEAD  # lead diameter of a typical glass reed switch
REED_BEND_MM = REED_BEND  # bend reed switch leads at least this far from the glass seal (the seated switch's fold)
JAW_MM = 2.0  # width of a flat-nose pliers' jaw tip
GLASS = (205, 228, 240)
GLASS_EDGE = (90, 130, 160)
METAL = (120, 120, 120)
JAW = (60, 60, 70)
RED = (200, 40, 40)
GREEN = (30, 140, 60)
INK = (30, 30, 30)


def reed_bending(kit: Kit, path: Path, min_mm: float = REED_BEND_MM) -> None:
    """Write the figure: the glass, the pliers' jaws gripping the lead next to the seal, the bend beyond
    them at least ``min_mm`` from the seal."""
    s = kit.sensors
    label = ImageFont.truetype(str(font_file(REGULAR)), 20)
    strong = ImageFont.truetype(str(font_file(BOLD)), 20)
    bend_text = "bend here, around the jaws"
    length, dia = s.reed_length_mm * PX_MM, s.reed_diameter_mm * PX_MM
    lead = max(2, round(LEAD_MM * PX_MM))
    gx0 = 40 + 5 * PX_MM
    gx1 = gx0 + length
    jaw0 = gx1 + 0.3 * PX_MM
    jaw1 = jaw0 + JAW_MM * PX_MM
    bend = max(jaw1, gx1 + min_mm * PX_MM) + lead / 2
    width = round(bend + 0.8 * PX_MM + label.getlength(bend_text) + 30)
    cy = round(3.5 * PX_MM) + 30
    height = round(cy + max(dia / 2, 5 * PX_MM) + 40)
    image = Image.new("RGB", (width, height), (250, 250, 247))
    draw = ImageDraw.Draw(image)
    # The pliers' jaws above and below the lead, right next to the seal.
    for sign in (-1, 1):
        inner, outer = cy + sign * lead / 2, cy + sign * (lead / 2 + 1.1 * PX_MM)
        draw.rectangle((jaw0, min(inner, outer), jaw1, max(inner, outer)), fill=JAW)
    draw.text((jaw1, cy + lead / 2 + 1.1 * PX_MM + 8), "pliers' jaws", fill=INK, font=label, anchor="ra")
    # Leads, over the jaws that grip them: straight on the left; through the jaws on the right, then bent down.
    draw.rectangle((gx0 - 5 * PX_MM, cy - lead / 2, gx0, cy + lead / 2), fill=METAL)
    draw.rectangle((gx1, cy - lead / 2, bend + lead / 2, cy + lead / 2), fill=METAL)
    draw.rectangle((bend - lead / 2, cy - lead / 2, bend + lead / 2, cy + 4.5 * PX_MM), fill=METAL)
    # The glass, with the reeds inside.
    draw.rounded_rectangle((gx0, cy - dia / 2, gx1, cy + dia / 2), radius=dia / 2, fill=GLASS, outline=GLASS_EDGE,
                           width=3)
    draw.line((gx0 + 0.2 * length, cy, gx1 - 0.2 * length, cy), fill=METAL, width=lead)
    draw.text(((gx0 + gx1) / 2, cy + dia / 2 + 10), f"glass {s.reed_length_mm:g} x {s.reed_diameter_mm:g} mm",
              fill=GLASS_EDGE, font=label, anchor="ma")
    # Dimension above: from the seal to the bend.
    dy = cy - lead / 2 - 2.0 * PX_MM
    draw.line((gx1, dy, bend, dy), fill=GREEN, width=3)
    for x in (gx1, bend):
        draw.line((x, dy - 9, x, dy + 9), fill=GREEN, width=3)
    draw.text(((gx1 + bend) / 2, dy - 12), f">= {min_mm:g} mm", fill=GREEN, font=strong, anchor="md")
    draw.text((bend + 0.8 * PX_MM, cy + 3.6 * PX_MM), bend_text, fill=INK, font=label, anchor="lm")
    # Where never to bend: at the seal.
    x, y = gx1, cy - dia / 2 - 4
    draw.line((x - 8, y - 16, x + 8, y), fill=RED, width=4)
    draw.line((x - 8, y, x + 8, y - 16), fill=RED, width=4)
    draw.text((x - 14, y - 8), "never bend at the glass seal", fill=RED, font=strong, anchor="rm")
    image.save(path)
