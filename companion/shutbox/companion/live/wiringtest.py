"""The wiring test of a freshly built box: each tile shut and opened in turn, then the button pressed.

The player is told what to do ("shut tile 4 now"); the box's snapshots say what happened:

- **stuck**: a tile that reads shut while every tile is open (its input is held at the shut level);
- **noisy**: a tile that changes while nobody touches it, or flickers when moved once;
- **swapped**: shutting tile 4 shuts another tile on the box (two wires exchanged, or on the wrong pin);
- **dead**: shutting a tile changes nothing (a broken switch, wire or solder joint); the same for the button.

Every finding names the GPIO and the header pin to check (or the 74HC165 input), from the kit's pin
plan (:mod:`shutbox.firmware.host.plan`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from shutbox.firmware.host.plan import HC165_PINS, PinMap
from shutbox.firmware.host.protocol import Snapshot

#: How long the box must stay untouched to count as settled, and the quiet time after each move.
QUIET_S = 1.5
AFTER_MOVE_S = 0.4
#: Changes of one tile beyond the expected ones that make it noisy.
NOISE_CHANGES = 2


@dataclass(frozen=True)
class WiringFault:
    """One thing the wiring test found wrong with a switch or the button."""

    kind: str  #: stuck, noisy, swapped, dead
    tile: int | None  #: None for the button
    text: str


def where(pins: PinMap, tile: int) -> str:
    """Where tile ``tile``'s switch is wired: ``GP5 (header pin 7)`` or the 74HC165 input."""
    if pins.tile_input == "74hc165":
        chip, letter = pins.chain_input(tile)
        return f"74HC165 #{chip} input {letter} (chip pin {HC165_PINS[letter]})"
    gpio = pins.tile_gpio(tile)
    return f"GP{gpio} (header pin {pins.board.header_pin(gpio)})"


def button_where(pins: PinMap) -> str:
    assert pins.button is not None
    return f"GP{pins.button} (header pin {pins.board.header_pin(pins.button)})"


