"""Per-input "defer" debounce: an input's new level counts once it has held still for a set time.

Inputs are the bits of an int (bit 0 = tile 1, ...), so one reading of every switch is one
small int and a scan allocates nothing. Time comes from the caller's clock in ticks; elapsed
time is measured with ``time.ticks_diff`` so the clock may wrap.
"""

from time import ticks_diff

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from _mpy_shed.time_mp import _TicksMs as Ticks


class Debouncer:
    """Debounce ``count`` inputs read together by ``read()`` at times given by ``clock()``.

    ``stable`` holds the debounced bits. A bit takes its raw value once that value has been
    read unchanged for ``debounce_ms``; every change of the raw value restarts that input's wait.
    """

    def __init__(self, read: "Callable[[], int]", clock: "Callable[[], Ticks]", count: int, debounce_ms: int) -> None:
        self.read = read
        self.clock = clock
        self.debounce_ms = debounce_ms
        self.mask = (1 << count) - 1
        now = clock()
        self.raw = read() & self.mask
        self.stable = self.raw
        self.since = [now] * count

    def scan(self) -> int:
        """Read the inputs now; return the bits whose debounced value changed."""
        raw = self.read()
        return self.update(raw, self.clock())

    def update(self, raw: int, now: "Ticks") -> int:
        """Take one reading ``raw`` made at ``now``; return the bits whose debounced value changed."""
        raw &= self.mask
        moved = raw ^ self.raw
        if moved:
            self.raw = raw
            since = self.since
            i = 0
            while moved:
                if moved & 1:
                    since[i] = now
                moved >>= 1
                i += 1
        pending = raw ^ self.stable
        if not pending:
            return 0
        since = self.since
        wait = self.debounce_ms
        done = 0
        bit = 1
        i = 0
        while pending:
            if pending & 1 and ticks_diff(now, since[i]) >= wait:
                done |= bit
            pending >>= 1
            bit <<= 1
            i += 1
        self.stable ^= done
        return done
