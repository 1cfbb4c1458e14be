"""The build guide's plan drawings, to scale from the kit's layout and pin map (Pillow, DejaVu Sans; no CAD kernel,
a few milliseconds each): where each reed switch goes and where its wire lands, a magnet in its tile, the felt
in the tray, the boards on the cover closing the bay (the controller, and the 74HC165 board when the bay takes
one), and the controller's BOOTSEL button.

``FIGURES`` names each drawing and whether it needs the sensors; :func:`draw_figures` writes them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from shutbox.base.typefaces import BOLD, REGULAR, font_file
from shutbox.cad.geometry.layout import COVER_SCREW, GROOVE, MAGNET_AT, SCREW_CLEAR, USB_WIDTH, Layout

PAPER = (250, 250, 247)
INK = (30, 30, 30)
PLASTIC = (225, 200, 160)
PLASTIC_EDGE = (150, 115, 70)
HOLLOW = (245, 235, 215)
FELT = (40, 120, 70)
COPPER = (180, 90, 30)
BOARD = (30, 120, 70)
SHIFT = (215, 225, 200)  # the 74HC165 board (perfboard)
METAL = (150, 150, 150)
MAGNET = (90, 100, 120)
ACCENT = (200, 40, 40)
MARGIN = 40


class Sheet:
    """A picture drawn in millimetres: ``scale`` px per mm, the origin at (``ox``, ``oy``) px, y down."""

    def __init__(self, width_mm: float, height_mm: float, scale: float, extra_top: int = 60,
                 extra_bottom: int = 30) -> None:
        self.scale = scale
        self.ox, self.oy = MARGIN, MARGIN + extra_top
        size = (round(width_mm * scale) + 2 * MARGIN, round(height_mm * scale) + 2 * MARGIN + extra_top + extra_bottom)
        self.image = Image.new("RGB", size, PAPER)
        self.draw = ImageDraw.Draw(self.image)
        self.font = ImageFont.truetype(str(font_file(REGULAR)), 17)
        self.small = ImageFont.truetype(str(font_file(REGULAR)), 14)
        self.bold = ImageFont.truetype(str(font_file(BOLD)), 20)

    def at(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x * self.scale, self.oy + y * self.scale)

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        (a, b), (c, d) = self.at(x0, y0), self.at(x1, y1)
        return (min(a, c), min(b, d), max(a, c), max(b, d))

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill=None, outline=INK, width: int = 2,
             radius: float = 0.0) -> None:
        self.draw.rounded_rectangle(self.box(x0, y0, x1, y1), radius=radius * self.scale, fill=fill, outline=outline,
                                    width=width)

    def circle(self, x: float, y: float, r: float, fill=None, outline=INK, width: int = 2) -> None:
        cx, cy = self.at(x, y)
        rr = max(r * self.scale, 2.0)
        self.draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=fill, outline=outline, width=width)

    def text(self, x: float, y: float, text: str, anchor: str = "mm", font=None, fill=INK) -> None:
        self.draw.text(self.at(x, y), text, fill=fill, font=font or self.font, anchor=anchor)

    def title(self, text: str, subtitle: str = "") -> None:
        self.draw.text((MARGIN, 18), text, fill=INK, font=self.bold, anchor="la")
        if subtitle:
            self.draw.text((MARGIN, 46), subtitle, fill=INK, font=self.small, anchor="la")

    def line(self, points: list[tuple[float, float]], fill=INK, width: int = 2) -> None:
        self.draw.line([self.at(x, y) for x, y in points], fill=fill, width=width)

    def dimension(self, x0: float, y0: float, x1: float, y1: float, text: str, offset: float) -> None:
        """A dimension line parallel to (x0, y0)-(x1, y1), ``offset`` mm to its side, with its length in words."""
        horizontal = abs(y1 - y0) < abs(x1 - x0)
        dx, dy = (0.0, offset) if horizontal else (offset, 0.0)
        a, b = (x0 + dx, y0 + dy), (x1 + dx, y1 + dy)
        self.line([a, b], fill=ACCENT)
        tick = 2.0 / self.scale * 5
        for x, y in (a, b):
            self.line([(x - (tick if not horizontal else 0), y - (tick if horizontal else 0)),
                       (x + (tick if not horizontal else 0), y + (tick if horizontal else 0))], fill=ACCENT)
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        if horizontal:
            self.text(mx, my + (-1 if offset < 0 else 1) * 12 / self.scale, text, fill=ACCENT)
        else:
            self.text(mx + (-1 if offset < 0 else 1) * 6 / self.scale, my, text, fill=ACCENT,
                      anchor="rm" if offset < 0 else "lm")

    def save(self, path: Path) -> None:
        self.image.save(path)


def _pins(lay: Layout):
    from shutbox.firmware.host.plan import pin_map

    return pin_map(lay.kit)


def _landing(lay: Layout, tile: int) -> str:
    """Where tile ``tile``'s wire lands, in a few characters: ``GP2`` or ``#1 H`` (74HC165 1, input H)."""
    pins = _pins(lay)
    if pins.tile_input == "74hc165":
        chip, letter = pins.chain_input(tile)
        return f"#{chip} {letter}"
    return f"GP{pins.tile_gpio(tile)}"


