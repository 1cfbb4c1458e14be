"""The link (shutbox.companion.live.link) over a real pseudo-terminal and pyserial: decoding, resync, tile count,
unplug and replug, and fuzzing with random bytes and corrupted lines (hypothesis)."""

from __future__ import annotations

import os
import queue
import time
import tty
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shutbox.base.errors import ShutboxError
from shutbox.companion.live.link import BoxLink, Connected, Disconnected, Failed, Noise, Received, resolve_port
from shutbox.firmware.host.protocol import MAX_LINE, Hello, Rejected, Snapshot, StreamDecoder, decode, encode


class FakePort:
    """A pseudo-terminal behind a fixed name, like a USB serial device that can be unplugged."""

    def __init__(self, folder: Path) -> None:
        self.name = str(folder / "ttyBOX")
        self.master = -1
        self.slave = -1
        self.plug()

    def plug(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        staged = Path(self.name + ".new")
        staged.symlink_to(os.ttyname(self.slave))
        staged.replace(self.name)

    def unplug(self) -> None:
        Path(self.name).unlink()
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = -1

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def commands(self, timeout: float = 2.0) -> bytes:
        """What the host wrote to the box, once something arrives."""
        deadline = time.monotonic() + timeout
        os.set_blocking(self.master, False)
        got = b""
        while time.monotonic() < deadline and not got.endswith(b"S\n"):
            try:
                got += os.read(self.master, 100)
            except BlockingIOError:
                time.sleep(0.01)
        os.set_blocking(self.master, True)
        return got

    def close(self) -> None:
        if self.master >= 0:
            self.unplug()


@pytest.fixture
def port(tmp_path):
    p = FakePort(tmp_path)
    yield p
    p.close()


def hello(seq: int = 0, tiles: int = 9) -> bytes:
    return encode(Hello(seq, "0.1.0", tiles, "pico", "gpio", True, 30))


def snap(seq: int, shut: set[int], tiles: int = 9, why: str = "change") -> bytes:
    return encode(Snapshot(seq, tuple(t in shut for t in range(1, tiles + 1)), False, 0, why))


def collect(q: queue.Queue, until, timeout: float = 3.0) -> list:
    items: list = []
    deadline = time.monotonic() + timeout
    while not until(items):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; got {items}")
        try:
            items.append(q.get(timeout=left))
        except queue.Empty:
            pass
    return items


def snapshots(items: list) -> list[Snapshot]:
    return [i.message for i in items if isinstance(i, Received) and isinstance(i.message, Snapshot)]


def test_asks_for_hello_and_snapshot_and_decodes_what_comes(port):
    q: queue.Queue = queue.Queue()
    with BoxLink(port.name, 9, q.put):
        assert port.commands() == b"H\nS\n"
        port.send(hello(0) + snap(1, {3, 5}))
        items = collect(q, lambda xs: len(snapshots(xs)) == 1)
    assert isinstance(items[0], Connected) and items[0].device == port.name
    assert snapshots(items)[0].shut_tiles == {3, 5}
    received = [i for i in items if isinstance(i, Received)]
    assert all(r.arrived <= time.perf_counter() for r in received)


def test_bad_checksum_and_over_length_lines_are_rejected_and_the_next_line_is_read(port):
    q: queue.Queue = queue.Queue()
    good = snap(7, {1})
    corrupt = good.replace(b"shut=100000000", b"shut=100000001")
    with BoxLink(port.name, 9, q.put):
        port.commands()
        port.send(corrupt + b"X" * (MAX_LINE + 50) + b"\r\n" + b"half a line" + good + snap(8, {1, 2}))
        items = collect(q, lambda xs: len(snapshots(xs)) == 1)
    reasons = [i.rejected.reason for i in items if isinstance(i, Noise)]
    assert reasons == ["checksum", "over-length", "noise"]  # the good line glued to "half a line" is lost too
    assert [s.shut_tiles for s in snapshots(items)] == [{1, 2}]


@pytest.mark.parametrize("line", [hello(0, tiles=10), snap(0, {1}, tiles=12)])
def test_a_box_with_another_tile_count_is_refused_with_one_clear_line(port, line):
    q: queue.Queue = queue.Queue()
    link = BoxLink(port.name, 9, q.put).start()
    try:
        port.commands()
        port.send(line)
        items = collect(q, lambda xs: any(isinstance(x, Failed) for x in xs))
    finally:
        link.stop()
    error = items[-1].error
    assert isinstance(error, ShutboxError)
    count = 10 if b" H " in line else 12
    assert str(error) == (f"the box on {port.name} has {count} tiles but the settings are for 9; "
                          f"connect a 9-tile box or play with --tiles {count}")
    assert "\n" not in str(error)
    assert not link.connected


def test_rides_out_an_unplug_and_asks_again_after_the_replug(port):
    q: queue.Queue = queue.Queue()
    with BoxLink(port.name, 9, q.put, retry_s=0.05) as link:
        port.commands()
        port.send(snap(1, {4}))
        collect(q, lambda xs: len(snapshots(xs)) == 1)
        port.unplug()
        items = collect(q, lambda xs: any(isinstance(x, Disconnected) for x in xs))
        assert not link.connected
        time.sleep(0.2)  # several reopen attempts fail while the device is gone
        port.plug()
        items = collect(q, lambda xs: any(isinstance(x, Connected) for x in xs))
        assert port.commands() == b"H\nS\n"
        port.send(hello(0) + snap(1, {4, 6}))
        items = collect(q, lambda xs: len(snapshots(xs)) == 1)
        assert snapshots(items)[0].shut_tiles == {4, 6}
        assert link.connections == 2


def test_asks_again_when_the_box_goes_quiet(port):
    q: queue.Queue = queue.Queue()
    with BoxLink(port.name, 9, q.put, quiet_s=0.2):
        assert port.commands() == b"H\nS\n"
        assert port.commands() == b"H\nS\n"  # nothing was sent back: asked again


def test_a_port_that_cannot_be_opened_is_a_clear_error(tmp_path):
    with pytest.raises(ShutboxError, match=r"^--port .*nothing-here: cannot open \("):
        BoxLink(str(tmp_path / "nothing-here"), 9, lambda e: None).start()


def test_auto_finds_the_one_pico_and_refuses_none_or_several(monkeypatch):
    from serial.tools import list_ports

    class Info:
        def __init__(self, device: str, vid: int | None, pid: int | None) -> None:
            self.device, self.vid, self.pid = device, vid, pid
            self.serial_number, self.description = "E66", "Board in FS mode"

    found = [Info("/dev/ttyUSB0", 0x0403, 0x6001), Info("/dev/ttyACM3", 0x2E8A, 0x0005)]
    monkeypatch.setattr(list_ports, "comports", lambda: found)
    assert resolve_port("auto") == "/dev/ttyACM3"
    assert resolve_port("/dev/ttyS1") == "/dev/ttyS1"
    found.pop()
    with pytest.raises(ShutboxError, match="no Raspberry Pi Pico .* 2E8A:0005"):
        resolve_port("auto")
    found.extend([Info("/dev/ttyACM0", 0x2E8A, 0x0005), Info("/dev/ttyACM1", 0x2E8A, 0x0005)])
    with pytest.raises(ShutboxError, match="2 boards found"):
        resolve_port("auto")


# -- fuzzing ----------------------------------------------------------------------------------------

GOOD = [hello(0), snap(1, set()), snap(2, {1, 9}, why="beat"), snap(9999, set(range(1, 10)), why="ask"),
        encode(Snapshot(42, (True,) * 12, True, 9999, "boot"))]
GOOD_MESSAGES = {decode(line) for line in GOOD}


def corruptions(line: bytes) -> st.SearchStrategy[bytes]:
    """A line damaged: one or two neighbouring bytes changed (a burst CRC-16/CCITT always catches), a
    byte dropped or doubled (caught by the checksum but for a 1 in 65536 chance, or by the format),
    the line cut short, or foreign bytes glued to either end. The runs are derandomized, so the
    examples are the same every time."""
    body = line.rstrip(b"\r\n")
    n = len(body)
    change = st.tuples(st.integers(0, n - 2), st.binary(min_size=2, max_size=2)).map(
        lambda a: body[:a[0]] + a[1] + body[a[0] + 2:])
    drop = st.integers(0, n - 1).map(lambda i: body[:i] + body[i + 1:])
    double = st.integers(0, n - 1).map(lambda i: body[:i + 1] + body[i:])
    cut = st.integers(1, n - 1).map(lambda i: body[:i])
    glued = st.binary(min_size=1, max_size=8).filter(lambda b: not set(b) & set(b"\r\n")).flatmap(
        lambda junk: st.sampled_from([junk + body, body + junk]))
    return st.one_of(change, drop, double, cut, glued).filter(lambda b: b != body and b"\n" not in b)


damaged = st.sampled_from(GOOD).flatmap(corruptions)
stream_items = st.lists(st.one_of(
    st.sampled_from(GOOD).map(lambda line: ("good", line)),
    damaged.map(lambda line: ("bad", line + b"\r\n")),
    st.binary(max_size=200).map(lambda junk: ("junk", junk)),
), max_size=25)


@pytest.mark.slow
@settings(max_examples=400, derandomize=True, deadline=None)
@given(line=damaged)
def test_no_damaged_line_is_accepted(line):
    with pytest.raises(Rejected):
        decode(line)


@pytest.mark.slow
@settings(max_examples=300, derandomize=True, deadline=None)
@given(items=stream_items, cuts=st.lists(st.integers(1, 64), max_size=30))
def test_random_bytes_and_damaged_lines_never_crash_the_decoder_nor_get_through(items, cuts):
    """Every message out of the stream is one of the good lines, and every good line that stands
    between line ends is read, whatever junk surrounds it and however the bytes are chunked."""
    stream = b"".join((b"\n" + data if kind == "good" else data) for kind, data in items) + b"\n"
    decoder = StreamDecoder()
    out = []
    pos = 0
    for size in cuts:
        out += decoder.feed(stream[pos:pos + size])
        pos += size
    out += decoder.feed(stream[pos:])
    messages = [m for m in out if not isinstance(m, Rejected)]
    assert set(messages) <= GOOD_MESSAGES
    assert len(messages) >= sum(kind == "good" for kind, _ in items)


@pytest.mark.slow
@settings(max_examples=25, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(items=stream_items)
def test_the_link_survives_the_same_fuzz_over_a_pseudo_terminal(tmp_path_factory, items):
    port = FakePort(tmp_path_factory.mktemp("fuzz"))
    q: queue.Queue = queue.Queue()
    try:
        with BoxLink(port.name, None, q.put):
            port.commands()
            for kind, data in items:
                port.send(b"\n" + data if kind == "good" else data)
            marker = snap(1234, {2, 7})
            port.send(b"\n" + marker)
            got = collect(q, lambda xs: any(isinstance(x, Received) and x.message.seq == 1234 for x in xs), 5)
    finally:
        port.close()
    messages = [x.message for x in got if isinstance(x, Received)]
    assert set(messages) <= GOOD_MESSAGES | {decode(marker)}
    assert not any(isinstance(x, Failed) for x in got)


def test_a_port_another_scorekeeper_holds_is_refused(port):
    with BoxLink(port.name, 9, lambda e: None):
        with pytest.raises(ShutboxError, match=r"cannot open \(it is in use by another program"):
            BoxLink(port.name, 9, lambda e: None).start()
