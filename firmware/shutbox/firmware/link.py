"""Writing lines to the host without letting the USB link stall the scan loop.

On the RP2040 a write to USB CDC can block for up to 500 ms when the host has the port open
but does not read. So a line is written only when the stream says it can take more data, and
a write that still took long makes the writer rest for a while (the box keeps scanning and the
next snapshot carries the latest state anyway).
"""

from time import ticks_add, ticks_diff

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from _mpy_shed.time_mp import _TicksMs as Ticks

STALL_MS = 20
REST_MS = 1000


class LineWriter:
    """Sends one line at a time through ``write``; ``writable()`` tells whether a write would block."""

    def __init__(self, write: "Callable[[bytes], object]", clock: "Callable[[], Ticks]",
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

    def ready(self, now: "Ticks") -> bool:
        """Whether a line may be written at ``now``."""
        if self.resting:
            if ticks_diff(now, self._rest_until) < 0:
                return False
            self.resting = False
        writable = self._writable
        return writable is None or writable()

    def send(self, line: bytes) -> None:
        """Write one line (call only after ``ready``); rest if the write blocked."""
        start = self._clock()
        self._write(line)
        end = self._clock()
        if ticks_diff(end, start) >= self.stall_ms:
            self.stalls += 1
            self.resting = True
            self._rest_until = ticks_add(end, self.rest_ms)