def switch_map(lay: Layout, path: Path) -> None:
    """The box from below, turned over about its long side: each tile's shaft with its number and where its wire
    lands, the wire channel to the bay, the bay with the board, the button in the end wall."""
    s = Sheet(lay.length + 34.0, lay.width, 3.6, extra_top=70, extra_bottom=10)
    pins = _pins(lay)
    lever = lay.kit.sensors.lever
    s.title(f"Underside: where each {'microswitch' if lever else 'reed switch'} goes, and where its wire lands",
            "box turned over about its long side (tray edge away from you, tile 1 still on the left); "
            + ("GPn: the Pico's GPIO" if pins.tile_input == "gpio" else "#k X: 74HC165 k, input X"))
    # Turned over about its long side, the box's y runs down the picture (the tray's front edge at the top) and x
    # keeps its direction: a point's picture y is its box y.
    y = float
    s.rect(0, y(0), lay.length, y(lay.width), fill=PLASTIC, outline=PLASTIC_EDGE, width=3, radius=4.0)
    tx0, tx1, ty0, ty1 = lay.tray
    s.rect(tx0, y(ty0), tx1, y(ty1), fill=(235, 215, 180), outline=PLASTIC_EDGE, width=1, radius=3.0)
    s.text((tx0 + tx1) / 2, y((ty0 + ty1) / 2), "under the dice tray (solid floor)", fill=PLASTIC_EDGE)
    # The hollow under the deck, the channel along the spine and its branch to the bay.
    s.rect(lay.wall, y(ty1 + lay.wall), lay.length - lay.wall, y(lay.width - lay.wall), fill=HOLLOW,
           outline=PLASTIC_EDGE, width=1)
    cx0, cx1, cy0, cy1 = lay.cavity
    sy = lay.switch_y
    half = GROOVE / 2
    branch = cx0 + 5.0
    s.rect(min(lay.lane_x(1), branch) - half, y(sy - half), max(lay.lane_x(lay.tiles), branch) + half, y(sy + half),
           fill=(200, 175, 135), outline=None)
    s.rect(branch - half, y(min(sy, cy0)), branch + half, y(max(sy, cy0) + 2.0), fill=(200, 175, 135), outline=None)
    s.rect(cx0, y(cy0), cx1, y(cy1), fill=(205, 195, 175), outline=INK, width=2)
    ox, oy = lay.cover_origin
    bx, by = lay.board_origin
    b = lay.kit.sensors
    s.rect(ox + bx, y(oy + by), ox + bx + b.board_length_mm, y(oy + by + b.board_width_mm), fill=BOARD, outline=INK)
    s.text(ox + bx + b.board_length_mm / 2, y(oy + by + b.board_width_mm / 2), pins.board.title.split(" (")[0],
           fill=(255, 255, 255), font=s.small)
    if lay.shift_board:
        sx, sy_ = lay.shift_origin
        s.rect(ox + sx, y(oy + sy_), ox + sx + b.shift_board_length_mm, y(oy + sy_ + b.shift_board_width_mm),
               fill=SHIFT, outline=INK)
        s.text(ox + sx + b.shift_board_length_mm / 2, y(oy + sy_ + b.shift_board_width_mm / 2), "74HC165 board",
               font=s.small)
    s.rect(lay.length - lay.wall - 0.5, y(lay.usb_y - USB_WIDTH / 2), lay.length + 0.5, y(lay.usb_y + USB_WIDTH / 2),
           fill=PAPER, outline=INK, width=1)
    s.text(lay.length + 2, y(lay.usb_y), "USB", anchor="lm", font=s.small)
    s.text(cx0 - 2, y(cy1 + 4), "electronics bay", anchor="rm", font=s.small)
    if pins.button is not None:
        by_, _ = lay.button_at
        s.circle(lay.length - 1.0, y(by_), 3.0, fill=(230, 60, 60))
        s.text(lay.length + 2, y(by_), "button", anchor="lm", font=s.small)
        s.text(lay.length + 2, y(by_) + 5.0, f"GP{pins.button}", anchor="lm", font=s.small)
    for n in range(1, lay.tiles + 1):
        x = lay.lane_x(n)
        if lever:  # the pocket, and the slot the lever rises through
            from shutbox.cad.geometry.microswitch import POCKET_PLAY, WIDTH, body_y

            y0, y1 = body_y(lay)
            half = WIDTH / 2 + POCKET_PLAY
            s.rect(x - half, y(y0 - POCKET_PLAY), x + half, y(y1 + POCKET_PLAY), fill=(255, 255, 255), outline=COPPER,
                   width=3)
        else:
            s.circle(x, y(sy), lay.shaft_radius + 0.6, fill=(255, 255, 255), outline=COPPER, width=3)
        s.text(x, y(sy) - 6.5, str(n), font=s.bold)
        s.text(x, y(sy) + 7.0, _landing(lay, n), font=s.small, fill=COPPER)
    s.text(branch - GROOVE / 2 - 2.0, y(sy + 14.0), "wire channel to the bay", anchor="rm", font=s.small,
           fill=PLASTIC_EDGE)
    s.save(path)


