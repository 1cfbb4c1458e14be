"""No orphans and no leftovers (issue 11, items 2 and 5): ``sim`` and the simulated box end their MicroPython
process and remove their temp folder on exit, SIGTERM, SIGINT and when the host is killed with SIGKILL;
Ctrl-C anywhere, even while the heavy libraries load, is "interrupted", exit 130, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shutbox.companion.sim.box import SimBox
from tests.conftest import ctrl_c_as_at_a_terminal


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def firmware_of(sim: subprocess.Popen, timeout: float = 60.0) -> tuple[int, Path]:
    """The MicroPython process a running ``shutbox sim`` started, and its temp folder (the process's cwd)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in children(sim.pid):
            try:
                if b"micropython" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid, Path(os.readlink(f"/proc/{pid}/cwd"))
            except OSError:
                continue
        if sim.poll() is not None:
            raise AssertionError(f"sim ended early: {sim.stderr.read() if sim.stderr else ''}")
        time.sleep(0.05)
    raise AssertionError("no MicroPython process appeared")


def wait_gone(pid: int, folder: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (alive(pid) or folder.exists()):
        time.sleep(0.05)
    assert not alive(pid), f"MicroPython {pid} outlived its host"
    assert not folder.exists(), f"{folder} was left behind"


def start_demo() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "shutbox", "sim", "--demo", "--speed", "0.5"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_as_at_a_terminal)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGKILL, -9), (signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_sim_leaves_no_micropython_and_no_temp_folder(sig, code):
    sim = start_demo()
    try:
        pid, folder = firmware_of(sim)
        assert folder.name.startswith("shutbox-sim-") and folder.exists()
        sim.send_signal(sig)
        assert sim.wait(timeout=30) == code
        wait_gone(pid, folder)
        err = sim.stderr.read() if sim.stderr else ""
        assert "Traceback" not in err
        if sig != signal.SIGKILL:
            assert err.strip().splitlines()[-1] in ("shutbox: terminated", "shutbox: interrupted"), err
    finally:
        sim.kill()
        sim.wait()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_simbox_in_a_killed_test_process_is_cleaned_up_by_its_watchdog(tmp_path):
    code = ("import time; from shutbox.companion.sim.box import SimBox\n"
            "box = SimBox(connect=False).start(); print(box.process.pid, box._tmp.name, flush=True); time.sleep(60)\n")
    host = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        pid_text, folder = host.stdout.readline().split()
        assert alive(int(pid_text)) and Path(folder).exists()
        host.kill()
        host.wait()
        wait_gone(int(pid_text), Path(folder))
    finally:
        host.kill()
        host.wait()


def test_a_closed_simbox_leaves_nothing():
    box = SimBox(connect=False).start()
    assert box.process is not None
    pid, folder = box.process.pid, Path(box._tmp.name) if box._tmp else Path("/nonexistent")
    watchdog = box._watchdog
    box.close()
    assert not alive(pid) and not folder.exists()
    assert watchdog is not None and watchdog.poll() is not None


@pytest.mark.slow
@pytest.mark.parametrize("after_s", [0.3, 1.0, 2.5])
def test_ctrl_c_while_the_cad_libraries_load_is_one_line(tmp_path, after_s):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "cad", "--out", str(tmp_path / "cad"), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(after_s)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (130, -2, 0, 1), (proc.returncode, err)
    assert "Traceback" not in err and "internal error" not in err and "ImportError" not in err, err
    if proc.returncode == 130:
        assert err.strip().splitlines()[-1] == "shutbox: interrupted"
    assert [p.name for p in tmp_path.iterdir()] in ([], ["cad"])  # no staging left


# -- nothing left running: sim, play and review under SIGKILL, SIGTERM and Ctrl-C (issue 29) -----------------------

TAG = "SHUTBOX_TEST_ORPHAN_TAG"


def tagged(tag: str) -> list[int]:
    """Every live process whose environment carries ``TAG=tag``: the command and whatever it started, even
    those re-parented after it was killed."""
    found = []
    needle = f"{TAG}={tag}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0") and alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def long_game_file(path: Path) -> Path:
    """A finished-or-not game of 30 tiles (beyond the exact solver: its review is slow)."""
    import random

    from shutbox.game.gamefile import game_to_json
    from shutbox.game.replay import Game
    from shutbox.kit.model import Rules

    rng = random.Random(5)
    game = Game(Rules(tiles=30)).add_players("Ann", "Bob")
    for _ in range(12):
        if game.finished:
            break
        game.throw(*[rng.randint(1, 6) for _ in range(game.rules.dice)])
        moves = game.legal_moves() if game.phase != "done" else ()
        if moves and not game.current_turn.ended:  # type: ignore[union-attr]
            game.shut(*moves[0])
    path.write_text(game_to_json(game), encoding="utf-8")
    return path


def _start(command: str, tmp_path: Path, tag: str) -> subprocess.Popen:
    args = {
        "sim": ["sim", "--demo", "--speed", "0.5", "--web", "0"],
        "play": ["play", "--port", "none", "--players", "Ann,Bob", "--web", "0", "--db", str(tmp_path / "g.sqlite3")],
        "review": ["review", str(long_game_file(tmp_path / "long.json")), "--full"],
    }[command]
    return subprocess.Popen([sys.executable, "-m", "shutbox", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, TAG: tag}, preexec_fn=ctrl_c_as_at_a_terminal)


def _running(proc: subprocess.Popen, command: str) -> None:
    """Wait until the command is at work: the firmware started (sim), or a couple of seconds in."""
    if command == "sim":
        firmware_of(proc)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, f"{command} ended early: {proc.stderr.read() if proc.stderr else ''}"


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
# `make check` keeps one of the nine (each waits seconds for the command to get to work); `make test` runs all.
@pytest.mark.parametrize("command", [pytest.param("sim", marks=pytest.mark.slow), "play",
                                     pytest.param("review", marks=pytest.mark.slow)])
@pytest.mark.parametrize(("sig", "code"), [pytest.param(signal.SIGKILL, -9, marks=pytest.mark.slow),
                                           (signal.SIGTERM, 143),
                                           pytest.param(signal.SIGINT, 130, marks=pytest.mark.slow)])
def test_a_killed_command_leaves_no_process_behind(tmp_path, command, sig, code):
    import uuid

    tag = uuid.uuid4().hex
    proc = _start(command, tmp_path, tag)
    try:
        _running(proc, command)
        proc.send_signal(sig)
        assert proc.wait(timeout=15) == code
        err = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in err, err[-2000:]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and tagged(tag):
            time.sleep(0.05)
        assert tagged(tag) == [], f"left running after {command} got {sig.name}: {tagged(tag)}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in tagged(tag):
            os.kill(pid, signal.SIGKILL)
