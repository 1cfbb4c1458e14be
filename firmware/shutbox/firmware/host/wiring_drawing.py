"""Pillow drawing of the wiring diagram: the board's 40-pin header, tile switches, button, 74HC165 chain."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from shutbox.firmware.host.plan import CHAIN_INPUTS, HC165_PINS, PinMap
from shutbox.firmware.host.topology import V33, Link, topology

INK = (20, 20, 20)
WIRE = (25, 90, 170)
GROUND = (40, 40, 40)
POWER = (190, 40, 40)
USED = (255, 214, 90)
BOARD = (28, 120, 70)
PAPER = (255, 255, 255)
PITCH = 32


class _Sheet:
    def __init__(self, width: int, height: int) -> None:
        self.image = Image.new("RGB", (width, height), PAPER)
        self.draw = ImageDraw.Draw(self.image)
        self.font = ImageFont.load_default(size=14)
        self.small = ImageFont.load_default(size=11)
        self.big = ImageFont.load_default(size=20)
        self.texts: list[str] = []  #: every label drawn, in order (what the diagram says, for checks)

    def text(self, xy: tuple[float, float], text: str, *, anchor: str = "lm", font=None, fill=INK) -> None:
        self.texts.append(text)
        self.draw.text(xy, text, font=font or self.font, anchor=anchor, fill=fill)

    def line(self, points: list[tuple[float, float]], fill=WIRE, width: int = 2) -> None:
        self.draw.line(points, fill=fill, width=width, joint="curve")

    def dot(self, x: float, y: float, fill=WIRE) -> None:
        self.draw.ellipse((x - 3.5, y - 3.5, x + 3.5, y + 3.5), fill=fill)

    def switch(self, x_from: float, x_to: float, y: float, label: str, push: bool = False,
               label_at: tuple[float, float] | None = None) -> None:
        """A switch symbol between two x positions on one row, with its label above."""
        left, right = min(x_from, x_to), max(x_from, x_to)
        self.line([(left, y), (left + 12, y)])
        self.line([(right - 12, y), (right, y)])
        for cx in (left + 15, right - 15):
            self.draw.ellipse((cx - 3, y - 3, cx + 3, y + 3), outline=INK, width=2)
        if push:
            self.line([(left + 12, y - 9), (right - 12, y - 9)], fill=INK)
            self.line([((left + right) / 2, y - 9), ((left + right) / 2, y - 17)], fill=INK)
        else:
            self.line([(left + 18, y - 1), (right - 16, y - 11)], fill=INK)
        self.text(label_at or ((left + right) / 2, y + 11), label, anchor="mm", font=self.small)


def _pin_xy(pin: int, x0: float, x1: float, top: float) -> tuple[float, float, str]:
    """Pad position and side ('l' or 'r') of physical header pin 1..40 (pin 1 top left, 40 top right)."""
    if pin <= 20:
        return x0, top + (pin - 1) * PITCH, "l"
    return x1, top + (40 - pin) * PITCH, "r"


def _draw_board(sheet: _Sheet, pins: PinMap, x0: float, x1: float, top: float) -> None:
    draw = sheet.draw
    bottom = top + 19 * PITCH
    draw.rounded_rectangle((x0, top - 28, x1, bottom + 28), radius=10, fill=BOARD)
    mid = (x0 + x1) / 2
    draw.rectangle((mid - 22, top - 40, mid + 22, top - 18), fill=(190, 190, 190), outline=INK)
    sheet.text((mid, top - 29), "USB", anchor="mm", font=sheet.small)
    sheet.text((mid, (top + bottom) / 2), pins.board.title.split(" (")[0], anchor="mm", fill=PAPER)
    used = pins.used_gpios()
    for pin, label in pins.board.header.items():
        x, y, side = _pin_xy(pin, x0, x1, top)
        gpio = int(label[2:]) if label.startswith("GP") else None
        fill = USED if gpio in used else (PAPER if label.startswith("GP") else (200, 200, 200))
        draw.rectangle((x - 7, y - 7, x + 7, y + 7), fill=fill, outline=INK)
        inner = x + 12 if side == "l" else x - 12
        sheet.text((inner, y), label, anchor="lm" if side == "l" else "rm", font=sheet.small, fill=PAPER)
        outer = x - 10 if side == "l" else x + 10
        sheet.text((outer, y - 9), str(pin), anchor="rm" if side == "l" else "lm", font=sheet.small)


def _rail(sheet: _Sheet, x: float, ys: list[float], pad: tuple[float, float] | None, label: str, colour) -> None:
    """A vertical supply rail through ``ys``, tied to a header pad if one is given."""
    span = list(ys) + ([pad[1]] if pad else [])
    top, bottom = min(span), max(span)
    sheet.line([(x, top - 14), (x, bottom + 14)], fill=colour, width=3)
    sheet.text((x, top - 24), label, anchor="mm", font=sheet.small, fill=colour)
    if pad:
        sheet.line([(x, pad[1]), pad], fill=colour)
        sheet.dot(x, pad[1], colour)


def _supply(link: Link, pins: PinMap) -> tuple[str, tuple[int, ...], tuple[int, int, int]]:
    """Label, header pins and colour of the rail a switch's second side goes to (see :mod:`.topology`)."""
    if link.net == V33:
        return link.drawn, pins.board.pins_labelled("3V3(OUT)"), POWER
    return link.drawn, pins.board.pins_labelled("GND"), GROUND


