"""The box: scan the tile switches, stream the debounced state to the host, answer its commands.

``Box`` holds the logic and takes its clock, input reader and line writer from outside, so it
runs the same under test; ``run`` wires it to the pins and to USB serial (stdin/stdout).
"""

import select
import sys
from time import ticks_add, ticks_diff, ticks_ms

import micropython
import wire
from debounce import Debouncer
from link import LineWriter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from _mpy_shed.time_mp import _TicksMs as Ticks

HEARTBEAT_MS = 1000
PRESSES_MODULO = 10000
MAX_BYTES_PER_PASS = 32

#: Why a snapshot is sent; when several reasons are due at once the later one in this list wins.
REASONS = ("", "beat", "ask", "boot", "change")
_BEAT = 1
_ASK = 2
_BOOT = 3
_CHANGE = 4


class Box:
    """Scanning, debouncing and streaming for one configuration (a ``boxcfg`` module or alike)."""

    def __init__(self, cfg, read: "Callable[[], int]", clock: "Callable[[], Ticks]", writer: LineWriter) -> None:
        self.cfg = cfg
        self.tiles = cfg.TILES
        self.button_bit = (1 << cfg.TILES) if cfg.BUTTON is not None else 0
        count = cfg.TILES + (1 if self.button_bit else 0)
        self.inputs = Debouncer(read, clock, count, cfg.DEBOUNCE_MS)
        self.scan_ms = cfg.SCAN_MS
        self.writer = writer
        self.commands = wire.CommandReader()
        self.seq = 0
        self.presses = 0
        self.running = True
        now = clock()
        self.next_scan = now
        self.last_snapshot = now
        self.want_hello = True
        self.want_bye = False
        self.leaving = False
        self.why = _BOOT
        self.scans = 0

    @property
    def shut(self) -> int:
        """The debounced tile bits (bit 0 = tile 1)."""
        return self.inputs.stable & ((1 << self.tiles) - 1)

    @property
    def button(self) -> bool:
        return bool(self.inputs.stable & self.button_bit)

    def tick(self, now: "Ticks") -> None:
        """Scan if a scan is due, queue a heartbeat if one is due, and write at most one line."""
        if ticks_diff(now, self.next_scan) >= 0:
            self.scan(now)
            following = ticks_add(self.next_scan, self.scan_ms)
            if ticks_diff(now, following) >= 0:
                following = ticks_add(now, self.scan_ms)
            self.next_scan = following
        if ticks_diff(now, self.last_snapshot) >= HEARTBEAT_MS:
            self._want(_BEAT)
        self.flush(now)

    def scan(self, now: "Ticks") -> int:
        """Read and debounce every input once; return the bits that changed."""
        inputs = self.inputs
        changed = inputs.update(inputs.read(), now)
        self.scans += 1
        if changed:
            if changed & self.button_bit and inputs.stable & self.button_bit:
                self.presses = (self.presses + 1) % PRESSES_MODULO
            self._want(_CHANGE)
        return changed

    def feed(self, byte: int) -> None:
        """One byte from the host."""
        code = self.commands.feed(byte)
        if code == wire.HELLO:
            self.want_hello = True
        elif code == wire.SNAPSHOT:
            self._want(_ASK)
        elif code == wire.REPL:
            self.want_bye = True

    def wait_ms(self, now: "Ticks") -> int:
        """How long the loop may sleep before the next scan is due."""
        wait = ticks_diff(self.next_scan, now)
        return wait if wait > 0 else 0

    def flush(self, now: "Ticks") -> None:
        """Go on writing the current line; start the most urgent pending one once the link can take it.

        Lines due while one is being written are coalesced: the next snapshot carries the whole state.
        """
        writer = self.writer
        if self.leaving:  # the bye is written whole before the firmware stops
            writer.ready(now)
            self.running = writer.busy
            return
        if not (self.want_bye or self.want_hello or self.why):
            if writer.busy:
                writer.ready(now)
            return
        if not writer.ready(now):
            return
        seq = self.seq
        if self.want_bye:
            line = wire.bye(seq)
            self.want_bye = False
            self.leaving = True
        elif self.want_hello:
            cfg = self.cfg
            line = wire.hello(seq, cfg.FIRMWARE, cfg.TILES, cfg.BOARD, cfg.INPUT, bool(self.button_bit),
                              cfg.DEBOUNCE_MS)
            self.want_hello = False
        else:
            line = wire.snapshot(seq, self.shut, self.tiles, self.button, self.presses, REASONS[self.why])
            self.why = 0
            self.last_snapshot = now
        writer.send(line)
        self.seq = (seq + 1) % wire.SEQ_MODULO
        if self.leaving:
            self.running = writer.busy

    def _want(self, why: int) -> None:
        if why > self.why:
            self.why = why


def run(cfg, read: "Callable[[], int] | None" = None) -> None:
    """Stream the box over stdin/stdout until the host sends ``REPL``.

    Ctrl-C from the host does not interrupt (``kbd_intr(-1)``) while this runs.
    """
    if read is None:
        import inputs

        read = inputs.make_reader(cfg)
    stdin = sys.stdin
    stdout = sys.stdout
    incoming = select.poll()
    incoming.register(stdin, select.POLLIN)
    outgoing = select.poll()
    outgoing.register(stdout, select.POLLOUT)

    def writable() -> bool:
        for _ in outgoing.ipoll(0):
            return True
        return False

    read_byte = stdin.buffer.read
    box = Box(cfg, read, ticks_ms, LineWriter(stdout.buffer.write, ticks_ms, writable))
    micropython.kbd_intr(-1)
    try:
        while box.running:
            box.tick(ticks_ms())
            count = 0
            while count < MAX_BYTES_PER_PASS:
                state = _input_state(incoming)
                data = read_byte(1) if state > 0 else b""
                if not data:
                    if state:  # the host end hung up or closed: stop listening, keep scanning
                        incoming.unregister(stdin)
                    break
                box.feed(data[0])
                count += 1
            wait = box.wait_ms(ticks_ms())
            if wait:
                for _ in incoming.ipoll(wait):
                    break
    finally:
        micropython.kbd_intr(3)


def _input_state(poller) -> int:
    """1 when a byte is waiting, -1 when the input hung up or failed, 0 when there is nothing."""
    for _obj, flags in poller.ipoll(0):
        if flags & select.POLLIN:
            return 1
        if flags & (select.POLLHUP | select.POLLERR):
            return -1
    return 0
