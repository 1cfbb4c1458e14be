"""Long reviews say so: a slow review beyond the exact solver offers the Monte Carlo estimate, and reviews and
stats show a progress bar on a terminal only (nothing extra when piped or with --json)."""

from __future__ import annotations

import argparse
import json
import os
import pty
import random
import subprocess
import sys

import pytest

from shutbox.cli.commands import review as review_command
from shutbox.companion.store.database import GameStore
from shutbox.game import solver
from shutbox.game.events import PlayersEvent
from shutbox.game.gamefile import save_game, settings_of
from shutbox.game.replay import Game
from shutbox.game.review import full_work, review_game
from shutbox.game.solvercache import cached_solve
from shutbox.kit.model import Rules

from .review_support import play_game


def _random_game(rules: Rules, seed: int, throws: int) -> Game:
    """A round game of random legal moves (among the first few the rules engine lists), cut after ``throws``."""
    rng = random.Random(seed)
    game = Game(rules).add_players("Ann", "Bob")
    while not game.finished and throws > 0:
        game.throw(*(rng.randint(1, 6) for _ in range(game.dice_counts()[0])))
        throws -= 1
        if game.pending is not None and game.pending.total is not None:
            game.shut(*rng.choice(game.legal_moves()[:5]))
    return game


def test_a_slow_full_review_is_said_and_the_estimate_offered():
    big = _random_game(Rules(tiles=54, dice=9), 3, 6)
    assert not solver.exact(big.rules) and max(full_work(big)) > 100
    offer = review_command.slow_review_offer(big)
    assert offer is not None and "beyond the exact solver" in offer and "Monte Carlo estimate" in offer
    assert review_command.slow_review_offer(play_game(Rules(), ["Ann", "Bob"], 1)) is None  # exact: quick


def test_without_a_terminal_the_estimate_is_taken_and_said(monkeypatch, capsys):
    big = _random_game(Rules(tiles=54, dice=9), 3, 6)
    args = argparse.Namespace(estimate=False, full=False, json=True)
    assert review_command.choose_estimate(big, args) is True
    err = capsys.readouterr().err
    assert "using the estimate (--full waits for the full review)" in err and len(err.splitlines()) == 1
    args.full = True
    assert review_command.choose_estimate(big, args) is False
    monkeypatch.setattr(review_command, "slow_review_offer", lambda game: pytest.fail("--full asks nothing"))
    assert review_command.choose_estimate(big, args) is False


@pytest.mark.slow
def test_the_estimate_review_grades_every_decision_and_reports_progress():
    game = _random_game(Rules(tiles=19, dice=5), 5, 3)
    assert not solver.exact(game.rules)
    seen: list[tuple[int, int]] = []
    review = review_game(game, cached_solve, estimate=True, progress=lambda done, total: seen.append((done, total)))
    assert review.estimate and not review.exact and "Monte Carlo estimates" in review.notes[0]
    total = sum(1 for t in game.turns for th in t.throws if th.tiles is not None)
    assert seen and seen[-1] == (total, total) and [d for d, _ in seen] == list(range(total + 1))
    assert review.decisions and all(d.loss >= 0 and 0 <= d.kept <= 1 for d in review.decisions)
    assert all((d.loss == 0) == (d.grade == "best") for d in review.decisions)


def _terminal_run(args: list[str], cwd) -> str:
    """Run shutbox with stdin, stdout and stderr on a pseudo-terminal; what the terminal received."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_stats_shows_a_bar_on_a_terminal_and_nothing_extra_when_piped(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    db = tmp_path / "games.sqlite3"
    with GameStore(db) as store:
        for seed in range(40):
            game = play_game(Rules(), ["Ann", "Bob"], seed)
            events = game.to_events()
            assert isinstance(events[0], PlayersEvent)
            gid = store.new_game(settings_of(game.rules), events[0])
            for e in events[1:]:
                store.append(gid, e, finished=False)
            store.finish(gid)
    seen = _terminal_run(["stats", "--db", str(db)], tmp_path)
    assert "reviewing games not seen before" in seen and "40 finished games" in seen
    (tmp_path / "cache").rename(tmp_path / "cache-used")  # nothing cached: the piped run reviews them all too
    piped = cli("stats", "--db", str(db), check=True)
    assert piped.stderr == "" and "reviewing" not in piped.stdout
    data = json.loads(cli("stats", "--db", str(db), "--json", check=True).stdout)
    assert data["games"] == 40


@pytest.mark.slow
def test_a_review_beyond_the_exact_solver_shows_a_bar_on_a_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    path = save_game(_random_game(Rules(tiles=19, dice=5), 5, 2), tmp_path / "g.json")
    seen = _terminal_run(["review", str(path), "--estimate"], tmp_path)
    assert "reviewing (Monte Carlo)" in seen and "summary:" in seen


@pytest.mark.slow
def test_review_and_stats_agree_beyond_the_exact_solver(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    rng = random.Random(7)
    game = Game(Rules(tiles=19, dice=5)).add_players("Ann")  # one turn: a round of one player
    while not game.finished:
        game.throw(*(rng.randint(1, 6) for _ in range(game.dice_counts()[0])))
        if game.pending is not None and game.pending.total is not None:
            game.shut(*max(game.legal_moves(), key=len))  # many tiles a throw: a short turn
    assert not solver.exact(game.rules)
    db = tmp_path / "games.sqlite3"
    with GameStore(db) as store:
        events = game.to_events()
        assert isinstance(events[0], PlayersEvent)
        gid = store.new_game(settings_of(game.rules), events[0])
        for e in events[1:]:
            store.append(gid, e, finished=False)
        store.finish(gid)
    told = cli("review", str(gid), "--db", str(db), "--json", "--estimate", check=True)
    review = json.loads(told.stdout)
    stats = json.loads(cli("stats", "--db", str(db), "--json", check=True).stdout)
    assert review["estimate"] is True and review["objective"] == stats["objective"] == "score"
    assert review["players"]["Ann"]["decisions"] > 0
    for name, mine in review["players"].items():
        for key in ("decisions", "inaccuracies", "mistakes", "blunders", "accuracy"):
            assert mine[key] == stats["players"][name][key], (name, key)
