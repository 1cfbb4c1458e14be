"""Writing lines to the host without letting the USB link stall the scan loop.

On the RP2040 a write to USB CDC that does not fit waits up to 500 ms (twice, as the stream layer
retries) when the host has the port open but does not read, and ``select.poll`` reports the port
writable as soon as one byte is free. So a line is written one byte at a time, each only while the
port says it can take one: a write never waits, the rest of the line goes out on later passes, and
lines due meanwhile are coalesced into the next one (a snapshot is the whole state, with the press
count). A write that still took long (a suspended bus) makes the writer rest for a while.
"""

from time import ticks_add, ticks_diff

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from _mpy_shed.time_mp import _TicksMs as Ticks

STALL_MS = 20
REST_MS = 1000


class LineWriter:
    """Sends one line at a time through ``write``; ``writable()`` tells whether one more byte fits now."""

    def __init__(self, write: "Callable[[bytes | bytearray], object]", clock: "Callable[[], Ticks]",
                 writable: "Callable[[], bool] | None" = None, stall_ms: int = STALL_MS,
                 rest_ms: int = REST_MS) -> None:
        self._write = write
        self._clock = clock
        self._writable = writable
        self.stall_ms = stall_ms
        self.rest_ms = rest_ms
        self._rest_until = clock()
        self.resting = False
        self.stalls = 0
        self._line = b""
        self._at = 0
        self._byte = bytearray(1)

    @property
    def busy(self) -> bool:
        """A line is partly written."""
        return self._at < len(self._line)

    def ready(self, now: "Ticks") -> bool:
        """Whether a new line may be given at ``now`` (the rest of the current one is written first)."""
        if self.resting:
            if ticks_diff(now, self._rest_until) < 0:
                return False
            self.resting = False
        if self.busy:
            self.pump()
            if self.busy:
                return False
        writable = self._writable
        return writable is None or writable()

    def send(self, line: bytes) -> None:
        """Start writing one line (call only after ``ready``); as much as the port takes now."""
        self._line = line
        self._at = 0
        self.pump()

    def pump(self) -> None:
        """Write bytes of the current line while the port can take them, never waiting; rest if the pass was slow."""
        line = self._line
        writable = self._writable
        if writable is None:  # nothing to ask (a test's writer): the whole line at once
            self._timed(line[self._at:])
            self._at = len(line)
            return
        byte = self._byte
        write = self._write
        at = self._at
        end = len(line)
        start = self._clock()
        while at < end and writable():
            byte[0] = line[at]
            write(byte)
            at += 1
        self._at = at
        self._stalled(start)

    def _timed(self, data: "bytes | bytearray") -> None:
        start = self._clock()
        self._write(data)
        self._stalled(start)

    def _stalled(self, start: "Ticks") -> None:
        """Rest from writing if writing since ``start`` took :attr:`stall_ms` or more."""
        done = self._clock()
        if ticks_diff(done, start) >= self.stall_ms:
            self.stalls += 1
            self.resting = True
            self._rest_until = ticks_add(done, self.rest_ms)
