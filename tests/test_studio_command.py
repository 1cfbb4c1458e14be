"""``shutbox studio`` as a user starts it: it says where the page is, serves the API there, and Ctrl-C or SIGTERM
stops it with nothing left running (its waiting preview process included); a bad flag is one line, exit 2."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ctrl_c_as_at_a_terminal, run_cli


def children(pid: int) -> list[int]:
    """The running (not zombie) processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def running(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_studio_serves_where_it_says_and_stops_leaving_nothing(tmp_path, stop):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "studio", "--web", "127.0.0.1:0"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_as_at_a_terminal)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"studio: (http://127\.0\.0\.1:\d+/)\n", line)
        assert found, line
        schema = httpx.get(found.group(1) + "api/settings", timeout=10).json()
        assert schema["groups"][0]["name"] == "rules"
        end = time.monotonic() + 30
        while not children(proc.pid) and time.monotonic() < end:  # the preview process, waiting
            time.sleep(0.1)
        helpers = children(proc.pid)
        assert helpers
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "studio: stopped (0 builds cancelled, 0 requests refused)" in err
    assert "Traceback" not in err
    assert running(helpers) == []
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("flags", "words"), [
    (["--web", "nowhere:port"], "--web 'nowhere:port': give [HOST:]PORT"),
    (["--builds", "0"], "--builds"),
    (["--keep", "1"], "--keep"),
])
def test_a_bad_flag_is_one_line(flags, words):
    proc = run_cli("studio", *flags)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and words in proc.stderr


def test_an_address_in_use_is_one_line_and_leaves_nothing(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        before = set(Path("/tmp").glob("shutbox-studio-*"))
        proc = run_cli("studio", "--web", f"127.0.0.1:{port}", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == \
        f"shutbox: error: --web 127.0.0.1:{port}: cannot listen there (Address already in use)"
    assert set(Path("/tmp").glob("shutbox-studio-*")) <= before
