"""From what each die says to throws: :class:`ThrowWatch` turns a stream of :class:`Record` into what the table sees.

A **throw** is the faces of the dice that rolled, once every one of them has come to rest on a face:
at once when every die of the set rolled, else :data:`SETTLE_S` seconds after the last came to rest
(one die thrown, where the rules allow it). Along the way:

- a die at rest **tilted** (GoDice ``TS``, Pixels crooked) makes the throw unsure: it is not made, and
  :class:`Unsure` names the die to roll again; once that die has rolled and landed the throw is made with
  the faces of the others as they lay;
- a die **moved** or picked up without rolling (GoDice ``MS``/``FS``, Pixels handling) is no throw: a
  die that rolled and was then picked up is taken out of the throw;
- a die that **disconnects** is named and the throw waits for it (what it had said is kept); when it
  rejoins the throw goes on (a Pixels die says its face again when it rejoins; a GoDice that was rolling
  when it went is asked to be rolled again);
- a **battery** below :data:`LOW_BATTERY` percent is said once per die;
- with ``expected`` dice (``shutbox dice --listen --dice N``) a throw of another number is refused with
  the reason (:class:`Refused`); without, the rules decide (``shutbox play``).

Time is the records' own ``t``: a replay is read as fast as it can be, with the same throws as live.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from shutbox.dice.ble.protocol import PROTOCOLS, Battery, Landed, Moved, Rolling, Tilted, parse
from shutbox.dice.ble.record import Record

#: Seconds after the last die came to rest before a throw of fewer dice than the set is made.
SETTLE_S = 1.5
#: A battery below this percentage is said (once per die).
LOW_BATTERY = 15


@dataclass(frozen=True)
class Thrown:
    """A throw: the faces, lowest first, of the dice that rolled (``names``), read by ``protocol``."""

    dice: tuple[int, ...]
    protocol: str
    names: tuple[str, ...]
    t: float


@dataclass(frozen=True)
class Unsure:
    """The throw is not made: these dice are at rest tilted and must be rolled again."""

    names: tuple[str, ...]
    t: float

    @property
    def text(self) -> str:
        which = " and ".join(self.names)
        them = "it" if len(self.names) == 1 else "them"
        return f"throw unsure: {which} at rest tilted (not flat on a face); roll {them} again"


@dataclass(frozen=True)
class Refused:
    """A throw of a number of dice that is not wanted, with the reason."""

    dice: tuple[int, ...]
    text: str
    t: float


@dataclass(frozen=True)
class Said:
    """Something a player should hear: ``kind`` is ``link`` (a die came or went) or ``info`` (battery, moved)."""

    kind: str
    text: str
    t: float


@dataclass(frozen=True)
class Showing:
    """The dice of the throw under way, as they roll: each die's name and its face (None: still rolling)."""

    dice: tuple[tuple[str, int | None], ...]
    t: float

    @property
    def text(self) -> str:
        return "dice rolling: " + ", ".join(f"{n} {'…' if f is None else f}" for n, f in self.dice)


Seen = Thrown | Unsure | Refused | Said | Showing


@dataclass
class _Die:
    """What one die is doing."""

    name: str
    protocol: str
    connected: bool = True
    rolled: bool = False  #: in the throw under way
    rolling: bool = False
    tilted: bool = False
    face: int | None = None  #: at rest on this face (in the throw under way)
    lost_rolling: bool = False  #: disconnected while rolling
    battery_said: bool = False


