"""The link to the box: open its serial port (or find it), decode its lines on a thread, ride out unplugging.

:class:`BoxLink` opens ``--port PORT`` (a device, a pyserial URL such as ``loop://``, or ``auto``
for the one connected Pico, found by USB VID:PID as ``shutbox firmware deploy`` finds it) and
reads it on a thread with a :class:`~shutbox.firmware.host.protocol.StreamDecoder`. What it hears is
handed to ``sink`` as :data:`LinkEvent` objects, in order:

- :class:`Connected` after every (re)connection, which also asks the box for a hello and a snapshot;
- :class:`Received` for each good line, stamped with the moment its bytes were read;
- :class:`Noise` for each line rejected (bad checksum, over-length, malformed, foreign text);
- :class:`AtRepl` once when the board talks like MicroPython's REPL (its banner, prompt, tracebacks):
  the firmware is not running; its noise is not passed on and the link stops asking until a good line
  or a reconnection;
- :class:`Disconnected` when the port fails (unplugged); the link then reopens it every
  ``retry_s`` until the box is back;
- :class:`Failed` when the box cannot be used (its tile count differs from the settings); the link stops.

If the box goes quiet for ``quiet_s`` (the firmware sends a heartbeat every second) the link asks again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.firmware.host.protocol import (
    BAUD,
    HEARTBEAT_S,
    Crash,
    Hello,
    Message,
    Rejected,
    Snapshot,
    StreamDecoder,
    command,
)
from shutbox.firmware.host.repl import ends_at_prompt, is_repl_line
from shutbox.kit.model import BOX_TILE_COUNTS

if TYPE_CHECKING:
    import serial



@dataclass(frozen=True)
class Connected:
    device: str


@dataclass(frozen=True)
class Disconnected:
    device: str
    reason: str


@dataclass(frozen=True)
class Received:
    message: Message
    arrived: float  #: time.perf_counter() when the line's last bytes were read
    wall: float  #: time.time() at the same moment


@dataclass(frozen=True)
class Noise:
    rejected: Rejected


@dataclass(frozen=True)
class Failed:
    error: ShutboxError


@dataclass(frozen=True)
class AtRepl:
    device: str


LinkEvent = Connected | Disconnected | Received | Noise | Failed | AtRepl


def fix_command(device: str) -> str:
    """The one command that puts the firmware back on the board at ``device`` (it works with or without a button)."""
    return f"shutbox firmware deploy --port {shown(device)}"


def repl_text(device: str) -> str:
    """The one line for a board at MicroPython's REPL instead of running the firmware."""
    return (f"the box on {shown(device)} is at MicroPython's prompt: the shutbox firmware is not running; "
            f"'{fix_command(device)}' puts it back")


def silent_text(device: str, seconds: float) -> str:
    """The one line for a port that has sent nothing for ``seconds`` (the firmware sends a heartbeat every second)."""
    return (f"nothing from {shown(device)} for {seconds:g} s: no shutbox firmware is talking on it (it sends a line "
            f"every second); check the port, or put the firmware on the board with '{fix_command(device)}'")


def crash_text(device: str, crash: Crash) -> str:
    """The one line for the firmware's error line."""
    then = "it restarts in a few seconds" if crash.restarts else \
        f"after {crash.crashes} crashes in a row it stays at MicroPython's prompt; '{fix_command(device)}' puts it back"
    return f"the firmware on {shown(device)} stopped: {shown(crash.text, 120)}; {then}"


def resolve_port(port: str) -> str:
    """The device for ``--port``: itself, or for ``auto`` the one connected Pico (clear error for none or several)."""
    from shutbox.firmware.host.deploy import choose_port

    return choose_port(port)


def open_serial(device: str, timeout: float = 0.05) -> serial.Serial:
    """Open ``device`` (a path or a pyserial URL) for the box's protocol; ShutboxError when it cannot be opened."""
    import serial

    try:
        return serial.serial_for_url(device, BAUD, timeout=timeout, write_timeout=0.5,
                                     exclusive=None if "://" in device else True)
    except (serial.SerialException, OSError, ValueError) as exc:
        from shutbox.firmware.host.serialport import open_failure

        raise ShutboxError(open_failure(device, exc)) from None


def tile_count_error(device: str, box_tiles: int, tiles: int) -> ShutboxError:
    """The one-line refusal of a box whose tile count differs from the settings."""
    fix = f"or play with --tiles {box_tiles}" if box_tiles in BOX_TILE_COUNTS else \
        f"(the kit's boxes have {', '.join(map(str, BOX_TILE_COUNTS))} tiles)"
    return ShutboxError(f"the box on {device} has {box_tiles} tiles but the settings are for {tiles}; "
                        f"connect a {tiles}-tile box {fix}")


