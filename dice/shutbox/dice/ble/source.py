"""A ``SOURCE`` of smart-dice throws, as the commands name it, and :class:`DiceFeed`, which runs one.

``SOURCE`` is ``godice`` or ``pixels`` (the first dice of that make found), ``godice:NAME1,NAME2`` (only
these dice, by name or address: two sets near one another are told apart so), or ``replay:FILE`` (a
recording, :mod:`shutbox.dice.ble.record`).

:class:`DiceFeed` reads the source's records, writes each to ``record`` when asked (``--record``), hands
them to a :class:`~shutbox.dice.ble.throws.ThrowWatch` and each thing seen to ``sink``. A replay runs as fast
as it is read (its own times decide when a throw is complete); ``gate``, when given, is called after each
throw of a replay and returns once the next one may come (``play`` waits for the game to want a throw).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.dice.ble.protocol import PROTOCOLS
from shutbox.dice.ble.record import MAX_NAME, Record, read_replay
from shutbox.dice.ble.throws import Seen, Thrown, ThrowWatch

#: Seconds between looks at a live throw under way (its settling time is measured so).
TICK_S = 0.1
#: Most dice one source names.
MAX_DICE = 12


@dataclass(frozen=True)
class DiceSource:
    """A parsed ``SOURCE``: ``kind`` is ``godice``, ``pixels`` or ``replay``."""

    kind: str
    names: tuple[str, ...] = ()
    path: Path | None = None

    @property
    def live(self) -> bool:
        return self.kind != "replay"


def parse_source(text: str, flag: str) -> DiceSource:
    """``godice``, ``pixels``, ``godice:NAME,NAME`` or ``replay:FILE``; ShutboxError (one line) otherwise."""
    allowed = "allowed: godice, pixels, godice:NAME1,NAME2 (the dice by name or address), replay:FILE"
    kind, colon, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind == "replay":
        if not rest:
            raise ShutboxError(f"{flag} {shown(text, 80)}: give the recording, replay:FILE")
        return DiceSource("replay", path=Path(rest))
    if kind not in PROTOCOLS:
        raise ShutboxError(f"{flag} {shown(text, 80)}: not a dice source; {allowed}")
    if not colon:
        return DiceSource(kind)
    names = tuple(n.strip() for n in rest.split(","))
    bad = next((n for n in names if not n or len(n) > MAX_NAME or not n.isprintable()), None)
    if bad is not None:
        raise ShutboxError(f"{flag} {shown(text, 80)}: {shown(bad, 80) if bad else 'an empty name'} is not a die's "
                           f"name; give the names or addresses, comma separated (1 to {MAX_NAME} characters each)")
    if len(set(n.casefold() for n in names)) != len(names):
        raise ShutboxError(f"{flag} {shown(text, 80)}: a die is named twice")
    if len(names) > MAX_DICE:
        raise ShutboxError(f"{flag} {shown(text, 80)}: {len(names)} dice named; at most {MAX_DICE}")
    return DiceSource(kind, names)


class DiceFeed:
    """See the module docstring. :meth:`run` blocks until the source ends or :meth:`stop`."""

    def __init__(self, source: DiceSource, count: int, sink: Callable[[Seen], None], *,
                 expected: int | None = None, record: Callable[[Record], None] | None = None,
                 gate: Callable[[], bool] | None = None, radio_options: dict[str, Any] | None = None) -> None:
        self.source = source
        self.count = count
        self.sink = sink
        self.watch = ThrowWatch(expected)
        self.record = record
        self.gate = gate
        self.radio_options = radio_options or {}
        self.replay = read_replay(source.path) if source.path is not None else None
        self._stopped = threading.Event()
        self._heard: queue.Queue[object] = queue.Queue()

    def stop(self) -> None:
        self._stopped.set()
        self._heard.put(None)

    def _seen(self, record: Record, seen: list[Seen]) -> bool:
        """Hand on one record's consequences; False once the feed should stop."""
        if self.record is not None:
            self.record(record)
        for item in seen:
            self.sink(item)
            if isinstance(item, Thrown) and not self.source.live and self.gate is not None and not self.gate():
                return False  # a replay's throw was handed on, and the game will not want another
        return not self._stopped.is_set()

    def run(self) -> None:
        """Read the source to its end (a replay) or until stopped (live dice); ShutboxError if the radio fails."""
        if self.replay is not None:
            for record in self.replay:
                if not self._seen(record, self.watch.feed(record)):
                    return
            for item in self.watch.end():
                self.sink(item)
            return
        self._live()

    def _live(self) -> None:
        from shutbox.dice.ble.radio import DiceRadio, RadioFailed  # bleak only for live dice

        protocol = PROTOCOLS[self.source.kind]
        radio = DiceRadio(protocol, self.count, self._heard.put, names=self.source.names,
                          **self.radio_options)
        radio.start()
        try:
            while not self._stopped.is_set():
                try:
                    item = self._heard.get(timeout=TICK_S)
                except queue.Empty:
                    for seen in self.watch.tick(radio.now()):
                        self.sink(seen)
                    continue
                if isinstance(item, RadioFailed):
                    raise ShutboxError(item.text)
                if isinstance(item, Record) and not self._seen(item, self.watch.feed(item)):
                    return
        finally:
            radio.stop()