def magnets(lay: Layout, path: Path) -> None:
    """A tile from below with its magnet pocket, and the pocket in section with the magnet in it."""
    d, depth = lay.magnet_pocket
    sensors = lay.kit.sensors
    width, length, thick = lay.tile_foot, lay.tile_length, lay.tile_thickness
    gap = 18.0
    left = 12.0  # room for the dimension beside the tile
    s = Sheet(left + width + gap + length + 22.0, max(length, thick) + 6.0, 9.0, extra_top=70)
    s.ox += round(left * s.scale)
    s.title(f"A {sensors.magnet_diameter_mm:g} x {sensors.magnet_height_mm:g} mm magnet in each tile",
            "a drop of CA glue in the pocket, the magnet pressed to its bottom; either pole down")
    # From below: the foot, the pocket at MAGNET_AT from the front end.
    s.rect(0, 0, width, length, fill=PLASTIC, outline=PLASTIC_EDGE, width=3, radius=1.0)
    s.circle(width / 2, MAGNET_AT, d / 2, fill=(255, 255, 255), outline=INK)
    s.circle(width / 2, MAGNET_AT, sensors.magnet_diameter_mm / 2, fill=MAGNET, outline=None)
    s.text(width / 2, -3.0, "front end (towards the tray)", font=s.small)
    s.text(width / 2, length + 3.5, "tile from below", font=s.small)
    s.dimension(width / 2, 0, width / 2, MAGNET_AT, f"{MAGNET_AT:g} mm", -width / 2 - 2)
    # Section through the pocket: the tile upside down as it is held (foot up), the magnet in the pocket.
    x0 = width + gap
    top = (length - thick) / 2
    s.rect(x0, top, x0 + length, top + thick, fill=PLASTIC, outline=PLASTIC_EDGE, width=3)
    px = x0 + MAGNET_AT
    s.rect(px - d / 2, top, px + d / 2, top + depth, fill=(255, 255, 255), outline=INK, width=2)
    m = sensors.magnet_height_mm
    s.rect(px - sensors.magnet_diameter_mm / 2, top + depth - m, px + sensors.magnet_diameter_mm / 2, top + depth,
           fill=MAGNET, outline=None)
    s.text(x0 + length / 2, top + thick + 3.5, "section, held foot up", font=s.small)
    s.text(x0, top - 6.0, "front end", anchor="lm", font=s.small)
    s.dimension(px - d / 2, top, px + d / 2, top, f"pocket {d:g} mm", -3.0)
    s.dimension(px + d / 2, top, px + d / 2, top + depth, f"{depth:g} mm deep", d / 2 + 1.0)
    s.save(path)