class Watch:
    """The box as the snapshots report it, and how often each tile changed."""

    def __init__(self, read: Callable[[float], Snapshot | None]) -> None:
        self.read = read
        self.shut: frozenset[int] | None = None
        self.presses: int | None = None  #: the box's press count, as last reported
        self.held = False  #: the button reads pressed
        self.changes: dict[int, int] = {}

    def take(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for one snapshot; False when none came."""
        snap = self.read(timeout)
        if snap is None:
            return False
        shut = frozenset(snap.shut_tiles)
        if self.shut is not None:
            for tile in shut ^ self.shut:
                self.changes[tile] = self.changes.get(tile, 0) + 1
        self.shut = shut
        self.presses = snap.presses
        self.held = snap.button
        return True

    def until(self, done: Callable[[], bool], seconds: float) -> bool:
        """Take snapshots until ``done()`` or ``seconds`` pass; whether ``done()`` held."""
        end = time.monotonic() + seconds
        while not done():
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.take(min(left, 0.1))
        return True

    def quiet(self, seconds: float) -> None:
        """Take snapshots for ``seconds``."""
        self.until(lambda: False, seconds)

    def counted(self) -> dict[int, int]:
        """The changes counted since the last call."""
        counts, self.changes = self.changes, {}
        return counts


def run_wiring_test(pins: PinMap, read: Callable[[float], Snapshot | None], say: Callable[[str], None], *,
                    step_s: float = 20.0, quiet_s: float = QUIET_S) -> list[WiringFault]:
    """Walk through every tile and the button; the findings (empty: the wiring is right)."""
    watch = Watch(read)
    if not watch.until(lambda: watch.shut is not None, 5.0):
        raise TimeoutError("the box sent no snapshot")
    findings: list[WiringFault] = []
    stuck = _settled(pins, watch, say, step_s, quiet_s, findings)  # and noisy: not walked through
    reads_as: dict[int, int] = {}
    for tile in pins_tiles(pins):
        if tile in stuck:
            continue
        found = _one_tile(pins, watch, tile, stuck, say, step_s)
        if isinstance(found, WiringFault):
            findings.append(found)
        elif found is not None:
            reads_as[tile] = found
    findings += _swaps(pins, reads_as)
    if pins.button is not None:
        findings += _button(pins, watch, say, step_s)
    return sorted(findings, key=lambda f: (f.tile or 99, f.kind))


def _settled(pins: PinMap, watch: Watch, say: Callable[[str], None], step_s: float, quiet_s: float,
             findings: list[WiringFault]) -> set[int]:
    """Every tile open and the box left alone: tiles that change are noisy, tiles still shut are stuck; both
    are left out of the walk (returned)."""
    say("open every tile and keep your hands off the box")
    watch.until(lambda: not watch.shut, step_s)
    watch.counted()
    watch.quiet(quiet_s)
    assert watch.shut is not None
    for tile, n in sorted(watch.counted().items()):
        if n >= NOISE_CHANGES:
            findings.append(WiringFault("noisy", tile, f"tile {tile} changed {n} times while nobody touched the box: "
                                                   f"a loose contact or wire on {where(pins, tile)}"))
    noisy = {f.tile for f in findings if f.tile is not None}
    for tile in sorted(watch.shut - noisy):
        findings.append(WiringFault("stuck", tile, f"tile {tile} reads shut while every tile is open: check its switch "
                                               f"and {where(pins, tile)} for a short"))
    return set(watch.shut) | noisy


def _button(pins: PinMap, watch: Watch, say: Callable[[str], None], step_s: float) -> list[WiringFault]:
    """The button: stuck when it reads pressed untouched, dead when a press does not count."""
    if watch.held:
        return [WiringFault("stuck", None, f"the button reads pressed while nobody touches it: check it and "
                                       f"{button_where(pins)} for a short")]
    say("press the button now")
    before = watch.presses
    if not watch.until(lambda: watch.presses != before, step_s):
        return [WiringFault("dead", None, f"the button did not register: check it and {button_where(pins)}")]
    return []


def pins_tiles(pins: PinMap) -> range:
    return range(1, pins.tiles + 1)


def _one_tile(pins: PinMap, watch: Watch, tile: int, stuck: set[int], say: Callable[[str], None],
              step_s: float) -> WiringFault | int | None:
    """Shut and open one tile: None when right, the tile it reads as when another, or a finding."""
    say(f"shut tile {tile} now")
    watch.counted()
    moved = lambda: bool(watch.shut is not None and watch.shut - stuck)  # noqa: E731
    if not watch.until(moved, step_s):
        return WiringFault("dead", tile, f"tile {tile} never read shut: check its switch, its wire and "
                                     f"{where(pins, tile)}")
    assert watch.shut is not None
    seen = sorted(watch.shut - stuck)
    say(f"open tile {tile} again")
    watch.until(lambda: watch.shut is not None and not watch.shut - stuck, step_s)
    watch.quiet(AFTER_MOVE_S)
    extra = {t: n - 2 for t, n in watch.counted().items() if n - 2 >= NOISE_CHANGES}
    if tile in seen and not extra:
        return None
    if tile in extra:
        return WiringFault("noisy", tile, f"tile {tile} flickered {extra[tile] + 2} times for one shut and open: "
                                      f"a bouncing switch or a loose wire on {where(pins, tile)}")
    if tile in seen:
        return None
    return seen[0]


def _swaps(pins: PinMap, reads_as: dict[int, int]) -> list[WiringFault]:
    findings = []
    for tile, other in sorted(reads_as.items()):
        if reads_as.get(other) == tile:
            if tile < other:
                findings.append(WiringFault("swapped", tile, f"tiles {tile} and {other} are swapped: the wires on "
                                                         f"{where(pins, tile)} and {where(pins, other)} are "
                                                         "exchanged"))
        else:
            findings.append(WiringFault("swapped", tile, f"shutting tile {tile} reads as tile {other}: tile {tile}'s "
                                                     f"wire belongs on {where(pins, tile)}, not "
                                                     f"{where(pins, other)}"))
    return findings
