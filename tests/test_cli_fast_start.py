"""Fast start: ``shutbox solve``/``advise`` of settings already solved read the stored values without numpy
(or any other heavy module), and answer exactly as a fresh solve does. Speed itself: bench/cli.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shutbox.cli.parser import terminal_columns
from tests.conftest import first_fast

#: Modules a warm ``solve`` must not import (numpy: the solver; the rest: measurable start-up cost).
HEAVY = ("numpy", "typing", "json", "shutil", "hashlib", "tempfile", "platformdirs", "difflib", "tomllib")


def _run(cache: Path | str, *args: str) -> tuple[str, set[str]]:
    """stdout of a whole ``python -m shutbox`` process and the modules it imported (``-X importtime``)."""
    env = {**os.environ, "SHUTBOX_CACHE_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "shutbox", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time")}
    return proc.stdout, imported


def _stored(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "solver").iterdir() if not p.name.startswith("."))


@pytest.mark.parametrize("args", first_fast([
    ("solve", "--tiles", "12"),
    ("solve", "--tiles", "10", "--objective", "score", "--state", "1 2 3 9"),
    ("solve", "--tiles", "9", "--strategy", "greedy-largest", "--json"),
    ("advise", "--tiles", "12", "--open", "1 2 3 4 5 6 7 8 9 10 11 12", "--throw", "9"),
]))
def test_warm_run_reads_the_stored_values_without_numpy(tmp_path, args):
    cold, cold_imports = _run(tmp_path, *args)
    assert "numpy" in cold_imports and len(_stored(tmp_path)) == 1  # first solve: solved and stored
    warm, warm_imports = _run(tmp_path, *args)
    assert warm == cold
    heavy = set(HEAVY) - ({"json"} if "--json" in args else set())  # the answer itself needs json then
    assert not {m for m in warm_imports if m.split(".")[0] in heavy}, sorted(warm_imports)
    uncached, _ = _run("off", *args)
    assert uncached == cold


@pytest.mark.slow
def test_damaged_or_foreign_files_are_solved_again_and_replaced(tmp_path):
    args = ("solve", "--tiles", "9", "--state", "1 2 3 4")
    first, _ = _run(tmp_path, *args)
    (path,) = _stored(tmp_path)
    intact = path.read_bytes()
    header = intact[:intact.index(b"\n") + 1]
    assert header.startswith(b"shutbox solver values") and b"tiles=9;" in header and b"crc32=" in header
    damaged = [
        intact[:-1],  # cut short
        intact + b"\0",  # longer than stated
        intact[:len(header) + 100] + bytes([intact[len(header) + 100] ^ 1]) + intact[len(header) + 101:],  # a bit
        header.replace(b"tiles=9;", b"tiles=8;") + intact[len(header):],  # other settings
        header.replace(b"code=", b"code=0") + intact[len(header):],  # other code
        b"\xff\xfe" * 10000,  # not ours at all
    ]
    for data in damaged:
        path.write_bytes(data)
        again, imported = _run(tmp_path, *args)
        assert again == first and "numpy" in imported  # not trusted: solved again ...
        assert path.read_bytes() == intact  # ... and the file rewritten


def test_a_cache_folder_that_cannot_be_written_only_costs_the_solve(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out, imported = _run(blocker, "solve", "--tiles", "9")
    assert "chance to shut box:" in out and "numpy" in imported
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("columns", [None, "", "abc", "0", "-5", "37", "200"])
def test_help_width_is_the_terminal_width_shutil_finds(monkeypatch, columns):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setenv("LINES", "24")  # shutil asks the terminal only when one of the two is missing
    assert terminal_columns() == shutil.get_terminal_size().columns