def felt(lay: Layout, path: Path) -> None:
    """The box from above with the felt in the tray's recess, and the size to cut it."""
    from shutbox.cad.geometry.layout import FELT_MARGIN, FELT_SLACK

    s = Sheet(lay.length + 40.0, lay.width, 3.2, extra_top=70)
    fx, fy = lay.felt
    s.title(f"Cut the felt {fx - FELT_SLACK:.0f} x {fy - FELT_SLACK:.0f} mm and lay it into the tray's recess",
            f"{lay.kit.box.felt_mm:g} mm felt, self-adhesive or glued; the box from above, the lanes at the back")
    y = lambda v: lay.width - v  # noqa: E731  (from above: the back at the top)
    s.rect(0, y(0), lay.length, y(lay.width), fill=PLASTIC, outline=PLASTIC_EDGE, width=3, radius=4.0)
    for n in range(1, lay.tiles + 1):
        x = lay.lane_x(n)
        s.rect(x - lay.tile_width / 2, y(lay.deck_front), x + lay.tile_width / 2, y(lay.lane_end),
               fill=(235, 215, 180), outline=PLASTIC_EDGE, width=1)
    tx0, tx1, ty0, ty1 = lay.tray
    s.rect(tx0, y(ty0), tx1, y(ty1), fill=(235, 215, 180), outline=PLASTIC_EDGE, width=2, radius=3.0)
    x0, y0 = tx0 + FELT_MARGIN + FELT_SLACK / 2, ty0 + FELT_MARGIN + FELT_SLACK / 2
    x1, y1 = x0 + fx - FELT_SLACK, y0 + fy - FELT_SLACK
    s.rect(x0, y(y0), x1, y(y1), fill=FELT, outline=None, radius=2.0)
    s.text((x0 + x1) / 2, y((y0 + y1) / 2), "felt", fill=(255, 255, 255), font=s.bold)
    s.dimension(x0, y(y0), x1, y(y0), f"{fx - FELT_SLACK:.0f} mm", 7.0)
    s.dimension(x1, y(y1), x1, y(y0), f"{fy - FELT_SLACK:.0f} mm", 6.0)
    s.save(path)


def cover(lay: Layout, path: Path) -> None:
    """Closing the bay: the cover as printed (pins up) with the board pressed onto its pins, the USB socket at the
    end wall's side, and its four screw holes."""
    w, h = lay.cover_size
    b = lay.kit.sensors
    s = Sheet(w + 30.0, h + 6.0, 9.0, extra_top=70)
    s.title("Close the bay: the board on the cover's pins, the cover into its seat",
            f"cover pins up, as printed; then box upside down, cover in board first, 4 x M3 x {COVER_SCREW:g} mm "
            "from outside")
    s.rect(0, 0, w, h, fill=(150, 175, 205), outline=INK, width=3)
    bx, by = lay.board_origin
    s.rect(bx, h - by - b.board_width_mm, bx + b.board_length_mm, h - by, fill=BOARD, outline=INK)
    for px, py in lay.pin_points():
        s.circle(px, h - py, 1.0, fill=(255, 255, 255), outline=INK, width=1)
    if lay.shift_board:  # beside the controller, on its rails (taped down)
        sx, sy = lay.shift_origin
        s.rect(sx, h - sy - b.shift_board_width_mm, sx + b.shift_board_length_mm, h - sy, fill=SHIFT, outline=INK)
        s.text(sx + b.shift_board_length_mm / 2, h - sy - b.shift_board_width_mm / 2, "74HC165 board",
               font=s.small)
    usb_y = h - by - b.board_width_mm / 2
    s.rect(bx + b.board_length_mm - 5.0, usb_y - 4.0, bx + b.board_length_mm + 0.5, usb_y + 4.0, fill=METAL)
    for sx, sy in lay.screw_points():
        s.circle(sx, h - sy, SCREW_CLEAR / 2, fill=PAPER, outline=INK)
    s.line([(w, -1.0), (w, h + 1.0)], fill=PLASTIC_EDGE, width=5)
    s.line([(bx + b.board_length_mm + 1.0, usb_y), (w + 8.0, usb_y)], fill=ACCENT, width=3)
    s.text(w + 9.0, usb_y, "USB", anchor="lm", fill=ACCENT)
    s.text(bx + b.board_length_mm / 2, usb_y, _pins(lay).board.title.split(" (")[0], fill=(255, 255, 255),
           font=s.small)
    s.text(w + 1.5, h + 0.5, "end wall", anchor="la", font=s.small, fill=PLASTIC_EDGE)
    s.text(w / 2, h + 3.0, "four screw holes in the corners", font=s.small)
    s.save(path)


