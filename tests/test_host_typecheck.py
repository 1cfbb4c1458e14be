"""All host code type-checks with pyright (pyrightconfig.json), apart from the firmware's device sources
(tests/test_firmware_typecheck.py). The tree is laid out as the package installs, so pyright needs no help."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO


@cache
def errors() -> tuple[tuple[str, str], ...]:
    """(file relative to the repo, "line: message") of every pyright error over the host code."""
    pyright = Path(sys.executable).with_name("pyright")
    proc = subprocess.run([str(pyright), "--outputjson"], capture_output=True, text=True, cwd=REPO, timeout=600)
    report = json.loads(proc.stdout)
    assert report["summary"]["filesAnalyzed"] > 100  # every package, the tests and the benchmarks
    return tuple((str(Path(d["file"]).relative_to(REPO)), f"{d['range']['start']['line'] + 1}: {d['message']}")
                 for d in report["generalDiagnostics"] if d["severity"] == "error")


@pytest.mark.slow
def test_host_code_type_checks():
    assert [f"{f}:{m}" for f, m in errors()] == []
