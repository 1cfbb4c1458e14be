"""The board's plan, from the kit: its outline in the box, every footprint where the box needs it, every pad's net.

Box frame (:mod:`shutbox.cad.geometry.layout`). The board lies flat ``plane`` mm over the table, on the bay
cover's standoffs (where the controller board sits when the box is wired by hand): a strip along the switch row
under every lane's switch, a neck through the bay's front wall, and a carrier filling the bay that the Pico is
soldered onto. The strip is screwed up into blocks over the switch channel (``strip_screws``); the carrier rests on
the cover, its holes over the cover's pins.

Nets come from the firmware's pin plan (:func:`shutbox.firmware.host.plan.pin_map`) and wiring topology
(:func:`shutbox.firmware.host.topology.topology`), the same the firmware and the wiring sheet are built from.
"""

from __future__ import annotations

from dataclasses import dataclass

from shapely.geometry import Polygon, box
from shapely.ops import unary_union

from shutbox.base.errors import ShutboxError
from shutbox.cad.board import footprints as fp
from shutbox.cad.geometry.boardfit import (
    SCREW_HEAD,
    STRIP_SCREW,
    board_regions,
    strip_screws,
)
from shutbox.cad.geometry.layout import (
    COVER_THICKNESS,
    PIN_DIAMETER,
    SCREW_CLEAR,
    SHIFT_RAIL,
    STANDOFF,
    Layout,
    layout,
)
from shutbox.firmware.host.plan import CHAIN_INPUTS, HC165_PINS, PinMap, pin_map
from shutbox.firmware.host.topology import GND, RESISTOR, V33, Link, Topology, topology
from shutbox.kit.model import Kit, box_refusal

STOP_PLAY = 0.4  # round the 74HC165 board's end stops on the cover (the carrier has holes for them)
RESISTOR_BELOW = 2.6  # the button's pull resistor this far in front of its pads
RESISTOR_BESIDE = 6.0  # a tile's pull resistor this far left of its switch
CHIP_GAP = 0.9  # between a chip's pads and the next part's
BUTTON_AFTER = 6.5  # the button's pads right of the last lane


@dataclass(frozen=True)
class Board:
    """One kit's board: outline (box frame), footprints with their pads' nets, and where it lies in the box."""

    kit: Kit
    lay: Layout
    pins: PinMap
    wiring: Topology
    outline: Polygon
    footprints: tuple[fp.Footprint, ...]
    strip: tuple[float, float, float, float]  #: x0, x1, y0, y1 of the strip
    neck: tuple[float, float, float, float]
    carrier: tuple[float, float, float, float]

    @property
    def plane(self) -> float:
        """z of the board's underside: on the cover's standoffs."""
        return COVER_THICKNESS + STANDOFF

    @property
    def nets(self) -> list[str]:
        """Every net on the board, GND first."""
        names = {p.net for f in self.footprints for p in f.pads if p.net}
        return sorted(names, key=lambda n: (n != GND, n != V33, _natural(n)))

    def footprint(self, ref: str) -> fp.Footprint:
        return next(f for f in self.footprints if f.ref == ref)

    def sensors(self) -> list[fp.Footprint]:
        """The tiles' switch footprints, tile 1 first."""
        return sorted((f for f in self.footprints if "Tile" in f.fields), key=lambda f: int(f.fields["Tile"]))


def _natural(name: str) -> tuple[str, int]:
    stem = name.rstrip("0123456789")
    return stem, int(name[len(stem):] or 0)


def tile_net(tile: int) -> str:
    return f"TILE{tile}"


def board_refusal(kit: Kit) -> str | None:
    """Why the board cannot be made for ``kit`` (one line), or None."""
    refusal = box_refusal(kit.rules, "the circuit board")
    if refusal:
        return refusal
    s = kit.sensors
    if s.kind == "none":
        return "--sensors none: the board carries the tile switches; allowed: --sensors reed, microswitch"
    if (s.board_length_mm, s.board_width_mm) != (fp.PICO_LENGTH, fp.PICO_WIDTH):
        return (f"--board-length {s.board_length_mm:g} --board-width {s.board_width_mm:g}: the board carries a "
                f"Raspberry Pi Pico; allowed: --board-length {fp.PICO_LENGTH:g} --board-width {fp.PICO_WIDTH:g}")
    return None