@dataclass
class ThrowWatch:
    """See the module docstring. Feed it records in time order; collect what each returns."""

    expected: int | None = None
    settle_s: float = SETTLE_S
    dice: dict[str, _Die] = field(default_factory=dict)
    _rest_t: float = 0.0  #: when the latest die of the throw came to rest
    _unsure_said: bool = False

    def feed(self, record: Record) -> list[Seen]:
        """What ``record`` changes (and any throw complete by its time, before it or with it)."""
        out: list[Seen] = self.tick(record.t)  # time has run on to the record: a throw may be complete before it
        die = self.dice.get(record.die)
        if record.event == "connect":
            if die is None:
                self.dice[record.die] = _Die(record.die, record.protocol)
                out.append(Said("link", f"{record.die} ({PROTOCOLS[record.protocol].label}) connected", record.t))
            elif not die.connected:
                die.connected = True
                self._rest_t = max(self._rest_t, record.t)  # what it did while away may still come in
                again = " (it was rolling when it went: roll it again)" if die.lost_rolling and \
                    record.protocol != "pixels" else ""
                out.append(Said("link", f"{record.die} is back{again}", record.t))
        elif die is None:
            return out  # a die heard before its connect: nothing is known of it
        elif record.event == "disconnect":
            if die.connected:
                die.connected = False
                die.lost_rolling = die.rolling
                out.append(Said("link", f"{die.name} disconnected; the throw waits for it (it rejoins by itself)",
                                record.t))
        else:
            for event in parse(record.protocol, record.data):
                out.extend(self._event(die, event, record.t))
        out.extend(self.tick(record.t))
        return out

    def _event(self, die: _Die, event: object, t: float) -> list[Seen]:
        if isinstance(event, Battery) and event.percent < LOW_BATTERY and not die.battery_said:
            die.battery_said = True
            return [Said("info", f"{die.name}'s battery is at {event.percent} %: charge it soon", t)]
        if isinstance(event, Rolling):
            die.rolled = die.rolling = True
            die.tilted, die.face, die.lost_rolling = False, None, False
            self._unsure_said = False
            return [self._showing(t)]
        if isinstance(event, Landed):
            return self._landed(die, event.face, t)
        if isinstance(event, Tilted) and die.rolled:
            die.rolling, die.tilted, die.face = False, True, None
        elif isinstance(event, Moved) and die.rolled:
            die.rolled = die.rolling = die.tilted = False
            die.face = None
            if any(d.rolled for d in self.dice.values()):
                return [Said("info", f"{die.name} was picked up, not rolled: it is not in this throw", t)]
        return []

    def _landed(self, die: _Die, face: int, t: float) -> list[Seen]:
        """At rest on ``face``: counts after a roll (a die put down or turned by hand is no throw)."""
        if not (die.rolling or die.lost_rolling or (die.rolled and die.face is not None)):
            return []
        changed = die.face != face or die.rolling
        die.rolled, die.rolling, die.lost_rolling, die.face = True, False, False, face
        self._rest_t = t
        return [self._showing(t)] if changed else []

    def _showing(self, t: float) -> Showing:
        return Showing(tuple((d.name, d.face) for d in self.dice.values() if d.rolled), t)

    def tick(self, t: float) -> list[Seen]:
        """The throw under way, made if it is complete at ``t`` (a live source ticks a few times a second)."""
        thrown = [d for d in self.dice.values() if d.rolled]
        if not thrown or any(d.rolling for d in thrown) or not all(d.connected for d in self.dice.values()):
            return []
        tilted = tuple(d.name for d in thrown if d.tilted)
        if tilted:
            if self._unsure_said:
                return []
            self._unsure_said = True
            return [Unsure(tilted, t)]
        if len(thrown) < len(self.dice) and t - self._rest_t < self.settle_s:
            return []
        values = tuple(sorted(d.face for d in thrown if d.face is not None))
        for d in thrown:
            d.rolled, d.face = False, None
        if self.expected is not None and len(values) != self.expected:
            got = "1 die" if len(values) == 1 else f"{len(values)} dice"
            want = "1 die" if self.expected == 1 else f"{self.expected} dice"
            return [Refused(values, f"throw of {got} ({' '.join(map(str, values))}) refused: {want} expected "
                            "in a throw", t)]
        return [Thrown(values, thrown[0].protocol, tuple(d.name for d in thrown), t)]

    def end(self) -> list[Seen]:
        """The source ended (a replay's last line): a throw at rest is made, as when time runs on."""
        return self.tick(math.inf)
