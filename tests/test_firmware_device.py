"""The firmware's logic on the real MicroPython interpreter (unix port): debounce tables in the style
of QMK's debounce tests, the device side of the protocol against the shared vectors, and the main
loop on a simulated clock with a stalled and a blocked link."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from shutbox.companion.sim.box import find_micropython
from shutbox.firmware.host.bundle import firmware_dir
from shutbox.firmware.host.protocol import Bye, Hello, Snapshot, StreamDecoder, crc16, decode

REPO = Path(__file__).resolve().parent.parent
DRIVERS = REPO / "tests" / "mpy"
VECTORS = firmware_dir() / "protocol_vectors.json"


def run_mpy(driver: str, data: object, tmp_path: Path) -> dict:
    """Run a driver script under MicroPython with the firmware on its path; return its JSON output."""
    path = tmp_path / f"{driver}.json"
    path.write_text(json.dumps(data))
    env = dict(os.environ, MICROPYPATH=str(firmware_dir()))
    proc = subprocess.run([find_micropython(), str(DRIVERS / f"{driver}.py"), str(path)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return json.loads(proc.stdout)


# -- debounce --------------------------------------------------------------------------------------
# Each table: (time in ms, levels of every input — "1" = tile shut, first char = tile 1 —, the events
# that scan must report). The first row is the state at start, which is taken as stable.

TABLES: dict[str, dict] = {
    "press with a bounce train, then a bouncing release": {"debounce_ms": 30, "steps": [
        (0, "000", []), (5, "100", []), (6, "000", []), (7, "100", []), (9, "000", []), (10, "100", []),
        (15, "100", []), (35, "100", []), (39, "100", []), (40, "100", ["1 shut"]), (45, "100", []),
        (100, "000", []), (101, "100", []), (103, "000", []),
        (130, "000", []), (132, "000", []), (133, "000", ["1 open"]), (140, "000", []),
    ]},
    "glitches shorter than the debounce time are never reported": {"debounce_ms": 30, "steps": [
        (0, "000", []), (5, "010", []), (20, "010", []), (25, "000", []), (60, "000", []),
        (70, "010", []), (99, "010", []), (100, "000", []), (140, "000", []),
    ]},
    "several tiles flipped at once are reported in the same scan": {"debounce_ms": 30, "steps": [
        (0, "000000000", []), (5, "110000001", []), (34, "110000001", []),
        (35, "110000001", ["1 shut", "2 shut", "9 shut"]), (40, "000000000", []), (69, "000000000", []),
        (70, "000000000", ["1 open", "2 open", "9 open"]),
    ]},
    "each tile waits on its own clock": {"debounce_ms": 30, "steps": [
        (0, "000", []), (5, "100", []), (20, "110", []), (35, "110", ["1 shut"]), (45, "110", []),
        (50, "110", ["2 shut"]),
    ]},
    "a bouncing tile does not delay another": {"debounce_ms": 30, "steps": [
        (0, "000", []), (5, "100", []), (10, "101", []), (15, "100", []), (20, "101", []), (25, "100", []),
        (30, "101", []), (35, "101", ["1 shut"]), (55, "101", []), (60, "101", ["3 shut"]),
    ]},
    "a late scan reports a change that has been stable long enough": {"debounce_ms": 30, "steps": [
        (0, "000", []), (5, "100", []), (200, "100", ["1 shut"]), (205, "100", []),
    ]},
    "a change first seen by a late scan still waits the debounce time": {"debounce_ms": 30, "steps": [
        (0, "000", []), (200, "100", []), (229, "100", []), (230, "100", ["1 shut"]),
    ]},
    "the clock wraps in the middle of a press and a release": {"debounce_ms": 30, "ticks_before_wrap": 15,
                                                               "steps": [
        (0, "000", []), (5, "100", []), (20, "100", []), (34, "100", []), (35, "100", ["1 shut"]),
        (40, "000", []), (69, "000", []), (70, "000", ["1 open"]),
    ]},
    "the clock wraps between a change and its debounce deadline": {"debounce_ms": 30, "ticks_before_wrap": 3,
                                                                   "steps": [
        (0, "00", []), (1, "01", []), (2, "00", []), (2, "01", []), (31, "01", []), (32, "01", ["2 shut"]),
    ]},
    "a longer debounce time": {"debounce_ms": 50, "steps": [
        (0, "0", []), (10, "1", []), (30, "1", []), (59, "1", []), (60, "1", ["1 shut"]),
    ]},
    "twelve tiles and the button (bit 13)": {"debounce_ms": 30, "steps": [
        (0, "0000000000000", []), (5, "0000000000011", []), (35, "0000000000011", ["12 shut", "13 shut"]),
        (40, "0000000000010", []), (70, "0000000000010", ["13 open"]),
    ]},
    "a tile shut at start is stable at once": {"debounce_ms": 30, "steps": [
        (0, "101", []), (5, "101", []), (10, "001", []), (40, "001", ["1 open"]),
    ]},
}


@pytest.fixture(scope="module")
def debounce_results(tmp_path_factory):
    return run_mpy("debounce_driver", TABLES, tmp_path_factory.mktemp("debounce"))


@pytest.mark.parametrize("name", list(TABLES))
def test_debounce_table(debounce_results, name):
    expected = [events for _t, _levels, events in TABLES[name]["steps"]]
    got = debounce_results[name]
    for (t, levels, want), have in zip(TABLES[name]["steps"], got, strict=True):
        assert have == want, f"{name}: at {t} ms with {levels}: expected {want}, got {have}"
    assert got == expected


# -- protocol, device side --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vectors():
    return json.loads(VECTORS.read_text())


@pytest.fixture(scope="module")
def device_output(vectors, tmp_path_factory):
    return run_mpy("protocol_driver", vectors, tmp_path_factory.mktemp("protocol"))


def test_device_crc_is_ccitt_false(device_output):
    assert device_output["crc_check"] == 0x29B1 == crc16(b"123456789")


def test_device_lines_match_the_vectors_byte_for_byte(vectors, device_output):
    assert device_output["lines"] == [v["line"] for v in vectors["lines"]]


def test_lines_made_under_micropython_decode_on_the_host(vectors, device_output):
    for vector, line in zip(vectors["lines"], device_output["lines"], strict=True):
        message = decode(line)
        assert message.seq == vector["seq"]
        if vector["kind"] == "hello":
            assert isinstance(message, Hello)
            assert (message.firmware, message.tiles, message.board, message.tile_input, message.button,
                    message.debounce_ms) == (vector["firmware"], vector["tiles"], vector["board"],
                                             vector["input"], vector["button"], vector["debounce_ms"])
        elif vector["kind"] == "snapshot":
            assert isinstance(message, Snapshot)
            assert sorted(message.shut_tiles) == vector["shut"]
            assert message.tiles == vector["tiles"]
            assert (message.button, message.presses, message.reason) == (vector["button"], vector["presses"],
                                                                         vector["why"])
        else:
            assert isinstance(message, Bye)


def test_device_commands_match_the_vectors(vectors, device_output):
    for vector, got in zip(vectors["commands"], device_output["commands"], strict=True):
        assert got == vector["commands"], vector["name"]


# -- the main loop on a simulated clock -------------------------------------------------------------

CFG = {"FIRMWARE": "0.1.0", "BOARD": "pico", "TILES": 9, "INPUT": "gpio", "PINS": list(range(2, 11)),
       "BUTTON": 22, "PULL": "up", "SHUT_LEVEL": 0, "DEBOUNCE_MS": 30, "SCAN_MS": 5}
BUTTON = 1 << 9


def run_box(tmp_path: Path, until: int, *, cfg: dict | None = None, inputs=(), host=(), not_writable=(),
            slow_writes=()) -> dict:
    scenario = {
        "cfg": {**CFG, **(cfg or {})}, "until": until, "inputs": [list(i) for i in inputs],
        "host_hex": [[t, data.hex()] for t, data in host], "not_writable": [list(w) for w in not_writable],
        "slow_writes": [list(s) for s in slow_writes],
    }
    result = run_mpy("box_driver", scenario, tmp_path)
    decoder = StreamDecoder()
    result["messages"] = []
    for t, line in result["written"]:
        (message,) = decoder.feed(line.encode())
        assert not isinstance(message, Exception), line
        result["messages"].append((t, message))
    result["missed"] = decoder.missed
    return result


def snapshots(result: dict) -> list[tuple[int, Snapshot]]:
    return [(t, m) for t, m in result["messages"] if isinstance(m, Snapshot)]


def test_start_sends_hello_then_the_state_at_boot(tmp_path):
    result = run_box(tmp_path, 50, inputs=[(0, 0b000010010)])
    (t0, hello), (t1, first) = result["messages"][:2]
    assert isinstance(hello, Hello) and hello.seq == 0 and t0 == 0
    assert (hello.tiles, hello.board, hello.tile_input, hello.button, hello.debounce_ms) == (9, "pico", "gpio",
                                                                                             True, 30)
    assert isinstance(first, Snapshot) and first.reason == "boot" and first.shut_tiles == {2, 5}
    assert t1 <= 5


def test_a_bouncing_change_gives_one_snapshot_after_the_debounce_time(tmp_path):
    # scans run at 0, 5, 10 ... ms: these bounces are each seen by a scan
    bounce = [(100, 0b1), (105, 0), (110, 0b1), (115, 0), (120, 0b1), (122, 0), (123, 0b1)]
    result = run_box(tmp_path, 400, inputs=[(0, 0), *bounce])
    changes = [(t, s) for t, s in snapshots(result) if s.reason == "change"]
    assert len(changes) == 1
    t, snap = changes[0]
    assert snap.shut_tiles == {1}
    assert t == 150  # 30 ms after the last bounce a scan saw (at 120 ms)
    assert result["missed"] == 0


def test_heartbeat_once_a_second_when_nothing_changes(tmp_path):
    result = run_box(tmp_path, 5200)
    beats = [t for t, s in snapshots(result) if s.reason == "beat"]
    assert len(beats) == 5
    gaps = [b - a for a, b in zip(beats, beats[1:], strict=False)]
    assert all(1000 <= g <= 1005 for g in gaps), gaps


def test_commands_hello_snapshot_junk_and_repl(tmp_path):
    host = [(300, b"H\n"), (600, b"\x03\x03hello\nXYZ\n\xff"), (700, b"s\r\n"), (900, b"REPL\r\n")]
    result = run_box(tmp_path, 3000, host=host)
    kinds = [(t, type(m).__name__, getattr(m, "reason", "")) for t, m in result["messages"]]
    assert (300, "Hello", "") in kinds
    assert (700, "Snapshot", "ask") in kinds
    assert [k for k in kinds if 600 <= k[0] < 700] == []  # junk and Ctrl-C answered by nothing
    assert kinds[-1] == (900, "Bye", "")
    assert result["running"] is False and result["end"] == 900
    assert [m.seq for _t, m in result["messages"]] == list(range(len(result["messages"])))


def test_the_button_counts_presses(tmp_path):
    presses = [(100, BUTTON), (200, 0), (300, BUTTON), (340, 0)]
    result = run_box(tmp_path, 500, inputs=[(0, 0), *presses])
    changes = [(s.button, s.presses) for _t, s in snapshots(result) if s.reason == "change"]
    assert changes == [(True, 1), (False, 1), (True, 2), (False, 2)]


def test_without_a_button_the_hello_says_so_and_no_bit_is_read(tmp_path):
    result = run_box(tmp_path, 100, cfg={"BUTTON": None}, inputs=[(0, 0), (10, BUTTON)])
    hello = result["messages"][0][1]
    assert isinstance(hello, Hello) and hello.button is False
    assert all(not s.button and s.reason != "change" for _t, s in snapshots(result))


def test_a_link_that_cannot_take_data_never_stops_the_scans(tmp_path):
    # the host keeps the port open without reading from 1 s to 4 s; tiles change meanwhile
    result = run_box(tmp_path, 5000, inputs=[(0, 0), (1500, 0b11), (2500, 0b111)], not_writable=[(1000, 4000)])
    assert result["scans"] >= 5000 // 5
    assert not [t for t, _m in result["messages"] if 1000 <= t < 4000]
    t, after = next((t, s) for t, s in snapshots(result) if t >= 4000)
    assert t == 4000 and after.shut_tiles == {1, 2, 3} and after.reason == "change"
    assert result["missed"] == 0


def test_a_write_that_blocks_makes_the_writer_rest_while_scanning_goes_on(tmp_path):
    # the heartbeat written at ~1000 ms takes 300 ms (USB CDC blocking); a tile changes meanwhile
    result = run_box(tmp_path, 3000, inputs=[(0, 0), (1400, 0b1)], slow_writes=[(900, 1100, 300)])
    assert result["stalls"] == 1
    times = [t for t, _m in result["messages"]]
    stalled_at = next(t for t in times if 900 <= t < 1100)
    resumed = next(t for t in times if t > stalled_at)
    assert resumed >= stalled_at + 300 + 1000  # rested one second after the slow write returned
    change = next(s for t, s in snapshots(result) if s.reason == "change")
    assert change.shut_tiles == {1}
    assert result["scans"] >= (3000 - 300) // 5 - 2