def plan_board(kit: Kit) -> Board:
    """The board of ``kit``, or :class:`ShutboxError` naming the setting that makes it impossible."""
    refusal = board_refusal(kit)
    if refusal:
        raise ShutboxError(refusal)
    lay = layout(kit)
    pins = pin_map(kit)
    wiring = topology(pins)
    strip, neck, carrier = board_regions(lay)
    parts = _sensors(lay, pins, wiring) + _controller(lay, pins, wiring) + _chain(lay, pins, wiring)
    parts += _button(lay, pins, wiring) + _holes(lay, strip, carrier)
    outline = unary_union([box(*_xy(strip)), box(*_xy(neck)), box(*_xy(carrier))])
    stops = [box(*r) for r in _stop_cutouts(lay)]
    if stops:
        outline = outline.difference(unary_union(stops))
    if not isinstance(outline, Polygon):
        raise ShutboxError("the board's outline falls apart for these settings")  # pragma: no cover
    return Board(kit, lay, pins, wiring, outline, tuple(parts), strip, neck, carrier)


def _xy(r: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x0, x1, y0, y1 = r
    return (x0, y0, x1, y1)


def _cover_to_box(lay: Layout, x: float, y: float) -> tuple[float, float]:
    ox, oy = lay.cover_origin
    return ox + x, oy + y


def _stop_cutouts(lay: Layout) -> list[tuple[float, float, float, float]]:
    """Holes in the carrier for the 74HC165 board's end stops on the cover (:func:`shutbox.cad.sensors.shift_rails`),
    as x0, y0, x1, y1."""
    if not lay.shift_board:
        return []
    s = lay.kit.sensors
    bx, by = lay.shift_origin
    out = []
    for sx in (bx - 1.2 - 0.3, bx + s.shift_board_length_mm + 0.3):
        x0, y0 = _cover_to_box(lay, sx, by + (s.shift_board_width_mm - SHIFT_RAIL) / 2)
        out.append((x0 - STOP_PLAY, y0 - STOP_PLAY, x0 + 1.2 + STOP_PLAY, y0 + SHIFT_RAIL + STOP_PLAY))
    return out


def _sensors(lay: Layout, pins: PinMap, wiring: Topology) -> list[fp.Footprint]:
    """Each tile's switch pads at its lane's pocket on the switch row, and its pull resistor when it needs one."""
    link = wiring.tiles
    out: list[fp.Footprint] = []
    for n in range(1, lay.tiles + 1):
        x, y = lay.lane_x(n), lay.switch_y
        if lay.kit.sensors.lever:
            used, spare = ("NC", "NO") if link.normally_closed else ("NO", "NC")
            part = fp.microswitch_pads(f"S{n}", n, x, y).with_nets({"C": tile_net(n), used: link.net, spare: None})
        else:
            part = fp.reed_pads(f"S{n}", n, x, y).with_nets({"1": tile_net(n), "2": link.net})
        out.append(part)
        if link.resistor_to is not None:  # beside the pads, its input end towards them
            out.append(_pull(f"R{n}", tile_net(n), link, x - RESISTOR_BESIDE, y, f"tile {n}", flip=True))
    return out


def _pull(ref: str, net: str, link: Link, x: float, y: float, what: str, flip: bool = False) -> fp.Footprint:
    """A pull resistor from ``net`` (pad 1, or pad 2 when ``flip``: its +x end) to the link's resistor net."""
    kind = "pull-up" if link.resistor_to == V33 else "pull-down"
    ends = {"2": net, "1": link.resistor_to} if flip else {"1": net, "2": link.resistor_to}
    return fp.chip_0805(ref, RESISTOR.replace(" ", ""), f"{RESISTOR} {kind}, 0805 ({what})", x, y).with_nets(ends)


def pico_centre(lay: Layout) -> tuple[float, float]:
    """Box-frame centre of the Pico: where the layout seats the controller board."""
    bx, by = lay.board_origin
    s = lay.kit.sensors
    return _cover_to_box(lay, bx + s.board_length_mm / 2, by + s.board_width_mm / 2)


def _controller(lay: Layout, pins: PinMap, wiring: Topology) -> list[fp.Footprint]:
    board = pins.board
    # One ground pin is wired (the Pico joins its ground pins itself): the one beside the 3.3 V output.
    power = board.pins_labelled("3V3(OUT)")[0]
    ground = min(board.pins_labelled("GND"), key=lambda p: abs(p - power))
    nets: dict[str, str | None] = {str(ground): GND, str(power): V33}
    if pins.tile_input == "74hc165":
        load, clock, data = pins.pins
        nets.update({str(board.header_pin(load)): "SH_LD", str(board.header_pin(clock)): "CLK",
                     str(board.header_pin(data)): "QH"})
    else:
        nets.update({str(board.header_pin(g)): tile_net(n) for n, g in enumerate(pins.pins, start=1)})
    if pins.button is not None:
        nets[str(board.header_pin(pins.button))] = "BUTTON"
    x, y = pico_centre(lay)
    return [fp.pico("U1", board.title, x, y).with_nets(nets)]


def _chain(lay: Layout, pins: PinMap, wiring: Topology) -> list[fp.Footprint]:
    """The 74HC165 chain in the bay beside the Pico (at the layout's 74HC165 board's height), chip 1 next to it, so
    the neck's signals come up clear of them; a 100 nF capacitor beside each chip."""
    if pins.tile_input != "74hc165":
        return []
    s = lay.kit.sensors
    bx, by = lay.shift_origin
    # next to the Pico (leaving the neck free), left of the cover's end stop between them (it stands up through a
    # hole in the carrier)
    right = min([pico_centre(lay)[0] - fp.PICO_LENGTH / 2] + [x0 for x0, _, _, _ in _stop_cutouts(lay)[1:]]) - CHIP_GAP
    idle = wiring.chain_idle
    out: list[fp.Footprint] = []
    for chip in range(1, pins.chips + 1):
        # chip 1 (next to the controller) on the right, the chain running left
        x = right - (chip - 0.5) * (7 * fp.DIP_PITCH + fp.DIP_PAD + 2 * CHIP_GAP)
        _, y = _cover_to_box(lay, bx, by + s.shift_board_width_mm / 2)
        nets: dict[str, str | None] = {
            str(HC165_PINS["SH/LD"]): "SH_LD", str(HC165_PINS["CLK"]): "CLK", str(HC165_PINS["CLK INH"]): GND,
            str(HC165_PINS["GND"]): GND, str(HC165_PINS["VCC"]): V33, str(HC165_PINS["/QH"]): None,
            str(HC165_PINS["QH"]): "QH" if chip == 1 else f"CHAIN{chip}",
            str(HC165_PINS["SER"]): f"CHAIN{chip + 1}" if chip < pins.chips else idle,
        }
        for index, letter in enumerate(CHAIN_INPUTS):
            tile = (chip - 1) * 8 + index + 1
            nets[str(HC165_PINS[letter])] = tile_net(tile) if tile <= pins.tiles else idle
        out.append(fp.dip16(f"U{chip + 1}", x, y).with_nets(nets))
        vcc = out[-1].pad(str(HC165_PINS["VCC"]))
        out.append(fp.chip_0805(f"C{chip}", "100nF", "100 nF decoupling capacitor, 0805", x + vcc.dx,
                                y + fp.DIP_ROW + 3.0).with_nets({"1": V33, "2": GND}))
    return out


def _button(lay: Layout, pins: PinMap, wiring: Topology) -> list[fp.Footprint]:
    """The end-turn button's wire pads at the strip's right end (the button is in the box's right end wall)."""
    link = wiring.button
    if pins.button is None or link is None:
        return []
    x, y = lay.lane_x(lay.tiles) + BUTTON_AFTER, lay.switch_y
    contact = "normally closed" if link.normally_closed else "normally open"
    out = [fp.wire_pads("J1", "button", f"end-turn button ({contact}), wired to these pads", x, y).with_nets(
        {"1": "BUTTON", "2": link.net})]
    if link.resistor_to is not None:
        out.append(_pull("R20", "BUTTON", link, x, y - RESISTOR_BELOW, "button"))
    return out


def _holes(lay: Layout, strip: tuple[float, float, float, float],
           carrier: tuple[float, float, float, float]) -> list[fp.Footprint]:
    out = [fp.hole(f"H{i}", SCREW_CLEAR, x, y, SCREW_HEAD / 2 + 0.25, f"strip screw hole ({STRIP_SCREW})")
           for i, (x, y) in enumerate(strip_screws(lay, strip, carrier), start=1)]
    first = len(out) + 1
    for i, (px, py) in enumerate(lay.pin_points()):
        x, y = _cover_to_box(lay, px, py)
        out.append(fp.hole(f"H{first + i}", PIN_DIAMETER + 0.4, x, y, (PIN_DIAMETER + 0.4) / 2 + 0.3,
                           "over a pin of the bay cover (the Pico's mounting hole above it)"))
    return out
