"""Figures for the build guide that are not views of the model: how to bend a reed switch's leads, and the
switch folded as the model seats it (:mod:`shutbox.cad.geometry.sensors`), going into its shaft.

Drawn to scale from the kit's reed switch size and the layout's fold with Pillow, in the shipped DejaVu Sans.
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from shutbox.base.typefaces import BOLD, REGULAR, font_file
from shutbox.cad.geometry.layout import REED_BEND, REED_LEAD, REED_LEAD_LENGTH, Layout
from shutbox.kit.model import Kit

PX_MM = 26.0  # drawing scale
LEAD_MM = REED_LEAD  # lead diameter of a typical glass reed switch
REED_BEND_MM = REED_BEND  # bend reed switch leads at least this far from the glass seal (the seated switch's fold)
SHAFT_WALL = (205, 170, 115)
JAW_MM = 2.0  # width of a flat-nose pliers' jaw tip
GLASS = (205, 228, 240)
GLASS_EDGE = (90, 130, 160)
METAL = (120, 120, 120)
JAW = (60, 60, 70)
RED = (200, 40, 40)
GREEN = (30, 140, 60)
INK = (30, 30, 30)


def reed_bending(lay: Layout, path: Path, min_mm: float = REED_BEND_MM) -> None:
    """Write the figure: on top, the glass, the pliers' jaws gripping the lead next to the seal, the bend beyond
    them at least ``min_mm`` from the seal; under it, the switch folded and going up its shaft."""
    top = _bending(lay.kit, min_mm)
    bottom = _folded(lay)
    image = Image.new("RGB", (max(top.width, bottom.width), top.height + bottom.height), (250, 250, 247))
    image.paste(top, (0, 0))
    image.paste(bottom, (0, top.height))
    image.save(path)


def _bending(kit: Kit, min_mm: float) -> Image.Image:
    """The glass, the pliers' jaws gripping the lead next to the seal, the bend beyond them."""
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
    return image


def _folded(lay: Layout) -> Image.Image:
    """The switch as it goes in, in section through its shaft: the top lead straight out of the seal for
    ``REED_BEND``, round in a U and back down along the glass; pushed up until the U stops at the shaft's ceiling."""
    s = lay.kit.sensors
    label = ImageFont.truetype(str(font_file(REGULAR)), 20)
    strong = ImageFont.truetype(str(font_file(BOLD)), 20)
    fold, r_glass = lay.fold_radius, s.reed_diameter_mm / 2
    below = 4.0  # mm of the straight bottom lead shown
    ceiling = lay.shaft_ceiling - lay.reed_top  # above the glass's top, mm
    straight = lay.shaft_top - lay.reed_top
    width = 1100
    base = 70 + (ceiling + 1.5) * PX_MM  # pixel row of the glass's top
    cx = 300.0  # pixel column of the shaft's axis; the glass sits ``glass_offset`` to its left

    def px(x_mm: float, z_mm: float) -> tuple[float, float]:
        return (cx + x_mm * PX_MM, base - z_mm * PX_MM)

    image = Image.new("RGB", (width, round(base + (s.reed_length_mm + below + 1.5) * PX_MM) + 20), (250, 250, 247))
    draw = ImageDraw.Draw(image)
    draw.text((30, 16), "Fold the top lead first, then push the switch up its shaft until the fold stops",
              fill=INK, font=strong)
    lead = max(2, round(LEAD_MM * PX_MM))
    gx = -lay.glass_offset
    # The shaft in section: straight walls, a 45-degree taper to the small flat ceiling the fold stops at.
    r, rc = lay.shaft_radius, lay.ceiling_radius
    for side in (-1, 1):
        wall = [px(side * r, -s.reed_length_mm - below), px(side * r, straight), px(side * rc, ceiling),
                px(side * (r + 3.0), ceiling), px(side * (r + 3.0), -s.reed_length_mm - below)]
        draw.polygon(wall, fill=SHAFT_WALL)
    draw.rectangle((*px(-r - 3.0, ceiling + 1.5), *px(r + 3.0, ceiling)), fill=SHAFT_WALL)
    # The glass, the bottom lead, the top lead up out of the seal, its U and the leg back down along the glass.
    draw.rectangle((*px(gx - LEAD_MM / 2, -s.reed_length_mm), *px(gx + LEAD_MM / 2, -s.reed_length_mm - below)),
                   fill=METAL)
    draw.rounded_rectangle((*px(gx - r_glass, 0), *px(gx + r_glass, -s.reed_length_mm)), radius=r_glass * PX_MM,
                           fill=GLASS, outline=GLASS_EDGE, width=3)
    draw.rectangle((*px(gx - LEAD_MM / 2, REED_BEND), *px(gx + LEAD_MM / 2, 0)), fill=METAL)
    (ux, uz) = px(gx + fold, REED_BEND)
    ur = fold * PX_MM
    draw.arc((ux - ur - lead / 2, uz - ur - lead / 2, ux + ur + lead / 2, uz + ur + lead / 2), 180, 360,
             fill=METAL, width=lead)
    back = REED_LEAD_LENGTH - REED_BEND - math.pi * fold
    leg = gx + 2 * fold
    draw.rectangle((*px(leg - LEAD_MM / 2, REED_BEND), *px(leg + LEAD_MM / 2, REED_BEND - back)), fill=METAL)
    # Words and the one dimension that matters: straight out of the seal before the fold.
    dx = px(gx - r_glass - 1.2, 0)[0]
    for z in (0.0, REED_BEND):
        draw.line((dx - 9, px(0, z)[1], dx + 9, px(0, z)[1]), fill=GREEN, width=3)
    draw.line((dx, px(0, 0)[1], dx, px(0, REED_BEND)[1]), fill=GREEN, width=3)
    draw.text((dx - 14, px(0, REED_BEND / 2)[1]), f"{REED_BEND:g} mm straight", fill=GREEN, font=strong, anchor="rm")
    right = px(r + 4.0, 0)[0]
    notes = [(ceiling, "the fold stops at the shaft's ceiling"),
             (-2.0, f"the top lead back down along the glass (fold radius {fold:.2f} mm)"),
             (-s.reed_length_mm / 2, f"glass {s.reed_length_mm:g} x {s.reed_diameter_mm:g} mm"),
             (REED_BEND - back, "its end: to the shared return wire"),
             (-s.reed_length_mm - below * 0.75, "bottom lead straight down: its wire goes to the pin")]
    for z, text in notes:
        draw.text((right, px(0, z)[1]), text, fill=INK, font=label, anchor="lm")
    return image
