"""A stand-in for MicroPython's ``machine`` module, for running the firmware on the unix port.

Put this folder first on ``MICROPYPATH``: a ``machine.py`` on the path wins over the unix port's
built-in ``machine`` (which has no ``Pin``). The switches are driven from outside the process:

- ``SHUTBOX_SIM_LEVELS``: commands applied at import, separated by ``;`` (e.g. ``p 22 0``).
- ``SHUTBOX_SIM_CTL``: number of an inherited file descriptor (a pipe) carrying the same commands,
  one per line, read whenever a pin is read.
- ``SHUTBOX_SIM_CHAIN``: ``load,clock,data`` pins of a simulated 74HC165 chain.

Commands: ``p <gpio> <0|1|z>`` drives a GPIO (``z`` releases it to its pull resistor);
``c <index> <0|1>`` sets parallel input ``index`` of the shift-register chain (0 = first bit out).
In-process code may call :func:`drive` and :func:`set_chain_input` instead.
"""

import os
import select
import sys
from time import ticks_ms

_levels = {}
_chain = []
_pins = {}
_chain_pins = None
_latched = []
_index = 0
_ctl = None
_poll = None
_line = bytearray()
_last_pump = None


def drive(gpio: int, level) -> None:
    """Drive ``gpio`` to ``level`` (0 or 1) from outside; ``None`` releases it."""
    if level is None:
        _levels.pop(gpio, None)
    else:
        _levels[gpio] = 1 if level else 0


def set_chain_input(index: int, level: int) -> None:
    """Set parallel input ``index`` of the 74HC165 chain (0 = the first bit shifted out)."""
    while len(_chain) <= index:
        _chain.append(1)
    _chain[index] = 1 if level else 0


def apply(command: str) -> None:
    """Apply one control command (see the module docstring); malformed ones are ignored."""
    parts = command.split()
    if len(parts) != 3:
        return
    kind, where, value = parts
    try:
        number = int(where)
    except ValueError:
        return
    if kind == "p":
        drive(number, None if value == "z" else int(value))
    elif kind == "c":
        set_chain_input(number, int(value))


def _pump() -> None:
    """Apply the control commands that have arrived (at most once per millisecond)."""
    global _last_pump, _ctl
    if _ctl is None or _poll is None:
        return
    now = ticks_ms()
    if now == _last_pump:
        return
    _last_pump = now
    while True:
        flags = 0
        for _obj, event in _poll.ipoll(0):
            flags = event
        if not flags:
            return
        byte = _ctl.read(1) if flags & select.POLLIN else b""
        if not byte:  # the driving end closed: keep the last levels
            _poll.unregister(_ctl)
            _ctl = None
            return
        if byte == b"\n":
            apply(_line.decode())
            _line[:] = b""
        else:
            _line.extend(byte)


class Pin:
    """Enough of ``machine.Pin`` for the firmware: inputs with pulls, outputs, a 74HC165 chain."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, *, value=None) -> None:
        self.id = id
        self.mode = self.IN if mode == -1 else mode
        self.pull = pull
        self._out = 1 if value else 0
        _pins[id] = self

    def value(self, level=None):
        if level is not None:
            self._set(1 if level else 0)
            return None
        if self.mode == self.OUT:
            return self._out
        if _chain_pins is not None and self.id == _chain_pins[2]:
            return _latched[_index] if _index < len(_latched) else 1
        _pump()
        if self.id in _levels:
            return _levels[self.id]
        return 1 if self.pull == self.PULL_UP else 0

    __call__ = value

    def on(self) -> None:
        self._set(1)

    def off(self) -> None:
        self._set(0)

    def _set(self, level: int) -> None:
        global _latched, _index
        before = self._out
        self._out = level
        if _chain_pins is None:
            return
        load, clock, _data = _chain_pins
        if self.id == load and level == 0:
            _pump()
            _latched = list(_chain)
            _index = 0
        elif self.id == clock and before == 0 and level == 1:
            load_pin = _pins.get(load)
            if load_pin is None or load_pin._out == 1:
                _index += 1


def reset() -> None:
    """A hard reset ends the simulated board."""
    sys.exit(0)


def soft_reset() -> None:
    sys.exit(0)


def freq() -> int:
    return 125_000_000


def unique_id() -> bytes:
    return b"shutbox-sim"


def idle() -> None:
    pass


def _setup() -> None:
    global _ctl, _poll, _chain_pins
    chain = os.getenv("SHUTBOX_SIM_CHAIN")
    if chain:
        load, clock, data = (int(part) for part in chain.split(","))
        _chain_pins = (load, clock, data)
    for command in (os.getenv("SHUTBOX_SIM_LEVELS") or "").split(";"):
        apply(command)
    fd = os.getenv("SHUTBOX_SIM_CTL")
    if fd:
        _ctl = open(int(fd), "rb")
        _poll = select.poll()
        _poll.register(_ctl, select.POLLIN)


_setup()
