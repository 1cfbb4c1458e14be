"""The kit's box on an emulated Pico: the firmware as a user flashes it, the box's wiring at the pins.

Each tile switch (and the button) is wired as the wiring sheet says (:mod:`.topology`): a contact from
its input to GND or 3V3, normally open or closed, with the Pico's internal pull or an external resistor
as the settings give; the emulated chip reads the pull through an open contact, so a firmware that set
the wrong pull reads the wrong level. With ``--tile-input 74hc165`` the harness answers the firmware's
load and clock pulses as a chain of 74HC165s would, its unused inputs and last serial input tied as the
sheet ties them. Every change bounces (a few quick changes in device time) so the firmware's own
debounce does the work.

The board boots with the bundle's files already on its file system (a LittleFS image, as a deploy
leaves it), or blank (``blank=True``) for a test that deploys onto it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from shutbox.companion.sim.lifecycle import SimulatedBox
from shutbox.firmware.host.board_image import bundle_image
from shutbox.firmware.host.bundle import build_bundle
from shutbox.firmware.host.emulator import EmulatedPico
from shutbox.firmware.host.topology import GND, Link, topology
from shutbox.kit.model import Kit

BOUNCES = 4  #: extra contact changes before a switch settles
PRESS_MS = 120  #: how long :meth:`EmulatedBox.press_button` holds the button, in device time


def _net(name: str) -> int:
    return 0 if name == GND else 1


class EmulatedBox(SimulatedBox):
    """A box on an emulated Pico; use as a context manager, or call :meth:`start` and :meth:`close`.

    Its :attr:`port` (``socket://127.0.0.1:PORT``) is what the scorekeeper, ``monitor`` or mpremote open.
    :meth:`unplug` pulls the cable (the emulator dies at once); :meth:`replug` starts the board again behind the
    same port, from the file system it booted with; the switches keep their positions meanwhile.
    """

    def __init__(self, kit: Kit | None = None, *, shut: Iterable[int] = (), button_held: bool = False,
                 bundle: Path | None = None, blank: bool = False, bounces: int = BOUNCES, power: bool = True) -> None:
        super().__init__(kit, shut=shut, button_held=button_held, bundle=bundle)
        self.wiring = topology(self.pins)
        self.blank = blank
        self.bounces = bounces
        self.power = power  #: power up in :meth:`start` (else call :meth:`power_on`); a replugged board powers up
        self.fs_image: bytes | None = None  #: the file system the board boots with (None: blank)
        self.pico: EmulatedPico | None = None
        self._tcp_port = 0  #: the port's number once the first board listens (0: any free one)

    # -- the board ----------------------------------------------------------------------------------

    def _prepare(self) -> None:
        """Build the board's file system (unless blank)."""
        if self.blank:
            return
        with tempfile.TemporaryDirectory(prefix="shutbox-emulator-") as tmp:
            bundle = self.bundle
            if bundle is None:
                bundle = Path(tmp) / "bundle"
                build_bundle(self.kit, bundle, self.pins)
            image = Path(tmp) / "fs.img"
            bundle_image(bundle, image)
            self.fs_image = image.read_bytes()

    def _plug(self) -> None:
        """Start the emulator behind the same port as before (any free one the first time), wire the box, power
        up (the first time only with ``power``)."""
        if self.pico is not None:  # the board unplugged: let go of its emulator
            self.pico.close()
        self.pico = pico = EmulatedPico(self.fs_image, tcp_port=self._tcp_port).start()
        self._tcp_port = pico.tcp_port
        self.port = pico.port
        self.plugs += 1
        self._wire()
        if self.power or self.plugs > 1:
            pico.power_on()

    def power_on(self) -> None:
        """Power the board up (after ``start`` with ``power=False``)."""
        self.board.power_on()

    def unplug(self) -> None:
        """Pull the cable: the emulator process dies at once."""
        if self.pico is not None:
            self.pico.kill()

    def _clean_up(self) -> None:
        if self.pico is not None:
            self.pico.close()
            self.pico = None

    def running(self) -> bool:
        return self.pico is not None and self.pico.running()

    def stderr_text(self) -> str:
        return self.pico.stderr_text() if self.pico is not None else ""

    @property
    def board(self) -> EmulatedPico:
        if self.pico is None:
            raise RuntimeError("the emulated box is not started")
        return self.pico

    # -- the wiring -----------------------------------------------------------------------------------

    def _wire(self) -> None:
        pins = self.pins
        if pins.tile_input == "74hc165":
            load, clock, data = pins.pins
            idle = _net(self.wiring.chain_idle or GND)
            inputs = [self._chain_level(n in self._shut) for n in self.tile_numbers()]
            inputs += [idle] * (pins.chips * 8 - pins.tiles)
            self.board.chain(load, clock, data, inputs, idle)
        else:
            for tile in self.tile_numbers():
                self._switch(pins.tile_gpio(tile), self.wiring.tiles, tile in self._shut, 0)
        if pins.button is not None and self.wiring.button is not None:
            self._switch(pins.button, self.wiring.button, self._button_held, 0)

    def _switch(self, gpio: int, link: Link, active: bool, bounces: int) -> float:
        """The contact of one switch on ``gpio``: closed when active, unless it is a normally closed one."""
        resistor = None if link.resistor_to is None else _net(link.resistor_to)
        gap = max(1, self.pins.debounce_ms * 1000 // (2 * max(1, bounces)))
        return self.board.switch(gpio, _net(link.net), active != link.normally_closed, resistor,
                                 bounce=bounces, gap_us=gap)

    def _chain_level(self, shut: bool) -> int:
        link = self.wiring.tiles
        closed = shut != link.normally_closed
        return _net(link.net) if closed else _net(link.resistor_to or GND)

    def set_tile(self, tile: int, shut: bool, bounces: int | None = None) -> float:
        """Shut or open tile ``tile``, the contact bouncing; the device time (µs) it settled (0 unplugged)."""
        if not self._put_tile(tile, shut):  # unplugged: the switch stays where it is put, read at the next power-up
            return 0.0
        flips = self.bounces if bounces is None else bounces
        if self.pins.tile_input == "74hc165":
            gap = max(1, self.pins.debounce_ms * 1000 // (2 * max(1, flips)))
            return self.board.chain_input(tile - 1, self._chain_level(shut), bounce=flips, gap_us=gap)
        return self._switch(self.pins.tile_gpio(tile), self.wiring.tiles, shut, flips)

    def set_button(self, pressed: bool) -> float:
        """Hold the button down or let go, the contact bouncing; the device time (µs) it settled (0 unplugged)."""
        if not self._put_button(pressed):
            return 0.0
        button, link = self.pins.button, self.wiring.button
        assert button is not None and link is not None  # _put_button refuses a box without one
        return self._switch(button, link, pressed, self.bounces)

    def press_button(self, hold_ms: int = PRESS_MS) -> None:
        """Press the button for ``hold_ms`` of device time, then let go and leave it released as long (the
        release must pass the firmware's debounce too, or a press right after it is not seen)."""
        link = self.wiring.button
        if self.pins.button is None or link is None:
            raise ValueError("this kit has no button (--button-pin none)")
        gap = max(1, self.pins.debounce_ms * 1000 // (2 * max(1, self.bounces)))
        self.board.press(self.pins.button, not link.normally_closed, hold_ms * 1000, bounce=self.bounces, gap_us=gap)
        self._button_held = False

    def wait_device(self, t_us: float) -> None:
        """Wait until the board's clock reaches ``t_us``."""
        while self.board.device_time_us() < t_us:
            time.sleep(0.01)
