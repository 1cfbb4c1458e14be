"""What both simulated boxes share: the kit's switches, kept where they are put while the cable is out, and one
process lifecycle around the firmware (start, unplug, replug, close, as a context manager).

:class:`~shutbox.companion.sim.box.SimBox` runs the firmware on the unix MicroPython port,
:class:`~shutbox.companion.sim.emulated.EmulatedBox` on an emulated Pico; each says how its firmware is plugged in
(:meth:`SimulatedBox._plug`), how the cable is pulled (:meth:`SimulatedBox.unplug`) and what is left to clean up
(:meth:`SimulatedBox._clean_up`), and how a switch's level reaches the pins.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path
from typing import Self

from shutbox.firmware.host.plan import PinMap, pin_map
from shutbox.kit.model import Kit


class SimulatedBox(ABC):
    """One simulated box. Use as a context manager, or call :meth:`start` and :meth:`close`.

    :attr:`port` keeps its name across :meth:`unplug` and :meth:`replug`; the switches keep their positions
    meanwhile, and may be moved while the cable is out (read at the next plug).
    """

    def __init__(self, kit: Kit | None, *, shut: Iterable[int], button_held: bool, bundle: Path | None) -> None:
        self.kit = kit or Kit()
        self.pins: PinMap = pin_map(self.kit)
        self.bundle = bundle
        self._shut = set(shut)  # the switches' positions, kept across unplugging
        self._button_held = button_held
        self.port = ""  #: the name the scorekeeper opens, the same after replugging
        self.plugs = 0  #: how many times the firmware was started
        self._started = False

    # -- the lifecycle -------------------------------------------------------------------------------

    def start(self) -> Self:
        """Prepare what the firmware runs from and plug it in; everything is cleaned up if either fails."""
        try:
            self._started = True
            self._prepare()
            self._plug()
        except BaseException:
            self.close()
            raise
        return self

    def replug(self) -> None:
        """Plug the cable back in (pulling it first if it is in): the firmware starts again behind :attr:`port`."""
        if not self._started:
            raise RuntimeError("the simulated box was never started")
        self.unplug()
        self._plug()

    def close(self) -> None:
        """Stop the firmware and clean up everything the box holds."""
        self.unplug()
        self._clean_up()
        self._started = False

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def _prepare(self) -> None:
        """Make what every plug-in needs (once, in :meth:`start`)."""

    @abstractmethod
    def _plug(self) -> None:
        """Start the firmware behind :attr:`port` (counting :attr:`plugs`), the switches where they are."""

    @abstractmethod
    def unplug(self) -> None:
        """Pull the cable: the firmware stops; nothing happens when it is out already."""

    @abstractmethod
    def _clean_up(self) -> None:
        """Let go of what :meth:`_prepare` and the plugs made, after the firmware has stopped."""

    @abstractmethod
    def running(self) -> bool:
        """Is the firmware running (plugged in and not ended by itself)?"""

    @abstractmethod
    def stderr_text(self) -> str:
        """What the firmware's process printed on stderr, for diagnostics."""

    # -- the switches --------------------------------------------------------------------------------

    def tile_numbers(self) -> tuple[int, ...]:
        """The tile numbers of this box, 1..N."""
        return self.kit.rules.tile_numbers

    @property
    def shut_tiles(self) -> frozenset[int]:
        """The tiles whose switches are in the shut position."""
        return frozenset(self._shut)

    def _put_tile(self, tile: int, shut: bool) -> bool:
        """Put tile ``tile``'s switch shut or open (ValueError outside the box); is the firmware there to see it?"""
        if tile not in self.tile_numbers():
            raise ValueError(f"tile {tile} outside 1..{self.pins.tiles}")
        if shut:
            self._shut.add(tile)
        else:
            self._shut.discard(tile)
        return self.running()  # unplugged, the switch just stays where it is put

    def _put_button(self, pressed: bool) -> bool:
        """Hold the button down or let go (ValueError without one); is the firmware there to see it?"""
        if self.pins.button is None:
            raise ValueError("this kit has no button (--button-pin none)")
        self._button_held = pressed
        return self.running()
