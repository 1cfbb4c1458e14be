"""``shutbox stats``: per-player figures across a game database, the leaderboard, the per-game review cache."""

from __future__ import annotations

import csv
import json
import sqlite3

import pytest

from shutbox.companion.store.database import GameStore
from shutbox.companion.store.stats import RecordCache, collect
from shutbox.game import events as ev
from shutbox.game import solver
from shutbox.game.gamefile import settings_of
from shutbox.game.replay import Game
from shutbox.game.review import review_game
from shutbox.kit.model import Rules

from .review_support import play_game, save_game
from .test_review_cli import _mistake_game


def _box_shut_by_first(*names: str) -> Game:
    """The first player shuts the box on the first turn (one die at the end), so the others never play."""
    game = Game(Rules()).add_players(*names)
    for dice, tiles in [((4, 5), (9,)), ((4, 4), (8,)), ((3, 4), (7,)), ((3, 3), (6,)), ((2, 3), (5,)),
                        ((2, 2), (4,)), ((3,), (3,)), ((2,), (2,)), ((1,), (1,))]:
        game.throw(*dice).shut(*tiles)
    assert game.finished and game.turns[0].shut_box
    return game


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        save_game(store, _mistake_game())  # Bob wins with 1, Ann 13
        save_game(store, _box_shut_by_first("Ann", "Cy"))
        save_game(store, _box_shut_by_first("ann", "Bob"))  # "ann" is not "Ann"
        save_game(store, Game(Rules()).add_players("Ann", "Cy").throw(4, 4))  # unfinished
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        store.append(gid, ev.shut(4, 4))  # an illegal record: not counted, named
    return path


@pytest.mark.slow
def test_stats_json_counts_each_player_as_recorded(cli, db):
    out = cli("stats", "--db", str(db), "--json", check=True)
    data = json.loads(out.stdout)
    assert data["games"] == 3 and data["unfinished"] == 1
    assert len(data["unreadable"]) == 1 and data["unreadable"][0].startswith("game 5: ")
    p = data["players"]
    ann, bob, cy, low = p["Ann"], p["Bob"], p["Cy"], p["ann"]
    assert (ann["games"], ann["wins"], ann["boxes_shut"], ann["mean_score"]) == (2, 1, 1, {"round": 6.5})
    assert (bob["games"], bob["wins"], bob["boxes_shut"], bob["mean_score"]) == (2, 1, 0, {"round": 1.0})
    assert (low["games"], low["wins"], low["boxes_shut"], low["mean_score"]) == (1, 1, 1, {"round": 0.0})
    assert (cy["games"], cy["wins"], cy["mean_score"], cy["decisions"]) == (1, 0, {}, 0)
    # One win each for ann (of 1 game), Ann and Bob (of 2): ann first; Ann and Bob by the higher accuracy.
    middle = sorted(["Ann", "Bob"], key=lambda n: -p[n]["accuracy"])
    assert data["leaderboard"] == ["ann", *middle, "Cy"]
    # The review figures are those of each game's own review, by the same default objective (round: score).
    assert data["objective"] == "score" and data["objectives"] == {"score": 3}
    reviews = [review_game(g, solver.solve) for g in (_mistake_game(), _box_shut_by_first("Ann", "Cy"))]
    assert {r.objective for r in reviews} == {"score"}
    decisions = sum(r.players["Ann"].decisions for r in reviews)
    loss = sum(r.players["Ann"].loss for r in reviews)
    for count in ("inaccuracies", "mistakes", "blunders"):
        assert ann[count] == sum(r.players["Ann"].counts()[count] for r in reviews), count
    accuracies = [a for r in reviews if (a := r.players["Ann"].accuracy) is not None]
    assert decisions > 0 and ann["decisions"] == decisions
    assert ann["accuracy"] == pytest.approx(sum(accuracies) / len(accuracies))
    assert ann["mean_loss"] == pytest.approx(loss / decisions)
    assert ann["mistakes_per_game"] == ann["mistakes"] / 2


@pytest.mark.slow  # reviews a game move by move
def test_review_and_stats_agree_on_the_same_game(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    for rules in (Rules(), Rules(match="long-game")):
        path = tmp_path / f"{rules.match}.sqlite3"
        game = _mistake_game() if rules.match == "round" else _long_game()
        with GameStore(path) as store:
            gid = save_game(store, game)
        review = json.loads(cli("review", str(gid), "--db", str(path), "--json", check=True).stdout)
        stats = json.loads(cli("stats", "--db", str(path), "--json", check=True).stdout)
        assert review["objective"] == stats["objective"] == ("shut" if rules.match == "long-game" else "score")
        for name, mine in review["players"].items():
            theirs = stats["players"][name]
            for key in ("decisions", "inaccuracies", "mistakes", "blunders", "accuracy"):
                assert mine[key] == theirs[key], (rules.match, name, key)
        assert sum(p["mistakes"] + p["blunders"] for p in review["players"].values()) >= 1


def _long_game() -> Game:
    """A finished long game played by a middling seeded player (some choices random)."""
    for seed in range(200):
        game = play_game(Rules(match="long-game"), ["Ann", "Bob"], seed, skill=0.3, max_turns=30)
        if game.finished:
            return game
    raise AssertionError("no finished long game in 200 seeds")


@pytest.mark.slow
def test_stats_table_and_csv(cli, db, tmp_path):
    table = tmp_path / "board.csv"
    out = cli("stats", "--db", str(db), "--csv", str(table), check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("3 finished games; decisions measured by the expected score")
    assert lines[3].split()[:4] == ["1", "ann", "1", "1"]
    assert "1 unfinished game not counted" in out and "not counted: game 5:" in out
    rows = {r["player"]: r for r in csv.DictReader(table.open(encoding="utf-8"))}
    assert rows["ann"]["rank"] == "1" and rows["Cy"]["rank"] == "4"
    assert rows["Ann"]["mean_score_round"] == "6.5000" and rows["Ann"]["boxes_shut"] == "1"
    cli("stats", "--db", str(db), "--csv", str(table), check=True)  # a stats table may be replaced


@pytest.mark.slow
def test_stats_refuses_bad_input_with_one_line(cli, db, tmp_path):
    notes = tmp_path / "notes.csv"
    notes.write_text("my notes\n", encoding="utf-8")
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    for args, message in [(["--db", str(db), "--csv", str(notes)], "exists and is not a stats table"),
                          (["--db", str(junk)], "not a shutbox game database"),
                          (["--db", str(tmp_path / "none.sqlite3")], "no such game database")]:
        out = cli("stats", *args)
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr
    assert notes.read_text(encoding="utf-8") == "my notes\n"


@pytest.mark.slow
def test_game_reviews_are_cached_beside_the_database(db, tmp_path):
    cache_file = tmp_path / "records.sqlite3"
    first = collect(db, "shut", solver.solve, RecordCache(cache_file))
    assert {r["objective"] for r in first.records} == {"shut"}
    assert first.reviewed == 5 and len(first.records) == 3

    def no_solve(*a, **k):
        raise AssertionError("reviewed again although cached")

    again = collect(db, "shut", no_solve, RecordCache(cache_file))
    assert again.reviewed == 0 and again.records == first.records and again.unreadable == first.unreadable
    # A game that changes is reviewed again; the others still come from the cache.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET event = ? WHERE game_id = 4 AND seq = 1",
                     (json.dumps(ev.throw(5, 3).to_dict(), sort_keys=True),))
    changed = collect(db, "shut", solver.solve, RecordCache(cache_file))
    assert changed.reviewed == 1
    # Another objective is another review.
    assert collect(db, "score", solver.solve, RecordCache(cache_file)).reviewed == 5
    # A damaged cache file is started afresh.
    cache_file.write_bytes(b"\x00" * 5000)
    assert collect(db, "shut", solver.solve, RecordCache(cache_file)).reviewed == 5


@pytest.mark.slow
def test_tampered_records_are_named_not_crashed_on(cli, db):
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET event = ? WHERE game_id = 1 AND seq = 1", (b"\x00\xff blob",))
        conn.execute("UPDATE events SET event = ? WHERE game_id = 2 AND seq = 1",
                     ('{"v": 1, "type": "throw", "total": ' + "9" * 5000 + "}",))
    out = cli("stats", "--db", str(db), "--json", check=True)
    data = json.loads(out.stdout)
    assert data["games"] == 1 and len(data["unreadable"]) == 3
    assert any(u.startswith("game 1: event 2: stored as bytes") for u in data["unreadable"])
    assert any(u.startswith("game 2: event 2:") for u in data["unreadable"])
    for gid in ("1", "2"):
        review = cli("review", gid, "--db", str(db))
        assert review.returncode == 2 and len(review.stderr.splitlines()) == 1 and f"game {gid}:" in review.stderr
