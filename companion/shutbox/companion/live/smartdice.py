"""Smart dice at the table (``shutbox play --dice SOURCE``): each throw they report entered as the throw.

:class:`SmartDiceWatch` runs a :class:`~shutbox.dice.ble.source.DiceFeed` in a thread and puts a
:class:`DiceSeen` on the session's queue for everything it sees. :func:`enter_seen` (the session hands
these here) enters a throw as ``Throw(source="dice")`` for the referee, like a typed or camera-read throw,
so the rules engine checks it (a throw of the wrong number of dice is refused with its reason), and keeps
which dice read it with the game (``history show``: "read by the GoDice dice"). The dice as they roll,
an unsure throw, a die that comes or goes and a low battery are said on the terminal and the page.

A replay (``--dice replay:FILE``) plays its throws one by one: after each, the next waits until the game
wants a throw (:meth:`SmartDiceWatch.ready`, called by ``play`` after every input), so a recorded game
replays through the same turns whatever the speed of the tiles typed beside it.
``--record FILE`` keeps what the dice said as a replay (:func:`recording`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.base.errors import ShutboxError
from shutbox.base.output import out_file
from shutbox.base.text import shown
from shutbox.companion.live.command import Throw
from shutbox.companion.live.link import Failed
from shutbox.dice.ble.protocol import PROTOCOLS
from shutbox.dice.ble.record import Record, write_records
from shutbox.dice.ble.source import DiceFeed, DiceSource
from shutbox.dice.ble.throws import Refused, Said, Seen, Showing, Thrown, Unsure
from shutbox.game.events import ThrowEvent

if TYPE_CHECKING:
    from shutbox.companion.live.livestate import Table


@dataclass(frozen=True)
class DiceSeen:
    """Something the smart dice did, for the session."""

    seen: Seen


def reading_source(protocol: str) -> str:
    """What a kept reading says read the throw: ``GoDice dice``."""
    return f"{PROTOCOLS[protocol].label} dice"


def enter_seen(session: Table, item: DiceSeen) -> bool:
    """Say what the dice did; a throw is entered (and kept with the game). Whether a throw was entered."""
    seen = item.seen
    if isinstance(seen, Showing):
        session.view.note("info", seen.text)
    elif isinstance(seen, Said):
        session.view.note(seen.kind, seen.text)
    elif isinstance(seen, Unsure | Refused):
        session.view.note("refused", f"{seen.text}; throw not entered")
    elif isinstance(seen, Thrown):
        return _enter_throw(session, seen)
    return False


def _enter_throw(session: Table, seen: Thrown) -> bool:
    game = session.game
    before = len(game.to_events()) if game is not None else 0
    session.handle(Throw(dice=seen.dice, source="dice"))
    game = session.game
    events = game.to_events() if game is not None else []
    if session.game_id is None:
        return False
    seq = next((i for i in range(before, len(events)) if isinstance(events[i], ThrowEvent)), None)
    if seq is None:
        return False
    session.store.keep_reading(session.game_id, seq, reading_source(seen.protocol), list(seen.dice), 0, b"")
    return True


def wants_throw(session: Table) -> bool:
    """The game waits for a throw (none pending, not over)."""
    game = session.game
    return game is not None and not game.finished and game.pending is None


class SmartDiceWatch:
    """Runs a dice source in a thread; everything seen goes to ``submit`` as a :class:`DiceSeen`."""

    def __init__(self, source: DiceSource, count: int, submit: Callable[[Any], None], *,
                 record: Callable[[Record], None] | None = None,
                 radio_options: dict[str, Any] | None = None) -> None:
        self.submit = submit
        self._go = threading.Event()
        self._closed = threading.Event()
        self._sent = self._entered = 0
        self.feed = DiceFeed(source, count, self._seen, record=record, gate=self._wait,
                             radio_options=radio_options)
        self._thread = threading.Thread(target=self._run, name="smart-dice", daemon=True)

    def _seen(self, seen: Seen) -> None:
        if isinstance(seen, Thrown):
            self._sent += 1
            self._go.clear()
        self.submit(DiceSeen(seen))

    def _wait(self) -> bool:
        """A replay's throw went to the session: wait until the game wants the next (False: closed)."""
        while not self._go.wait(0.2):
            if self._closed.is_set():
                return False
        return not self._closed.is_set()

    def ready(self, item: object, waiting: bool) -> None:
        """The session handled ``item``; ``waiting``: its game now wants a throw."""
        if isinstance(item, DiceSeen) and isinstance(item.seen, Thrown):
            self._entered += 1
        if waiting and self._entered >= self._sent:
            self._go.set()

    def _run(self) -> None:
        try:
            self.feed.run()
        except ShutboxError as exc:
            self.submit(Failed(exc))

    def start(self) -> SmartDiceWatch:
        self._go.set()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closed.set()
        self.feed.stop()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=6)


def check_record(path: Path | None, flag: str = "--record") -> None:
    """Refuse a recording file that exists (it is never replaced) or cannot be made."""
    if path is None:
        return
    if path.exists() or path.is_symlink():
        raise ShutboxError(f"{flag} {shown(str(path), 200)}: exists; not replaced (choose another name)")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ShutboxError(f"{flag} {shown(str(path), 200)}: folder {shown(str(parent), 200)} does not exist")


@contextmanager
def recording(path: Path | None, flag: str = "--record") -> Iterator[Callable[[Record], None] | None]:
    """A writer of replay lines to ``path`` (None: nothing recorded). The file appears when the block ends,
    also on Ctrl-C (the usual end of a live session), never half-written under its name."""
    if path is None:
        yield None
        return
    check_record(path, flag)
    interrupted = False
    with out_file(path, flag) as tmp, open(tmp, "w", encoding="utf-8") as out:
        def write(record: Record) -> None:
            write_records(out, (record,))

        try:
            yield write
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt
