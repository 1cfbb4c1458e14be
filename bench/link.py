"""Benchmark: the box link's decode throughput, and the time from a line arriving to the state update.

1. Decode throughput: ``StreamDecoder.feed`` over 50 000 snapshot lines (with a bad line every 50),
   fed in 64-byte reads as a serial port delivers them, and in one piece.
2. Line to state update, through the real path: a line is written to a pseudo-terminal, the
   :class:`~shutbox.companion.live.link.BoxLink` reader thread reads it with pyserial and decodes it, the
   main loop takes it off the queue and the :class:`~shutbox.companion.live.session.LiveSession` judges
   the box, records a completed move in SQLite (``synchronous=FULL``) and redraws the text view.
   Timed from the write to the end of ``handle``; ``arrived→updated`` is the part after the reader
   thread had the bytes. Two cases: a snapshot that changes the move in progress (no write to the
   database), and one that completes a move (one committed event).
3. For scale, the whole chain on the simulated box: a switch flipped under the real firmware
   (30 ms debounce, 5 ms scan) until the session has updated.

Budget: the median line-to-update time of a snapshot that completes a move stays under 50 ms
(the firmware's own debounce is 30 ms); exit status 1 otherwise.
"""

from __future__ import annotations

import io
import os
import queue
import statistics
import tempfile
import time
import tty
from pathlib import Path

from shutbox.companion.live.link import BoxLink, Received
from shutbox.companion.live.session import LiveSession, Typed
from shutbox.companion.live.terminal import TextView
from shutbox.companion.store.database import GameStore
from shutbox.firmware.host.protocol import SEQ_MODULO, Snapshot, StreamDecoder, encode
from shutbox.kit.model import Rules

BUDGET_MS = 50.0
LINES = 50_000
ROUNDS = 200


def snapshot_line(seq: int, shut: set[int], tiles: int = 9) -> bytes:
    return encode(Snapshot(seq % SEQ_MODULO, tuple(t in shut for t in range(1, tiles + 1)), False, 0, "change"))


def decode_throughput() -> None:
    lines = [snapshot_line(i, {1 + i % 9, 1 + (i * 7) % 9}) for i in range(LINES)]
    for i in range(0, LINES, 50):
        lines[i] = lines[i].replace(b"shut=", b"shut=1", 1)[:-8] + b"*0000\r\n"  # a corrupt line
    stream = b"".join(lines)
    for name, size in (("64-byte reads", 64), ("one piece", len(stream))):
        decoder = StreamDecoder()
        start = time.perf_counter()
        count = 0
        for pos in range(0, len(stream), size):
            count += len(decoder.feed(stream[pos:pos + size]))
        seconds = time.perf_counter() - start
        assert count == LINES and decoder.rejected == LINES // 50
        print(f"decode, {name:>13}: {LINES / seconds:>9,.0f} lines/s, {len(stream) / seconds / 1e6:5.2f} MB/s "
              f"({seconds / LINES * 1e6:.1f} µs per line; {decoder.rejected} corrupt lines rejected)")


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return (f"median {statistics.median(values) * 1000:6.2f} ms, p95 {p95 * 1000:6.2f} ms, "
            f"max {max(values) * 1000:6.2f} ms")


def line_to_update() -> float:
    master, slave = os.openpty()
    tty.setraw(slave)
    events: queue.Queue = queue.Queue()
    with tempfile.TemporaryDirectory() as tmp, GameStore(Path(tmp) / "bench.sqlite3") as store:
        link = BoxLink(os.ttyname(slave), 9, events.put, quiet_s=3600).start()
        session = LiveSession(Rules(match="drop-out", limit=10**6), store, TextView(io.StringIO()))
        seq = 0

        def send(shut: set[int]) -> tuple[float, float]:
            nonlocal seq
            seq += 1
            start = time.perf_counter()
            os.write(master, snapshot_line(seq, shut))
            while True:
                item = events.get(timeout=5)
                session.handle(item)
                if isinstance(item, Received) and isinstance(item.message, Snapshot) and item.message.seq == seq:
                    assert session.latency is not None
                    return time.perf_counter() - start, session.latency

        try:
            send(set())
            session.start(["Ann", "Bob"])
            partial, partial_after, complete, complete_after = [], [], [], []
            for _ in range(ROUNDS):
                session.handle(Typed("1 2"))  # a throw of 3: 1 is partial, 1 + 2 completes
                total, after = send({1})
                partial.append(total)
                partial_after.append(after)
                before = len(store.events(session.game_id or 0))
                total, after = send({1, 2})
                assert len(store.events(session.game_id or 0)) == before + 1, "the move was not recorded"
                complete.append(total)
                complete_after.append(after)
                session.handle(Typed("6 6"))  # 12 from 3..9: the player shuts it at once
                send({1, 2, 9, 3})
                # finish the turn: 6+6 again (4..8 open: 8+4), then a dead 1+1 ends it; reopen the box
                session.handle(Typed("6 6"))
                send({1, 2, 9, 3, 8, 4})
                session.handle(Typed("1 1"))
                send(set())
        finally:
            link.stop()
            os.close(master)
            os.close(slave)
    print(f"line → state update, move in progress: {ms(partial)}  (arrived → updated {ms(partial_after)})")
    print(f"line → state update, move completed:   {ms(complete)}  (arrived → updated {ms(complete_after)}; "
          "includes one SQLite commit)")
    return statistics.median(complete)


def simulated_box() -> None:
    from shutbox.companion.live.terminal import Notes
    from shutbox.companion.sim.game import SimTable
    from shutbox.kit.model import Kit

    times = []
    with tempfile.TemporaryDirectory() as tmp, GameStore(Path(tmp) / "sim.sqlite3") as store:
        with SimTable(Kit(), store, Notes()) as table:
            for i in range(20):
                tile = 1 + i % 9
                start = time.perf_counter()
                table.flip(tile, True)
                times.append(time.perf_counter() - start)
                table.flip(tile, False)
    print(f"simulated box, switch flipped → session updated (30 ms debounce): {ms(times)}")


def main() -> int:
    decode_throughput()
    median = line_to_update()
    simulated_box()
    ok = median * 1000 < BUDGET_MS
    print(f"budget: median line → update of a completed move < {BUDGET_MS:.0f} ms: {'ok' if ok else 'EXCEEDED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
