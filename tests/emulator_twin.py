"""A pytest plugin (``-p tests.emulator_twin``): every ``shutbox sim … --json`` a test runs is played again
with ``--emulator``, once with each tile input (one GPIO per tile, and a 74HC165 chain), and its result
must be the same JSON. Used by tests/test_firmware_emulator_sim.py to hold the emulated Pico to every
script in the suite without restating them.

The two emulated runs of one script run side by side. Each comparison is logged as one JSON line to the
file named by ``SHUTBOX_TWIN_LOG``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import pytest

INPUTS = ("gpio", "74hc165")


def _own_db(args: tuple[str, ...], folder: str, tile_input: str) -> list[str]:
    """``args`` with a ``--db`` of the twin's own (the game it plays must not land in the test's database)."""
    out = list(args)
    if "--db" in out:
        out[out.index("--db") + 1] = os.path.join(folder, f"twin-{tile_input}.sqlite3")
    return out


def _emulated(args: tuple[str, ...], cwd: Any, folder: str) -> list[subprocess.Popen[str]]:
    return [subprocess.Popen([sys.executable, "-m", "shutbox", *_own_db(args, folder, tile_input), "--emulator",
                              "--tile-input", tile_input],
                             cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for tile_input in INPUTS]


def _compare(args: tuple[str, ...], unix: subprocess.CompletedProcess[str], cwd: Any) -> None:
    expected = json.loads(unix.stdout)
    with tempfile.TemporaryDirectory(prefix="shutbox-twin-") as folder:
        outcomes = _run(_emulated(args, cwd, folder))
    _check(args, unix, expected, outcomes)


def _run(runs: list[subprocess.Popen[str]]) -> list[tuple[str, int, str, str]]:
    outcomes = []
    for tile_input, run in zip(INPUTS, runs, strict=True):
        try:
            out, err = run.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            run.kill()
            out, err = run.communicate()
        outcomes.append((tile_input, run.returncode, out, err))
    return outcomes


def _check(args: tuple[str, ...], unix: subprocess.CompletedProcess[str], expected: Any,
           outcomes: list[tuple[str, int, str, str]]) -> None:
    for tile_input, code, out, err in outcomes:
        assert code == 0, f"sim --emulator --tile-input {tile_input} {' '.join(args[1:])}: exit {code}: {err}"
        got = json.loads(out)
        assert got == expected, (f"sim --emulator --tile-input {tile_input} differs from the unix-port sim for "
                                 f"{' '.join(args[1:])}:\nunix:     {unix.stdout}\nemulator: {out}")
    log = os.environ.get("SHUTBOX_TWIN_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"args": list(args[1:]), "inputs": list(INPUTS), "same": True}) + "\n")


def _twin(run: Callable[..., subprocess.CompletedProcess[str]]) -> Callable[..., subprocess.CompletedProcess[str]]:
    def cli(*args: str, cwd: Any = None, check: bool = False) -> subprocess.CompletedProcess[str]:
        proc = run(*args, cwd=cwd, check=check)
        if args[:1] == ("sim",) and "--json" in args and "--emulator" not in args and proc.returncode == 0:
            _compare(args, proc, cwd)
        return proc

    return cli


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: Any) -> Any:
    result = yield
    if fixturedef.argname == "cli" and callable(result):
        twin = _twin(result)  # type: ignore[arg-type] - the suite's cli fixture returns run_cli
        value, key, error = fixturedef.cached_result  # pytest hands the test what it cached
        fixturedef.cached_result = (twin, key, error)
        return twin
    return result
