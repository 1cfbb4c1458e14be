"""The dice over the air: find them, keep each one connected, and hand on everything it says, with bleak.

:class:`DiceRadio` scans for dice of one make (by their advertised service or name; or only the dice named
or addressed), connects each with a :class:`bleak.BleakClient`, subscribes to its notifications, asks
for its battery, and turns each connect, disconnect and notification into a :class:`Record` for
``emit``. A die that goes away is reconnected by itself every :data:`RETRY_S` seconds. Nothing here
reads a notification: :mod:`shutbox.dice.ble.throws` does.

Tests (and any other radio) come in at bleak's own boundary: ``client_backend`` and ``scanner_backend``
are handed to ``BleakClient(..., backend=...)`` and ``BleakScanner(..., backend=...)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from bleak import BleakClient, BleakScanner
from bleak.backends.client import BaseBleakClient
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.exc import BleakError

from shutbox.base.text import shown
from shutbox.dice.ble.protocol import Protocol
from shutbox.dice.ble.record import Record

#: Seconds between attempts to reach a die that is not connected.
RETRY_S = 2.0
#: Seconds a connection attempt may take.
CONNECT_S = 15.0
#: Seconds between battery questions to a connected die.
BATTERY_EVERY_S = 300.0
#: Errors of the radio itself (no adapter, no Bluetooth service): the dice cannot be listened to at all.
RADIO_ERRORS = (BleakError, OSError, EOFError)


@dataclass(frozen=True)
class RadioFailed:
    """The radio cannot be used (no adapter, Bluetooth off, no BlueZ): one line saying so."""

    text: str


class DiceRadio:
    """See the module docstring."""

    def __init__(self, protocol: Protocol, count: int, emit: Callable[[Record | RadioFailed], None], *,
                 names: tuple[str, ...] = (), clock: Callable[[], float] = time.monotonic,
                 client_backend: type[BaseBleakClient] | None = None,
                 scanner_backend: type[BaseBleakScanner] | None = None, retry_s: float = RETRY_S) -> None:
        self.protocol = protocol
        self.count = len(names) or count
        self.names = names
        self.emit = emit
        self.clock = clock
        self.client_backend = client_backend
        self.scanner_backend = scanner_backend
        self.retry_s = retry_s
        self._start = clock()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.found: dict[str, BLEDevice] = {}  #: the dice chosen, by the name they are known by

    # -- which dice ----------------------------------------------------------------------------

    def wanted(self, device: BLEDevice, ad: AdvertisementData) -> str | None:
        """The name ``device`` is known by if it is one of the dice sought, else None."""
        name = ad.local_name or device.name or ""
        if self.names:
            for wanted in self.names:
                if wanted.casefold() in (name.casefold(), device.address.casefold()):
                    return wanted
            return None
        ours = self.protocol.service in (u.lower() for u in ad.service_uuids) or \
            name.startswith(self.protocol.name_prefix)
        if not ours:
            return None
        known = name or device.address
        return known if known not in self.found or self.found[known].address == device.address \
            else f"{known} ({device.address})"

    async def find(self, stop: asyncio.Event) -> dict[str, BLEDevice]:
        """Scan until every die sought is seen (or ``stop``)."""
        enough = asyncio.Event()

        def seen(device: BLEDevice, ad: AdvertisementData) -> None:
            name = self.wanted(device, ad)
            if name is not None and name not in self.found and len(self.found) < self.count:
                self.found[name] = device
                if len(self.found) >= self.count:
                    enough.set()

        async with BleakScanner(seen, backend=self.scanner_backend):
            waits = [asyncio.ensure_future(enough.wait()), asyncio.ensure_future(stop.wait())]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waits:
                    w.cancel()
        return dict(self.found)

    # -- keeping each die ------------------------------------------------------------------------

    def now(self) -> float:
        """Seconds since the radio was made: the ``t`` of its records."""
        return max(0.0, self.clock() - self._start)

    def _record(self, name: str, event: str, data: bytes | bytearray = b"") -> None:
        self.emit(Record(self.now(), name, self.protocol.name, event, bytes(data)))

    async def keep(self, name: str, device: BLEDevice, stop: asyncio.Event) -> None:
        """Keep one die connected until ``stop``: connect, listen, and connect again whenever it goes."""
        while not stop.is_set():
            lost = asyncio.Event()
            client = BleakClient(device, lambda _client, lost=lost: lost.set(), timeout=CONNECT_S,
                                 backend=self.client_backend)
            try:
                await client.connect()
                await client.start_notify(self.protocol.notify, lambda _char, data: self._record(name, "notify", data))
            except (BleakError, OSError, TimeoutError):
                with contextlib.suppress(BleakError, OSError, TimeoutError):
                    await client.disconnect()
                await _sleep(self.retry_s, stop)
                continue
            self._record(name, "connect")
            await self._listen(client, lost, stop)
            if stop.is_set():
                with contextlib.suppress(BleakError, OSError, TimeoutError):
                    await client.disconnect()
                return
            self._record(name, "disconnect")
            await _sleep(self.retry_s, stop)

    async def _listen(self, client: BleakClient, lost: asyncio.Event, stop: asyncio.Event) -> None:
        """Ask the battery now and then, until the die is lost or ``stop``."""
        while not lost.is_set() and not stop.is_set():
            with contextlib.suppress(BleakError, OSError, TimeoutError):
                await client.write_gatt_char(self.protocol.write, self.protocol.battery_request, response=False)
            await _first(BATTERY_EVERY_S, lost, stop)

    async def run(self, stop: asyncio.Event) -> None:
        """Find the dice, then keep them all until ``stop``; a radio that cannot be used is one RadioFailed."""
        try:
            found = await self.find(stop)
        except RADIO_ERRORS as exc:
            self.emit(RadioFailed(unusable(self.protocol, exc)))
            return
        await asyncio.gather(*(self.keep(name, device, stop) for name, device in found.items()))

    # -- in a thread ---------------------------------------------------------------------------

    def start(self) -> DiceRadio:
        """Run in a thread of its own (with its own event loop) until :meth:`stop`."""
        ready = threading.Event()

        def main() -> None:
            async def go() -> None:
                self._loop = asyncio.get_running_loop()
                self._stop = asyncio.Event()
                ready.set()
                await self.run(self._stop)

            try:
                asyncio.run(go())
            except RADIO_ERRORS as exc:  # a failure of the radio past the scan
                self.emit(RadioFailed(f"{self.protocol.label} dice: the radio failed ({shown(str(exc), 160)})"))
            finally:
                ready.set()

        self._thread = threading.Thread(target=main, name=f"{self.protocol.name}-radio", daemon=True)
        self._thread.start()
        ready.wait()
        return self

    def stop(self) -> None:
        """Disconnect the dice and end the thread."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)


def unusable(protocol: Protocol, exc: BaseException) -> str:
    """The line that says the radio cannot be used, and why."""
    why = "no system bus for Bluetooth (is BlueZ installed and running?)" if isinstance(exc, FileNotFoundError) \
        else shown(str(exc) or type(exc).__name__, 160)
    return f"{protocol.label} dice: Bluetooth cannot be used here ({why}); is there an adapter, and is Bluetooth on?"


def radio_refusal(protocol: Protocol, scanner_backend: type[BaseBleakScanner] | None = None) -> str | None:
    """Why the radio cannot be used (a scan cannot even start), or None: checked before a game is written."""
    async def probe() -> None:
        async with BleakScanner(backend=scanner_backend):
            pass

    try:
        asyncio.run(probe())
    except RADIO_ERRORS as exc:
        return unusable(protocol, exc)
    return None


async def _sleep(seconds: float, stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def _first(seconds: float, *events: asyncio.Event) -> None:
    """Wait until any of ``events`` is set, or ``seconds``."""
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
