"""The wiring topology: where the second side of every tile switch and of the button goes.

Worked out once here from the pull resistor, the shut level and the tile input; the wiring sheet's
text (:mod:`.wiring`) and drawing (:mod:`.wiring_drawing`) both only describe it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shutbox.firmware.host.plan import PinMap

GND = "GND"
V33 = "3V3"
#: The external resistor a switch without an internal pull needs.
RESISTOR = "10 kΩ"


@dataclass(frozen=True)
class Link:
    """The second side of one switch: the net it goes to, through which contact, with which external resistor."""

    net: str  #: GND or 3V3
    normally_closed: bool  #: the contact opens when the tile is shut (or the button pressed)
    resistor_to: str | None  #: an external pull resistor from the input to this net, if the input has none

    @property
    def drawn(self) -> str:
        """The short label the diagram writes at the switch's far end."""
        return f"{self.net} (NC contact)" if self.normally_closed else self.net


def switch_link(pull: str, shut_level: int) -> Link:
    """The second side of a switch on an input with ``pull`` (up, down, none) that reads ``shut_level`` when shut."""
    if pull == "up":  # idle high: a closing contact pulls low; to read high when shut, a contact that opens
        return Link(GND, normally_closed=shut_level == 1, resistor_to=None)
    if pull == "down":
        return Link(V33, normally_closed=shut_level == 0, resistor_to=None)
    if shut_level == 0:
        return Link(GND, normally_closed=False, resistor_to=V33)
    return Link(V33, normally_closed=False, resistor_to=GND)


@dataclass(frozen=True)
class Topology:
    """Every switch's second side for one pin map."""

    tiles: Link  #: every tile switch (on its GPIO, or on a 74HC165 input, which has no internal pull)
    button: Link | None  #: the push button on its GPIO (internal pull as configured), if there is one
    chain_idle: str | None  #: the level unused 74HC165 inputs and the last SER are tied to (chain only)


def topology(pins: PinMap) -> Topology:
    """The wiring topology of ``pins``."""
    chain = pins.tile_input == "74hc165"
    tiles = switch_link("none" if chain else pins.pull, pins.shut_level)
    button = switch_link(pins.pull, pins.shut_level) if pins.button is not None else None
    idle = (V33 if pins.shut_level == 0 else GND) if chain else None
    return Topology(tiles, button, idle)