def bootsel(lay: Layout, path: Path) -> None:
    """The board from above: hold its BOOTSEL button while plugging in the USB cable."""

    b = lay.kit.sensors
    pins = _pins(lay)
    length, width = b.board_length_mm, b.board_width_mm
    s = Sheet(length + 30.0, width + 10.0, 12.0, extra_top=70)
    s.title(f"Hold BOOTSEL while plugging in: the board appears as the drive {pins.board.boot_drive}",
            f"{pins.board.title} from above, USB socket on the left; then copy the MicroPython UF2 onto that drive")
    x0 = 22.0
    s.rect(x0, 0, x0 + length, width, fill=BOARD, outline=INK, width=3, radius=1.0)
    s.rect(x0 - 1.5, width / 2 - 4.0, x0 + 5.5, width / 2 + 4.0, fill=METAL, outline=INK)
    s.line([(2.0, width / 2), (x0 - 1.5, width / 2)], fill=INK, width=6)
    s.text(1.0, width / 2 - 3.0, "USB cable", anchor="lm", font=s.small)
    # BOOTSEL: the white push button beside the USB end (Pico and Pico 2: 12 mm in, off the centre line).
    bx, by = x0 + 12.0, width / 2 + 4.5
    s.rect(bx - 2.0, by - 1.5, bx + 2.0, by + 1.5, fill=(245, 245, 245), outline=INK)
    s.circle(bx, by, 1.0, fill=(255, 255, 255))
    s.line([(bx, by + 1.5), (bx, width + 4.0)], fill=ACCENT, width=3)
    s.text(bx, width + 6.0, "BOOTSEL: hold it down", fill=ACCENT, font=s.bold)
    s.rect(x0 + 25.0, width / 2 - 3.5, x0 + 32.0, width / 2 + 3.5, fill=(40, 40, 40), outline=None)
    s.save(path)


