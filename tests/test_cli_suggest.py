"""A wrong word on the command line gets the nearest right one: a command, an action, a flag or a value —
one line, exit status 2, and difflib is loaded only then (tests/test_cli_fast_start.py keeps start-up lean)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import first_fast


@pytest.mark.parametrize(("args", "hint"), first_fast([
    (["paly"], "unknown command 'paly'; did you mean `play`?"),
    (["revew", "1"], "did you mean `review`?"),
    (["stat"], "did you mean `stats`?"),
    (["play", "--prot", "none"], "did you mean `--port` for `--prot`? (see `shutbox play --help`)"),
    (["play", "--port=none", "--hnt"], "did you mean `--hint` for `--hnt`?"),
    (["solve", "--tile", "12"], "did you mean `--tiles` for `--tile`?"),
    (["firmware", "build", "--tile", "10", "--out", "x"], "(see `shutbox firmware build --help`)"),
    (["firmware", "biuld"], "invalid choice: 'biuld' (choose from 'build', 'deploy'); did you mean `build`?"),
    (["history", "sho", "3"], "did you mean `show`?"),
    (["solve", "--objective", "shutt"], "did you mean `shut`?"),
    (["scorepad", "--match", "dropout", "--out", "x.pdf"], "allowed: round, drop-out, tournament, long-game; did "
                                                           "you mean `drop-out`?"),
    (["solve", "--one-die", "sum6"], "did you mean `sum-6`?"),
    (["play", "--players", "Ann,Bob", "--db", "g.sqlite3"], "no wired box? `--port none` plays without one"),
], several=True))
def test_the_nearest_word_is_suggested(cli, tmp_path, args, hint):
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1 and hint in proc.stderr, proc.stderr
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("args", [["zzzz"], ["play", "--qqqqqq"], ["solve", "--objective", "xyz"]])
def test_nothing_near_is_no_guess(cli, tmp_path, args):
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 2 and "did you mean" not in proc.stderr and proc.stderr.count("\n") == 1


def test_difflib_is_loaded_only_for_a_wrong_command_line(tmp_path):
    env = {**os.environ, "SHUTBOX_CACHE_DIR": "off"}

    def imported(*args: str) -> set[str]:
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "shutbox", *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)
        return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time")}

    assert "difflib" not in imported("config", "show")
    assert "difflib" in imported("paly")  # the check can fail: the error path does load it
