"""Nothing left running (issue 29, fault 2 and item 3; issue 24, item 3): SIGKILL, SIGTERM or Ctrl-C of a cold
``shutbox cad`` or ``shutbox kit`` -- its side process busy building -- leaves no process behind (neither the
worker nor multiprocessing's resource tracker) within a few seconds; and the side process is an ordinary pool
worker that ignores Ctrl-C and dies with its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shutbox.base.sideprocess import side_process


def session_of(pid: int) -> int | None:
    """The session id of process ``pid`` (None once it is gone or a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else int(fields[3])


def in_session(sid: int) -> list[int]:
    """Live processes of session ``sid`` (from /proc)."""
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and session_of(int(p.name)) == sid]


def tracker(pid: int) -> bool:
    """Is ``pid`` multiprocessing's resource tracker (it ends when the last process holding its pipe has)?"""
    try:
        return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def wait_for(what, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.05)
    return bool(what())


COMMANDS = {
    "cad": ["cad", "--quiet", "--formats", "stl"],
    "kit": ["kit"],
}
SIGNALS = {"SIGKILL": signal.SIGKILL, "SIGTERM": signal.SIGTERM, "Ctrl-C": signal.SIGINT, "SIGHUP": signal.SIGHUP}
EXIT = {"SIGTERM": 143, "Ctrl-C": 130, "SIGHUP": 129}  # SIGHUP: the terminal closed, SSH dropped (issue 46, item 9)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.parametrize("how", list(SIGNALS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_killed_cold_build_leaves_nothing_running(tmp_path, command, how):
    env = {**os.environ, "SHUTBOX_CACHE_DIR": str(tmp_path / "cache"), "SHUTBOX_JOBS": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", *COMMANDS[command], "--out", str(tmp_path / "out")],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    sid = proc.pid
    try:
        # Busy: the worker and the resource tracker started, and the build under way for a while.
        assert wait_for(lambda: len(in_session(sid)) >= 3, 60), f"no side process started: {in_session(sid)}"
        time.sleep(4.0)
        assert proc.poll() is None, "the build ended before it could be killed"
        left = in_session(sid)
        if how == "Ctrl-C":
            os.killpg(sid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole foreground group
        else:
            os.kill(proc.pid, SIGNALS[how])  # `kill PID`, `kill -9 PID`: the main process only
        # The worker's work is not wanted: it stops at once, even while the main process finishes an import.
        assert wait_for(lambda: not [pid for pid in in_session(sid) if pid != proc.pid and not tracker(pid)], 5.0), \
            f"the side process still runs 5 s after {how} of {command}: {in_session(sid)}"
        proc.wait(timeout=30)
        gone = wait_for(lambda: not in_session(sid), 5.0)
        assert gone, f"still running 5 s after {how} of {command}: {in_session(sid)} (of {left})"
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        if how != "SIGKILL":
            assert proc.returncode == EXIT[how], stderr
            assert "Traceback" not in stderr and "leaked semaphore" not in stderr, stderr
        assert not (tmp_path / "out").exists()  # nothing half-written in the user's place
        if how != "SIGKILL":  # and no staging folder beside it (SIGKILL's is swept by the next run)
            assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")], list(tmp_path.iterdir())
    finally:
        for pid in in_session(sid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        proc.wait(timeout=30)


def test_the_side_process_is_an_ordinary_pool_worker_that_dies_with_its_parent(monkeypatch):
    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    with side_process() as pool:
        assert pool is not None
        worker = pool.submit(os.getpid).result(timeout=60)
        assert worker != os.getpid()
        assert pool.submit(signal.getsignal, signal.SIGINT).result(timeout=60) == signal.SIG_IGN
        if sys.platform.startswith("linux"):  # the kernel's parent-death signal is set: SIGKILL
            assert pool.submit(_parent_death_signal).result(timeout=60) == signal.SIGKILL
    assert wait_for(lambda: session_of(worker) is None, 10)


def _parent_death_signal() -> int:
    import ctypes

    value = ctypes.c_int(0)
    ctypes.CDLL(None).prctl(2, ctypes.byref(value))  # PR_GET_PDEATHSIG
    return value.value


def test_an_error_in_the_main_process_kills_a_busy_worker(monkeypatch):
    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    started = time.monotonic()
    workers: list[int] = []
    with pytest.raises(KeyboardInterrupt), side_process() as pool:
        assert pool is not None
        workers.append(pool.submit(os.getpid).result(timeout=60))
        pool.submit(time.sleep, 120)
        raise KeyboardInterrupt
    assert wait_for(lambda: session_of(workers[0]) is None, 10) and time.monotonic() - started < 60
