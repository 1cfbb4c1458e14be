"""The firmware type-checks with pyright against the MicroPython Pico stubs, in its own configuration
(firmware/pyrightconfig.json), apart from the host code. The stubs go to .cache/firmware-typings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import IN_CI, REPO

TYPINGS = REPO / ".cache" / "firmware-typings"
REQUIREMENTS = REPO / "firmware" / "stubs-requirements.txt"
CONFIG = REPO / "firmware" / "pyrightconfig.json"


def install_stubs() -> None:
    """pip install the pinned stubs into the cache folder once (what `make firmware-typecheck` does)."""
    stamp = TYPINGS / ".installed"
    if stamp.exists() and stamp.read_text() == REQUIREMENTS.read_text():
        return
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-user", "--upgrade",
                           "--target", str(TYPINGS), "-r", str(REQUIREMENTS)], capture_output=True, text=True)
    if proc.returncode != 0:
        message = f"cannot install the MicroPython stubs: {proc.stderr.strip().splitlines()[-1:]}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    stamp.write_text(REQUIREMENTS.read_text())


@pytest.mark.slow
def test_firmware_type_checks_against_the_pico_stubs():
    install_stubs()
    assert (TYPINGS / "machine.pyi").is_file()
    pyright = Path(sys.executable).with_name("pyright")
    proc = subprocess.run([str(pyright), "-p", str(CONFIG), "--outputjson"], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    report = json.loads(proc.stdout)
    problems = [f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}" for d in report["generalDiagnostics"]]
    assert problems == []
    assert report["summary"]["errorCount"] == 0
    # every module in firmware/ was checked
    assert report["summary"]["filesAnalyzed"] >= len(list((REPO / "firmware" / "shutbox" / "firmware").glob("*.py")))
