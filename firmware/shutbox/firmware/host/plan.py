"""The firmware's pin map, derived from the kit model, and the generated ``boxcfg`` module.

Boards differ only in this table (header GPIOs, physical pin numbers, ``.mpy`` architecture,
USB ids), so another board is another :class:`Board` entry and a choice in ``model.BOARDS``.
"""

from __future__ import annotations

from dataclasses import dataclass

from shutbox.base.version import __version__
from shutbox.firmware.host.protocol import MAX_TILES
from shutbox.base.errors import ShutboxError
from shutbox.kit.model import LEVELS, SENSOR_KINDS, Kit

CHAIN_INPUTS = "HGFEDCBA"  # order in which a 74HC165 shifts its inputs out
#: 74HC165 (DIP/SOIC-16) pin numbers.
HC165_PINS = {"SH/LD": 1, "CLK": 2, "E": 3, "F": 4, "G": 5, "H": 6, "/QH": 7, "GND": 8, "QH": 9, "SER": 10,
              "A": 11, "B": 12, "C": 13, "D": 14, "CLK INH": 15, "VCC": 16}

# The 40-pin header shared by the Raspberry Pi Pico and Pico 2: physical pin -> label.
_PICO_HEADER: dict[int, str] = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND", 9: "GP6", 10: "GP7",
    11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11", 16: "GP12", 17: "GP13", 18: "GND", 19: "GP14",
    20: "GP15", 21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND",
    29: "GP22", 30: "RUN", 31: "GP26", 32: "GP27", 33: "GND", 34: "GP28", 35: "ADC_VREF", 36: "3V3(OUT)",
    37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}


@dataclass(frozen=True)
class Board:
    """A microcontroller board the firmware runs on."""

    name: str
    title: str
    mpy_arch: str
    header: dict[int, str]
    usb_ids: tuple[tuple[int, int], ...]
    boot_drive: str  # the drive it shows as with BOOTSEL held while plugged in

    @property
    def gpios(self) -> tuple[int, ...]:
        """The GPIO numbers brought out to the header, ascending."""
        return tuple(sorted(int(label[2:]) for label in self.header.values() if label.startswith("GP")))

    def header_pin(self, gpio: int) -> int:
        """The physical header pin of ``gpio``."""
        return next(pin for pin, label in self.header.items() if label == f"GP{gpio}")

    def pins_labelled(self, label: str) -> tuple[int, ...]:
        return tuple(pin for pin, name in self.header.items() if name == label)

    def gpio_ranges(self) -> str:
        """The header GPIOs as ranges, e.g. ``0-22, 26-28``."""
        runs: list[list[int]] = []
        for gpio in self.gpios:
            if runs and gpio == runs[-1][-1] + 1:
                runs[-1].append(gpio)
            else:
                runs.append([gpio])
        return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


BOARDS: dict[str, Board] = {
    "pico": Board("pico", "Raspberry Pi Pico (RP2040)", "armv6m", _PICO_HEADER, ((0x2E8A, 0x0005),), "RPI-RP2"),
    "pico2": Board("pico2", "Raspberry Pi Pico 2 (RP2350)", "armv7emsp", _PICO_HEADER, ((0x2E8A, 0x0005),), "RP2350"),
}


