"""``shutbox monitor --test`` against the simulated box (the real firmware) with wiring faults injected: the
player follows the instructions on a box whose switches are swapped, dead, stuck or bouncing."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from shutbox.companion.live.wiringtest import where
from shutbox.companion.sim.box import SimBox
from shutbox.firmware.host.plan import pin_map
from shutbox.firmware.host.protocol import Snapshot, StreamDecoder, command
from shutbox.kit.model import build_kit

FAST = {"firmware.debounce_ms": 5, "firmware.scan_ms": 1}
FAST_FLAGS = ["--debounce-ms", "5", "--scan-ms", "1"]


@dataclass(frozen=True)
class Faults:
    """How the box is wired wrong: ``swapped`` maps the tile moved to the switch that changes."""

    swapped: dict[int, int] = field(default_factory=dict)
    dead: frozenset[int] = frozenset()
    stuck: frozenset[int] = frozenset()
    bouncy: frozenset[int] = frozenset()
    button_dead: bool = False
    button_stuck: bool = False

    def act(self, box: SimBox, line: str) -> None:
        """Do what the instruction ``line`` says, through the faults."""
        if m := re.match(r"> (shut|open) tile (\d+)", line):
            tile, shut = int(m.group(2)), m.group(1) == "shut"
            if tile in self.dead:
                return
            wired = self.swapped.get(tile, tile)
            if tile in self.bouncy and shut:
                for i in range(8):  # a contact that bounces slower than the debounce
                    box.set_tile(wired, i % 2 == 0)
                    time.sleep(0.02)
            box.set_tile(wired, shut)
        elif line.startswith("> open every tile"):
            for tile in box.tile_numbers():
                box.set_tile(tile, tile in self.stuck)
        elif line.startswith("> press the button") and not self.button_dead:
            box.press_button()


def running(box: SimBox) -> None:
    """Wait until the firmware answers (it has passed its power-up check of the button)."""
    decoder = StreamDecoder()
    with box.open_serial() as link:
        link.write(command("snapshot"))
        deadline = time.monotonic() + 10
        while not any(isinstance(m, Snapshot) for m in decoder.feed(link.read(256))):
            assert time.monotonic() < deadline, box.stderr_text()


def follow(box: SimBox, faults: Faults = Faults(), flags: tuple[str, ...] = ()) -> tuple[int, str]:
    """Run the wiring test and do what it says, through the faults; its exit status and output."""
    for tile in faults.stuck:
        box.set_tile(tile, True)
    if faults.button_stuck:
        running(box)  # held at power-up, the button would keep the REPL instead
        box.set_button(True)
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "monitor", "--test", "--port", box.port,
                             "--step-timeout", "1.5", *FAST_FLAGS, *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = []
    for line in proc.stdout:
        out.append(line)
        faults.act(box, line)
    code = proc.wait(timeout=30)
    assert proc.stderr is not None
    return code, "".join(out) + proc.stderr.read()


@pytest.fixture
def box():
    with SimBox(build_kit(FAST), connect=False) as simbox:
        yield simbox


@pytest.mark.slow
def test_a_box_wired_right_passes(box):
    code, out = follow(box)
    assert code == 0, out
    assert "> shut tile 1 now" in out and "> shut tile 9 now" in out and "> press the button now" in out
    assert out.strip().endswith("wiring OK: 9 tiles and the button read right")


@pytest.mark.slow
def test_swapped_dead_stuck_and_noisy_switches_are_named_with_the_pin_to_check(box):
    pins = pin_map(build_kit(FAST))
    faults = Faults(swapped={4: 5, 5: 4, 1: 6}, dead=frozenset({7}), stuck=frozenset({2}), bouncy=frozenset({8}),
                    button_dead=True)
    code, out = follow(box, faults)
    assert code == 1, out
    report = out[out.index("wiring test:"):]
    assert report.startswith("wiring test: 6 problems")
    assert f"swapped: shutting tile 1 reads as tile 6: tile 1's wire belongs on {where(pins, 1)}" in report
    assert f"stuck: tile 2 reads shut while every tile is open: check its switch and {where(pins, 2)}" in report
    assert f"swapped: tiles 4 and 5 are swapped: the wires on {where(pins, 4)} and {where(pins, 5)}" in report
    assert f"dead: tile 7 never read shut: check its switch, its wire and {where(pins, 7)}" in report
    assert "noisy: tile 8 flickered" in report and where(pins, 8) in report
    assert "dead: the button did not register: check it and GP22 (header pin 29)" in report
    assert where(pins, 4) == "GP5 (header pin 7)"  # the pin plan: tiles from GP2 on


@pytest.mark.slow
def test_a_74hc165_chain_names_the_chip_input(tmp_path):
    kit = build_kit({**FAST, "firmware.tile_input": "74hc165"})
    with SimBox(kit, connect=False) as box:
        code, out = follow(box, Faults(dead=frozenset({3})), flags=("--tile-input", "74hc165"))
    assert code == 1, out
    chip = where(pin_map(kit), 3)
    assert chip == "74HC165 #1 input F (chip pin 4)"  # the chain shifts H first: tile 3 is input F
    assert f"dead: tile 3 never read shut: check its switch, its wire and {chip}" in out


def test_wiring_test_flags_are_checked(cli):
    proc = cli("monitor", "--test", "--count", "3", "--port", "loop://")
    assert proc.returncode == 2 and "--test: not with --count" in proc.stderr
    proc = cli("monitor", "--test", "--step-timeout", "0", "--port", "loop://")
    assert proc.returncode == 2 and "--step-timeout 0" in proc.stderr


@pytest.mark.slow
def test_a_switch_that_chatters_on_its_own_is_noisy_and_left_out_of_the_walk(box):
    import threading

    pins = pin_map(build_kit(FAST))
    stop = threading.Event()

    def chatter() -> None:  # tile 6's contact makes and breaks while nobody touches the box
        level = False
        while not stop.wait(0.05):
            level = not level
            box.set_tile(6, level)

    noise = threading.Thread(target=chatter, daemon=True)
    noise.start()
    try:
        code, out = follow(box)
    finally:
        stop.set()
        noise.join()
    assert code == 1, out
    assert "noisy: tile 6 changed" in out and f"while nobody touched the box: a loose contact or wire on " \
        f"{where(pins, 6)}" in out
    assert "> shut tile 6 now" not in out  # not walked through: its readings mean nothing
    assert "wiring test: 1 problem\n" in out


@pytest.mark.slow
def test_a_button_held_down_is_stuck(box):
    code, out = follow(box, Faults(button_stuck=True))
    assert code == 1, out
    assert "> press the button now" not in out
    assert out.strip().endswith("stuck: the button reads pressed while nobody touches it: check it and GP22 "
                                "(header pin 29) for a short")