class BoxLink:
    """A reader thread on the box's port; see the module docstring. Use as a context manager."""

    def __init__(self, port: str, tiles: int | None, sink: Callable[[LinkEvent], None], *,
                 retry_s: float = 0.25, quiet_s: float = 2.5 * HEARTBEAT_S, read_timeout: float = 0.05) -> None:
        self.port = port
        self.tiles = tiles
        self.sink = sink
        self.retry_s = retry_s
        self.quiet_s = quiet_s
        self.read_timeout = read_timeout
        self.device = ""
        self.decoder = StreamDecoder()
        self.connections = 0
        self._serial: serial.Serial | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._heard = 0.0
        self.at_repl = False  #: the board talks like MicroPython's REPL
        self._fresh = False
        self._crash: tuple[str, str, int] | None = None

    @property
    def connected(self) -> bool:
        return self._serial is not None

    def start(self) -> BoxLink:
        """Open the port now (ShutboxError if that fails) and start reading it."""
        self.device = resolve_port(self.port)
        self._connect(open_serial(self.device, self.read_timeout))
        self._thread = threading.Thread(target=self._run, name="shutbox-link", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop reading and close the port."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._close()

    def __enter__(self) -> BoxLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def request(self, *names: str) -> bool:
        """Send protocol commands (``hello``, ``snapshot``); False if the port is not open or failed."""
        import serial

        link = self._serial
        if link is None:
            return False
        try:
            with self._write_lock:
                link.write(b"".join(command(n) for n in names))
            return True
        except (serial.SerialException, OSError):
            return False

    # -- the reader thread ---------------------------------------------------------------------

    def _connect(self, link: serial.Serial) -> None:
        self._serial = link
        self.decoder = StreamDecoder()  # nothing half-read before the unplug joins the next line
        self.connections += 1
        self.at_repl = False
        self._fresh = True  # the first line may be what the board's buffer kept, cut short, while no host listened
        self._heard = time.monotonic()
        self.sink(Connected(self.device))
        self.request("hello", "snapshot")

    def _close(self) -> None:
        link, self._serial = self._serial, None
        if link is not None:
            try:
                link.close()
            except Exception:  # noqa: BLE001 - a vanished device may fail to close; it is gone either way
                pass

    def _run(self) -> None:
        import serial

        while not self._stop.is_set():
            link = self._serial
            if link is None:
                if self._stop.wait(self.retry_s):
                    break
                self._reconnect()
                continue
            try:
                data = link.read(link.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError) as exc:
                if self._stop.is_set():
                    break
                self._close()
                self.sink(Disconnected(self.device, str(exc) or type(exc).__name__))
                continue
            now = time.monotonic()
            if data:
                if not self._feed(data):
                    return
            elif now - self._heard > self.quiet_s:
                self._heard = now
                if not self.at_repl:  # a REPL answers commands with tracebacks
                    self.request("hello", "snapshot")

    def _reconnect(self) -> None:
        try:
            device = resolve_port(self.port)
            link = open_serial(device, self.read_timeout)
        except ShutboxError:
            return
        self.device = device
        self._connect(link)

    def _feed(self, data: bytes) -> bool:
        arrived, wall = time.perf_counter(), time.time()
        for item in self.decoder.feed(data):
            fresh, self._fresh = self._fresh, False
            if isinstance(item, Rejected):
                if item.reason == "noise" and is_repl_line(item.line):
                    self._repl()
                elif not self.at_repl and not (fresh and item.reason == "noise"):
                    self.sink(Noise(item))
                continue
            if isinstance(item, Crash):
                said = (item.error, item.detail, item.crashes)
                if said == self._crash:  # sent again for a host that connected after it: once is enough
                    continue
                self._crash = said
            else:
                self._crash = None
            self.at_repl = isinstance(item, Crash) and not item.restarts  # the board stays at its REPL
            count = item.tiles if isinstance(item, (Hello, Snapshot)) else None
            if self.tiles is not None and count is not None and count != self.tiles:
                self._stop.set()
                self._close()
                self.sink(Failed(tile_count_error(self.device, count, self.tiles)))
                return False
            self._heard = time.monotonic()
            self.sink(Received(item, arrived, wall))
        if ends_at_prompt(self.decoder.framer.pending):
            self._repl()
        return True

    def _repl(self) -> None:
        if not self.at_repl:
            self.at_repl = True
            self.sink(AtRepl(self.device))