@dataclass(frozen=True)
class PinMap:
    """Which GPIO does what, for one kit."""

    board: Board
    tiles: int
    tile_input: str
    pins: tuple[int, ...]
    button: int | None
    pull: str
    shut_level: int
    debounce_ms: int
    scan_ms: int
    lever: bool = False  # the tile switches are lever microswitches (``--sensors``): the wiring sheet names their tabs
    firmware: str = __version__

    @property
    def shut_level_name(self) -> str:
        """The level meaning shut, spelt as the ``--shut-level`` setting (``low`` or ``high``)."""
        return LEVELS[self.shut_level]

    @property
    def chips(self) -> int:
        """74HC165s in the chain (0 for GPIO input)."""
        return -(-self.tiles // 8) if self.tile_input == "74hc165" else 0

    def tile_gpio(self, tile: int) -> int:
        """The GPIO of tile ``tile`` (1-based) when each tile has its own."""
        return self.pins[tile - 1]

    def chain_input(self, tile: int) -> tuple[int, str]:
        """(chip number from 1, input letter) of tile ``tile`` on a 74HC165 chain."""
        index = tile - 1
        return index // 8 + 1, CHAIN_INPUTS[index % 8]

    def used_gpios(self) -> dict[int, str]:
        """GPIO -> what it is wired to."""
        if self.tile_input == "74hc165":
            load, clock, data = self.pins
            used = {load: "74HC165 SH/LD (load)", clock: "74HC165 CLK", data: "74HC165 QH (data)"}
        else:
            used = {gpio: f"tile {n}" for n, gpio in enumerate(self.pins, start=1)}
        if self.button is not None:
            used[self.button] = "button"
        return used


def pin_map(kit: Kit) -> PinMap:
    """The pin map of ``kit``, or :class:`ShutboxError` naming the setting that makes it impossible."""
    fw = kit.firmware
    tiles = kit.rules.tiles
    if kit.sensors.kind == "none":
        raise ShutboxError("--sensors none: the kit has no tile sensors, so there is no firmware to build; "
                           f"allowed: --sensors {', '.join(k for k in SENSOR_KINDS if k != 'none')}")
    if not 1 <= tiles <= MAX_TILES:
        raise ShutboxError(f"--tiles {tiles}: the firmware reads 1 to {MAX_TILES} tiles")
    board = BOARDS[fw.board]
    header = set(board.gpios)
    where = f"allowed on the {board.title}: {board.gpio_ranges()}"
    if fw.button_pin is not None and fw.button_pin not in header:
        raise ShutboxError(f"--button-pin {fw.button_pin}: not a header GPIO; {where}")
    if fw.scan_ms * 2 > fw.debounce_ms:
        raise ShutboxError(f"--scan-ms {fw.scan_ms}: scan at least twice per --debounce-ms {fw.debounce_ms}; "
                           f"allowed: at most {fw.debounce_ms // 2}")
    wanted = 3 if fw.tile_input == "74hc165" else tiles
    role = "load,clock,data for the 74HC165 chain" if fw.tile_input == "74hc165" else f"one per tile for {tiles} tiles"
    if fw.pins == "auto":
        if fw.first_pin not in header:
            raise ShutboxError(f"--first-pin {fw.first_pin}: not a header GPIO; {where}")
        free = [g for g in board.gpios if g >= fw.first_pin and g != fw.button_pin]
        if len(free) < wanted:
            raise ShutboxError(
                f"--first-pin {fw.first_pin}: only {len(free)} free header GPIOs from GP{fw.first_pin} on "
                f"({', '.join(map(str, free)) or 'none'}) but {wanted} are needed ({role}); "
                f"allowed: a lower --first-pin, or --tile-input 74hc165")
        pins = tuple(free[:wanted])
    else:
        pins = tuple(int(p) for p in fw.pins.split(","))
        if len(pins) != wanted:
            raise ShutboxError(f"--pins {fw.pins}: {len(pins)} GPIOs given, {wanted} needed ({role}); "
                               f"allowed: exactly {wanted} distinct GPIOs, or auto")
        bad = [p for p in pins if p not in header]
        if bad:
            raise ShutboxError(f"--pins {fw.pins}: GPIO {bad[0]} is not on the header; {where}")
        if fw.button_pin in pins:
            raise ShutboxError(f"--pins {fw.pins}: GPIO {fw.button_pin} is also the --button-pin; "
                               f"allowed: GPIOs other than the button's, or --button-pin none")
    return PinMap(
        board=board,
        tiles=tiles,
        tile_input=fw.tile_input,
        pins=pins,
        button=fw.button_pin,
        pull=fw.pull,
        shut_level=LEVELS.index(fw.shut_level),
        debounce_ms=fw.debounce_ms,
        scan_ms=fw.scan_ms,
        lever=kit.sensors.lever,
    )


def config_module(pins: PinMap) -> str:
    """The ``boxcfg.py`` module the firmware imports (interface: ``firmware/shutbox/firmware/boxcfg.pyi``)."""
    values = {
        "FIRMWARE": pins.firmware,
        "BOARD": pins.board.name,
        "TILES": pins.tiles,
        "INPUT": pins.tile_input,
        "PINS": pins.pins,
        "BUTTON": pins.button,
        "PULL": pins.pull,
        "SHUT_LEVEL": pins.shut_level,
        "DEBOUNCE_MS": pins.debounce_ms,
        "SCAN_MS": pins.scan_ms,
    }
    role = "tiles 1.." + str(pins.tiles) if pins.tile_input == "gpio" else "74HC165 load, clock, data"
    lines = [f'"""Box configuration generated by shutbox {__version__} from the kit settings; do not edit."""', ""]
    for name, value in values.items():
        comment = f"  # {role}" if name == "PINS" else ""
        lines.append(f"{name} = {value!r}{comment}")
    return "\n".join(lines) + "\n"