def _title(sheet: _Sheet, pins: PinMap, subtitle: str) -> None:
    sheet.text((20, 22), f"Shut the Box: {pins.tiles} tiles on a {pins.board.title}", font=sheet.big)
    sheet.text((20, 48), subtitle, font=sheet.font)


def _draw_gpio(pins: PinMap) -> _Sheet:
    sheet = _Sheet(1120, 820)
    x0, x1, top = 470.0, 650.0, 130.0
    _title(sheet, pins, f"one switch per GPIO, pull {pins.pull}; shut = {pins.shut_level_name}; "
                        f"debounce {pins.debounce_ms} ms, scan {pins.scan_ms} ms")
    _draw_board(sheet, pins, x0, x1, top)
    label, supply_pins, colour = _supply(topology(pins).tiles, pins)  # the button has the same pull and level
    rows: dict[str, list[float]] = {"l": [], "r": []}
    for gpio, role in pins.used_gpios().items():
        x, y, side = _pin_xy(pins.board.header_pin(gpio), x0, x1, top)
        sign = -1 if side == "l" else 1
        near, far, rail = x + sign * 110, x + sign * 200, x + sign * 290
        sheet.line([(x, y), (near, y)])
        name = "button" if role == "button" else role.replace("tile", "Tile")
        sheet.switch(near, far, y, name, push=role == "button")
        sheet.line([(far, y), (rail, y)], fill=colour)
        sheet.dot(rail, y, colour)
        rows[side].append(y)
    for side, ys in rows.items():
        if not ys:
            continue
        rail = (x0 - 290) if side == "l" else (x1 + 290)
        pads = [_pin_xy(p, x0, x1, top) for p in supply_pins]
        same = [(px, py) for px, py, s in pads if s == side]
        pad = min(same, key=lambda p: abs(p[1] - sum(ys) / len(ys))) if same else None
        _rail(sheet, rail, ys, pad, label if pad else f"{label} (pin {supply_pins[0]})", colour)
    return sheet