def microswitch(lay: Layout, path: Path) -> None:
    """A section along a lane through its microswitch: the switch in its pocket under the lane floor, the lever
    risen into the open tile's channel (released), and held down by the shut tile's cam, with the figures."""
    from shutbox.cad.geometry import microswitch as m

    shut_z = m.body_top(lay) - m.TOP_OVER_HOLES + m.PRESS
    open_z = min(lay.tile_z + m.CHANNEL_DEPTH, m.holes_z(lay) + m.FREE)
    y_lo, y_hi = lay.deck_front - 4.0, lay.deck_front + lay.travel + lay.tile_length + 4.0
    z_lo, z_hi = m.shelf_bottom(lay) - m.TAB_LENGTH - 2.0, lay.height + 2.0
    panel = z_hi - z_lo
    s = Sheet(y_hi - y_lo + 30.0, 2 * panel + 12.0, 10.0, extra_top=70)
    s.title("Each microswitch on its ledges, lever up, its tip towards the tray",
            f"operates at {m.OPERATE:g} mm over its holes (overtravel {m.OVERTRAVEL:g}); a shut tile holds the tip at "
            f"{m.PRESS:g} mm; wires down between the ledges")
    hinge = m.hinge_y(lay)
    y0, y1 = m.body_y(lay)
    for k, shut in enumerate((False, True)):
        top = k * (panel + 12.0)

        def at(y: float, z: float, top: float = top) -> tuple[float, float]:
            return (y - y_lo, top + z_hi - z)

        def box(a: float, b: float, c: float, d: float, **kw) -> None:
            (p, q), (r, t) = at(a, b), at(c, d)
            s.rect(p, min(q, t), r, max(q, t), **kw)

        box(y_lo, lay.lane_floor - 3.0, y_hi, lay.lane_floor, fill=PLASTIC, outline=PLASTIC_EDGE, width=1)
        sy0, sy1 = m.shelf_y(lay)
        box(sy0, m.shelf_bottom(lay), sy1, lay.lane_floor, fill=PLASTIC, outline=PLASTIC_EDGE, width=1)
        box(y0 - m.POCKET_PLAY, m.body_top(lay) - m.HEIGHT, y1 + m.POCKET_PLAY, lay.lane_floor + 0.1, fill=HOLLOW,
            outline=None)
        box(y0 + m.LEDGE, m.shelf_bottom(lay) - 0.1, y1 - m.LEDGE, m.body_top(lay) - m.HEIGHT, fill=HOLLOW,
            outline=None)
        box(y0, m.body_top(lay) - m.HEIGHT, y1, m.body_top(lay), fill=(40, 40, 45), outline=INK)
        for a in m.TAB_AT:
            box(y0 + a - m.TAB_WIDTH / 2, m.body_top(lay) - m.HEIGHT - m.TAB_LENGTH, y0 + a + m.TAB_WIDTH / 2,
                m.body_top(lay) - m.HEIGHT, fill=METAL, outline=None)
        ty = lay.tile_y(shut)
        box(ty, lay.tile_z, ty + lay.tile_length, lay.tile_z + lay.tile_thickness, fill=(240, 228, 200),
            outline=PLASTIC_EDGE)
        end = ty + m.ramp_end(lay)
        s.line([at(ty, lay.tile_z + m.CHANNEL_DEPTH), at(end - m.CHANNEL_DEPTH, lay.tile_z + m.CHANNEL_DEPTH),
                at(end, lay.tile_z)], fill=PLASTIC_EDGE, width=2)
        box(ty + 0.1, lay.tile_z + 0.05, end - m.CHANNEL_DEPTH, lay.tile_z + m.CHANNEL_DEPTH - 0.1, fill=HOLLOW,
            outline=None)
        tip = shut_z if shut else open_z
        span = (tip - m.body_top(lay)) / m.LEVER_LENGTH
        reach = m.LEVER_LENGTH * (1 - span * span) ** 0.5
        s.line([at(hinge, m.body_top(lay)), at(hinge - reach, tip)], fill=ACCENT, width=4)
        s.text(*at(y_lo + 1.0, lay.height + 1.0), "tile shut: pressed" if shut else "tile open: released",
               anchor="lm", font=s.bold)
        zh = m.holes_z(lay)
        s.dimension(*at(hinge - reach, zh), *at(hinge - reach, tip), f"tip {tip - zh:.1f} mm over the holes",
                    hinge - reach - y_lo + 12.0 - (hinge - reach - y_lo))
        s.line([at(y0 + m.LENGTH / 2 - m.HOLE_PITCH / 2, zh), at(hinge - reach + 12.0, zh)], fill=ACCENT, width=1)
    s.save(path)


#: The pictures :mod:`shutbox.cad.guide.sensorviews` renders from the model for the repository's guide (a box build
#: each,
#: so not in every kit build): a reed switch seated under a shut tile, the 74HC165 board in the bay.
REED_VIEW = "reed-seated.png"
BAY_VIEW = "shift-board-bay.png"
MICROSWITCH_VIEW = "microswitch-seated.png"


def _sensed(lay: Layout) -> bool:
    return lay.sensors


def _magnets(lay: Layout) -> bool:
    return lay.sensors and lay.kit.sensors.magnets


def _levers(lay: Layout) -> bool:
    return lay.sensors and lay.kit.sensors.lever


#: Figure file name -> (whether a kit's guide has it, the function drawing it).
FIGURES: dict[str, tuple[Callable[[Layout], bool], Callable[[Layout, Path], None]]] = {
    "switch-map.png": (_sensed, switch_map),
    "magnets.png": (_magnets, magnets),
    "microswitch.png": (_levers, microswitch),
    "felt.png": (lambda lay: True, felt),
    "cover.png": (_sensed, cover),
    "bootsel.png": (_sensed, bootsel),
}


def figure_names(lay: Layout) -> list[str]:
    """The figures this kit's guide has."""
    return [name for name, (wanted, _) in FIGURES.items() if wanted(lay)]


def draw_figures(lay: Layout, folder: Path) -> list[str]:
    """Draw this kit's figures into ``folder``; their file names."""
    for name in figure_names(lay):
        FIGURES[name][1](lay, folder / name)
    return figure_names(lay)
