"""The whole firmware (main.py and every module) on the unix MicroPython port, hardware faked at the
``machine`` module boundary and the host on a pseudo-terminal, as the scorekeeper will see it."""

from __future__ import annotations

import time

import pytest

from shutbox.companion.sim.box import SimBox
from shutbox.firmware.host.bundle import build_bundle
from shutbox.firmware.host.protocol import Bye, Hello, Rejected, Snapshot
from shutbox.kit.model import build_kit


def is_snapshot(reason: str | None = None):
    return lambda m: isinstance(m, Snapshot) and (reason is None or m.reason == reason)


def snapshot(box: SimBox, reason: str | None = None, timeout: float = 3.0) -> Snapshot:
    """The next snapshot (with this reason) the box sends."""
    message = box.wait_for(is_snapshot(reason), timeout=timeout)
    assert isinstance(message, Snapshot)
    return message


def wait_hello(box: SimBox) -> Hello:
    message = box.wait_for(lambda m: isinstance(m, Hello))
    assert isinstance(message, Hello)
    return message


@pytest.mark.slow
def test_start_change_heartbeat_commands_and_leaving_for_the_repl():
    with SimBox(build_kit({}), shut={4}) as box:
        hello = wait_hello(box)
        assert (hello.seq, hello.tiles, hello.board, hello.tile_input, hello.button) == (0, 9, "pico", "gpio", True)
        boot = snapshot(box)
        assert boot.reason == "boot" and boot.shut_tiles == {4}

        box.bounce(7, True)
        change = snapshot(box, "change")
        assert change.shut_tiles == {4, 7}
        box.set_tile(4, False)
        assert snapshot(box, "change").shut_tiles == {7}

        first = snapshot(box, "beat", timeout=2.5)
        start = time.monotonic()
        second = snapshot(box, "beat", timeout=2.5)
        assert 0.7 < time.monotonic() - start < 1.5
        assert second.seq == (first.seq + 1) % 10000 and second.shut_tiles == {7}

        box.link.write(b"\x03\x03junk\r\n\x03")  # stray Ctrl-C and noise must not stop the firmware
        box.send("snapshot")
        assert snapshot(box, "ask").shut_tiles == {7}
        box.send("hello")
        assert isinstance(box.wait_for(lambda m: isinstance(m, Hello)), Hello)
        assert box.running()

        box.send("repl")
        assert isinstance(box.wait_for(lambda m: isinstance(m, Bye)), Bye)
        assert box.process is not None and box.process.wait(timeout=5) == 0
        assert box.decoder.missed == 0 and box.decoder.rejected == 0
        assert box.stderr_text() == ""


@pytest.mark.slow
def test_a_contact_chattering_faster_than_the_debounce_time_is_not_reported():
    with SimBox(build_kit({"firmware.debounce_ms": 100})) as box:
        snapshot(box, "boot")
        for _ in range(15):  # 15 flips, 20 ms apart: never 100 ms stable
            box.set_tile(2, True)
            time.sleep(0.02)
            box.set_tile(2, False)
            time.sleep(0.02)
        assert not [m for m in box.read(0.3) if isinstance(m, Snapshot) and m.reason == "change"]


def test_button_press_is_counted():
    with SimBox(build_kit({})) as box:
        snapshot(box, "boot")
        box.press_button()
        pressed = snapshot(box, "change")
        released = snapshot(box, "change")
        assert (pressed.button, pressed.presses) == (True, 1)
        assert (released.button, released.presses) == (False, 1)


def test_holding_the_button_at_power_up_keeps_the_repl():
    with SimBox(build_kit({}), button_held=True) as box:
        assert box.process is not None and box.process.wait(timeout=10) == 0
        items = box.read(0.2)
        assert not [m for m in items if not isinstance(m, Rejected)]
        assert any(isinstance(r, Rejected) and b"staying in the REPL" in r.line for r in items)


def test_74hc165_chain_of_two_chips_for_twelve_tiles():
    kit = build_kit({"rules.tiles": 12, "firmware.tile_input": "74hc165", "firmware.first_pin": 16})
    with SimBox(kit, shut={1, 12}) as box:
        hello = wait_hello(box)
        assert (hello.tiles, hello.tile_input) == (12, "74hc165")
        assert snapshot(box, "boot").shut_tiles == {1, 12}
        for tile in (8, 9):
            box.set_tile(tile, True)
        box.set_tile(1, False)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            snap = snapshot(box)
            if snap.shut_tiles == {8, 9, 12}:
                break
        else:
            pytest.fail("the chain never reported tiles 8, 9 and 12 shut")


def test_pull_down_and_active_high_wiring():
    kit = build_kit({"firmware.pull": "down", "firmware.shut_level": "high", "rules.tiles": 10})
    with SimBox(kit) as box:
        assert snapshot(box, "boot").shut_tiles == set()
        box.set_tile(10, True)
        assert snapshot(box, "change").shut_tiles == {10}


@pytest.mark.slow
def test_the_firmware_keeps_scanning_while_the_host_does_not_read():
    with SimBox(build_kit({})) as box:
        snapshot(box, "boot")
        for tile in (1, 2, 3):
            box.set_tile(tile, True)
            time.sleep(0.3)
        time.sleep(1.0)
        box.send("snapshot")
        assert snapshot(box, "ask").shut_tiles == {1, 2, 3}
        assert box.decoder.missed == 0


def test_the_built_bundle_runs(tmp_path):
    kit = build_kit({"rules.tiles": 10, "firmware.first_pin": 6, "firmware.button_pin": "none"})
    build_bundle(kit, tmp_path)
    with SimBox(kit, bundle=tmp_path, shut={10}) as box:
        hello = wait_hello(box)
        assert (hello.tiles, hello.button) == (10, False)
        assert snapshot(box, "boot").shut_tiles == {10}
        box.set_tile(3, True)
        assert snapshot(box, "change").shut_tiles == {3, 10}
