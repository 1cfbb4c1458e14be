"""Reading the switches: one GPIO per tile, or a chain of 74HC165 shift registers; plus the button.

Every reader returns an int whose bit k is 1 when input k is active (tile k+1 shut, or the
button pressed), whatever level the wiring uses for that. The pin numbers come from the
generated ``boxcfg`` module, so another board is another pin map.
"""

from machine import Pin
from time import sleep_ms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def make_pin(number: int, pull: str) -> Pin:
    """An input pin with the configured pull resistor (``up``, ``down`` or ``none``)."""
    if pull == "up":
        return Pin(number, Pin.IN, Pin.PULL_UP)
    if pull == "down":
        return Pin(number, Pin.IN, Pin.PULL_DOWN)
    return Pin(number, Pin.IN)


class GpioInputs:
    """One pin per input, read in order."""

    def __init__(self, pins: "tuple[int, ...]", pull: str, active_level: int) -> None:
        self._values = [make_pin(n, pull).value for n in pins]
        self._flip = 0 if active_level else 1

    def read(self) -> int:
        bits = 0
        bit = 1
        flip = self._flip
        for value in self._values:
            if value() ^ flip:
                bits |= bit
            bit <<= 1
        return bits


class ShiftChain:
    """A chain of 74HC165s: pulse SH/LD low to latch every input, then clock the bits out of QH.

    The first bit out is the first chip's input H, then G ... A, then the next chip's H.
    """

    def __init__(self, load: int, clock: int, data: int, count: int, active_level: int) -> None:
        self._load = Pin(load, Pin.OUT, value=1)
        self._clock = Pin(clock, Pin.OUT, value=0)
        self._data = Pin(data, Pin.IN)
        self._count = count
        self._flip = 0 if active_level else 1

    def read(self) -> int:
        load = self._load
        clock = self._clock
        data = self._data
        flip = self._flip
        load.value(0)
        load.value(1)
        bits = 0
        bit = 1
        for _ in range(self._count):
            if data.value() ^ flip:
                bits |= bit
            clock.value(1)
            clock.value(0)
            bit <<= 1
        return bits


def make_reader(cfg) -> "Callable[[], int]":
    """A reader for every tile and then the button (if any): bit k = tile k+1, bit TILES = button."""
    level = cfg.SHUT_LEVEL
    if cfg.INPUT == "74hc165":
        load, clock, data = cfg.PINS
        tiles = ShiftChain(load, clock, data, cfg.TILES, level).read
    else:
        tiles = GpioInputs(cfg.PINS, cfg.PULL, level).read
    if cfg.BUTTON is None:
        return tiles
    button = make_pin(cfg.BUTTON, cfg.PULL).value
    shift = cfg.TILES
    pressed = level

    def read() -> int:
        return tiles() | ((1 if button() == pressed else 0) << shift)

    return read


def button_held(cfg) -> bool:
    """True when the button is held down now (checked three times over 20 ms)."""
    if cfg.BUTTON is None:
        return False
    pin = make_pin(cfg.BUTTON, cfg.PULL)
    for _ in range(3):
        sleep_ms(10)
        if pin.value() != cfg.SHUT_LEVEL:
            return False
    return True
