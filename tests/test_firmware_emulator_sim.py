"""``shutbox sim --emulator``: the built firmware on MicroPython's RP2040 port in an emulated Pico, scored
by the real scorekeeper over the emulated USB serial port, gives the same ``--json`` result as the
unix-port ``sim`` for every script (and seeded demo) the suite plays, with either tile input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.emulator_support import needs_emulator
from tests.test_hostile_processes import alive, children

#: The test files that play ``sim --json`` games.
SIM_TESTS = ("tests/test_companion_live_sim.py", "tests/test_companion_sim_script.py",
             "tests/test_companion_live_handsfree.py")


@pytest.mark.slow  # emulated Picos (rp2040js): a core each while they run
def test_every_sim_game_in_the_suite_scores_the_same_on_the_emulated_pico(tmp_path):
    """The test files run side by side (the emulated boards mostly wait on their clocks, not the CPU)."""
    needs_emulator()
    log = tmp_path / "twin.jsonl"
    env = dict(os.environ, SHUTBOX_TWIN_LOG=str(log))
    runs = [subprocess.Popen([sys.executable, "-m", "pytest", "-p", "tests.emulator_twin", "-p", "no:cacheprovider",
                              "-q", "-x", test], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True) for test in SIM_TESTS]
    for test, run in zip(SIM_TESTS, runs, strict=True):
        out, _ = run.communicate(timeout=900)
        assert run.returncode == 0, f"{test}:\n{out[-4000:]}"
    compared = [json.loads(line) for line in log.read_text().splitlines()]
    scripts = [c for c in compared if "--script" in c["args"]]
    demos = [c for c in compared if "--demo" in c["args"]]
    assert len(scripts) >= 10 and len(demos) >= 2, compared
    assert all(c["same"] and c["inputs"] == ["gpio", "74hc165"] for c in compared)


def test_without_node_sim_emulator_is_one_error_line(tmp_path):
    script = tmp_path / "game.txt"
    script.write_text("players Ann\nthrow 6 6\nshut 9 3\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "shutbox", "sim", "--emulator", "--script", str(script), "--json"],
                          env=dict(os.environ, SHUTBOX_NODE=str(tmp_path / "no-node")), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "no 'node' command found" in proc.stderr


@pytest.mark.slow  # emulated Picos (rp2040js): a core each while they run
def test_a_sim_killed_with_sigkill_takes_its_emulated_pico_with_it():
    needs_emulator()
    sim = subprocess.Popen([sys.executable, "-m", "shutbox", "sim", "--emulator", "--demo", "--speed", "1"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        harness = None
        cmdline = b""
        while harness is None and time.monotonic() < deadline:
            assert sim.poll() is None, sim.stderr.read() if sim.stderr else ""
            for pid in children(sim.pid):
                try:
                    found = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                if b"harness.mjs" in found:
                    harness, cmdline = pid, found
            time.sleep(0.05)
        assert harness is not None, "no emulator process appeared"
        image = cmdline.split(b"\0--fs\0")[1].split(b"\0")[0].decode()
        time.sleep(2)  # the game is under way
        sim.kill()
        sim.wait()
        deadline = time.monotonic() + 5
        while alive(harness) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(harness)
        assert not Path(image).exists()  # the board's image was removed as soon as the harness had read it
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()
