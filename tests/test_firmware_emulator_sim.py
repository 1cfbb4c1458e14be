"""``shutbox sim --emulator``: the built firmware on MicroPython's RP2040 port in an emulated Pico, scored
by the real scorekeeper over the emulated USB serial port, gives the same ``--json`` result as the
unix-port ``sim`` for every script (and seeded demo) the suite plays, with either tile input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO
from tests.emulator_support import needs_emulator

#: The test files that play ``sim --json`` games.
SIM_TESTS = ("tests/test_companion_live_sim.py", "tests/test_companion_rules_simscript.py")


def test_every_sim_game_in_the_suite_scores_the_same_on_the_emulated_pico(tmp_path):
    needs_emulator()
    log = tmp_path / "twin.jsonl"
    env = dict(os.environ, SHUTBOX_TWIN_LOG=str(log))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.emulator_twin", "-p", "no:cacheprovider", "-q",
                           "-x", *SIM_TESTS], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    compared = [json.loads(line) for line in log.read_text().splitlines()]
    scripts = [c for c in compared if "--script" in c["args"]]
    demos = [c for c in compared if "--demo" in c["args"]]
    assert len(scripts) >= 10 and len(demos) >= 2, compared
    assert all(c["same"] and c["inputs"] == ["gpio", "74hc165"] for c in compared)