def _draw_chain(pins: PinMap) -> _Sheet:
    chips = pins.chips
    chip_h = 8 * 26 + 40
    height = max(860, 200 + chips * (chip_h + 50))
    sheet = _Sheet(1230, height)
    x0, x1, top = 200.0, 380.0, 190.0
    _title(sheet, pins, f"{chips} x 74HC165 chain; shut = {pins.shut_level_name}; debounce {pins.debounce_ms} ms, "
                        f"scan {pins.scan_ms} ms; every tile input has a 10 kOhm resistor to the idle level")
    _draw_board(sheet, pins, x0, x1, top)
    load, clock, data = pins.pins
    cx0, cx1 = 750.0, 910.0
    chip_top = [top - 10 + k * (chip_h + 50) for k in range(chips)]
    left_rows = {"SH/LD": 26.0, "CLK": 52.0, "QH": 104.0, "SER": 130.0}

    def chip_pin(k: int, name: str) -> tuple[float, float]:
        return cx0, chip_top[k] + left_rows[name]

    for k in range(chips):
        y = chip_top[k]
        sheet.draw.rectangle((cx0, y, cx1, y + chip_h), fill=(235, 235, 235), outline=INK, width=2)
        sheet.text(((cx0 + cx1) / 2, y + chip_h - 28), f"74HC165 #{k + 1}", anchor="mm")
        sheet.text(((cx0 + cx1) / 2, y + chip_h - 12), "VCC 16: 3V3, GND 8 + INH 15: GND", anchor="mm",
                   font=sheet.small)
        for name, dy in left_rows.items():
            sheet.text((cx0 + 6, y + dy), f"{name} ({HC165_PINS[name]})", font=sheet.small)
    # load and clock: from their pads to a vertical bus feeding every chip
    routes = [(load, "SH/LD", 0), (clock, "CLK", 1), (data, "QH", 2)]
    for gpio, name, lane in routes:
        px, py, side = _pin_xy(pins.board.header_pin(gpio), x0, x1, top)
        bus_x = 610.0 + lane * 22
        if side == "l":
            out_x, over_y = x0 - 40 - lane * 14, top - 60 - lane * 12
            sheet.line([(px, py), (out_x, py), (out_x, over_y), (bus_x, over_y)])
            start_y = over_y
        else:
            sheet.line([(px, py), (bus_x, py)])
            start_y = py
        caption = {"SH/LD": "load (SH/LD)", "CLK": "clock (CLK)", "QH": "data (QH #1)"}[name]
        sheet.text((x1 + 30, start_y - 7), f"GP{gpio}: {caption}", font=sheet.small, fill=WIRE)
        targets = [chip_pin(k, name) for k in (range(chips) if name != "QH" else [0])]
        ys = [start_y] + [t[1] for t in targets]
        sheet.line([(bus_x, min(ys)), (bus_x, max(ys))])
        for tx, ty in targets:
            sheet.line([(bus_x, ty), (tx, ty)])
            sheet.dot(bus_x, ty)
    # chain: QH of chip k+1 into SER of chip k; SER of the last chip to the idle level
    wiring = topology(pins)
    label, _supply_pins, colour = _supply(wiring.tiles, pins)
    idle = wiring.chain_idle
    assert idle is not None  # a chain has an idle level
    for k in range(chips):
        sx, sy = chip_pin(k, "SER")
        if k + 1 < chips:
            qx, qy = chip_pin(k + 1, "QH")
            sheet.line([(sx, sy), (sx - 40, sy), (sx - 40, qy), (qx, qy)], fill=INK)
        else:
            sheet.line([(sx, sy), (sx - 40, sy)], fill=POWER if idle == V33 else GROUND)
            sheet.text((sx - 44, sy), idle, anchor="rm", font=sheet.small)
    # tile switches on the chips' parallel inputs
    rail_x = cx1 + 250
    ys: list[float] = []
    for tile in range(1, pins.tiles + 1):
        chip, letter = pins.chain_input(tile)
        y = chip_top[chip - 1] + 18 + CHAIN_INPUTS.index(letter) * 26
        sheet.text((cx1 - 6, y), f"{letter} ({HC165_PINS[letter]})", anchor="rm", font=sheet.small)
        sheet.line([(cx1, y), (cx1 + 90, y)])
        sheet.switch(cx1 + 90, cx1 + 180, y, f"Tile {tile}", label_at=(cx1 + 50, y - 8))
        sheet.line([(cx1 + 180, y), (rail_x, y)], fill=colour)
        sheet.dot(rail_x, y, colour)
        ys.append(y)
    _rail(sheet, rail_x, ys, None, label, colour)
    if wiring.button is not None and pins.button is not None:
        label, _supply_pins, colour = _supply(wiring.button, pins)
        bx, by, side = _pin_xy(pins.board.header_pin(pins.button), x0, x1, top)
        sign = -1 if side == "l" else 1
        sheet.line([(bx, by), (bx + sign * 30, by)])
        sheet.switch(bx + sign * 30, bx + sign * 110, by, "button", push=True)
        sheet.line([(bx + sign * 110, by), (bx + sign * 130, by)], fill=colour)
        sheet.text((bx + sign * 134, by), label, anchor="lm" if sign > 0 else "rm", font=sheet.small, fill=colour)
    return sheet


def _draw(pins: PinMap) -> _Sheet:
    return _draw_chain(pins) if pins.tile_input == "74hc165" else _draw_gpio(pins)


def draw_wiring(pins: PinMap) -> Image.Image:
    """The diagram for ``pins`` as a Pillow image."""
    return _draw(pins).image


def drawn_labels(pins: PinMap) -> list[str]:
    """Every label the diagram for ``pins`` writes, in drawing order."""
    return _draw(pins).texts
