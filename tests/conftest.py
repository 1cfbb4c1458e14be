"""Shared test fixtures: locating system tools, running the CLI."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from shutbox.game import events as ev

REPO = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("SHUTBOX_CI") == "1"


def require_tool(name: str) -> str:
    """Path of a system tool; skip with a visible reason when missing, but fail in CI."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed (CI installs it; see .ci/run)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return path


def unstamped(events: Iterable[ev.Event | Mapping[str, Any]]) -> list[ev.Event]:
    """Events as typed (stored JSON objects read), without the time each was recorded, to compare with a record."""
    return [ev.checked(e).stamped(None) for e in events]


def skip_module_without(module: str) -> None:
    """Skip the calling test module when ``module`` is not installed. Found, not imported: each pytest-xdist worker
    of `make check` collects every module, and importing CadQuery there would cost each of them seconds."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed", allow_module_level=True)


#: The mark of a module whose fast tests import CadQuery: `make check` (``--dist loadgroup``) runs them all on one
#: pytest-xdist worker, so one worker pays for the import rather than each.
CAD_WORKER = pytest.mark.xdist_group("cadquery")


def run_cli(*args: str, cwd: Path | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``shutbox`` in a subprocess, as a user would."""
    proc = subprocess.run(
        [sys.executable, "-m", "shutbox", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"shutbox {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def ctrl_c_as_at_a_terminal() -> None:
    """``preexec_fn`` for a child a test will Ctrl-C: a test run in the background inherits SIGINT ignored (and
    so would its children); a user's Ctrl-C is never ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def first_fast(values: list, keep: int = 2, *, several: bool = False) -> list:
    """``values`` for ``pytest.mark.parametrize`` with all but the first ``keep`` marked slow: `make check` tries a
    few of a family of like cases (each a command run), `make test` every one, under the same test ids.
    ``several``: each value is a tuple of several arguments (the parametrize names more than one)."""
    return [value if i < keep else pytest.param(*(value if several else (value,)), marks=pytest.mark.slow)
            for i, value in enumerate(values)]


@pytest.fixture(autouse=True, scope="session")
def _tests_own_cache(tmp_path_factory):
    """The solver's and the CAD's caches live in a folder of the test run's own, never in the user's cache
    (unless SHUTBOX_CACHE_DIR is set already); subprocesses inherit it. Under pytest-xdist (`make check`) the
    workers share one such folder, so what one worker solved the other reads (the caches write atomically)."""
    if "SHUTBOX_CACHE_DIR" not in os.environ:
        if os.environ.get("PYTEST_XDIST_WORKER"):
            shared = tmp_path_factory.getbasetemp().parent / "shutbox-cache"  # the run's folder, above each worker's
            shared.mkdir(exist_ok=True)
            os.environ["SHUTBOX_CACHE_DIR"] = str(shared)
        else:
            os.environ["SHUTBOX_CACHE_DIR"] = str(tmp_path_factory.mktemp("shutbox-cache"))
    yield


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="module")
def chromium():
    """Headless Chromium (playwright), one per test module; skipped with the reason where it is missing
    (a failure in CI, which installs it)."""
    from tests.web_support import browser, chromium_path

    if chromium_path() is None:
        message = "chromium is not installed (CI installs it; see .ci/run)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    with browser() as b:
        yield b
