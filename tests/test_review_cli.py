"""``shutbox review``: the command on game files and saved games, its JSON, the PDF, the solver's disk cache."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shutbox.companion.store.database import GameStore
from shutbox.game import events as ev
from shutbox.game import solver, solvercache
from shutbox.game.gamefile import save_game, settings_of
from shutbox.game.replay import Game
from shutbox.game.review import review_game, review_payload, review_summary
from shutbox.kit.model import Rules
from tests.conftest import first_fast

from .review_support import long_enough, play_game

REQUIRED = {"player", "turn", "open", "throw", "played", "best", "value_played", "value_best", "loss", "grade",
            "accuracy", "mistake"}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    solvercache._cached.cache_clear()


def _mistake_game() -> Game:
    """Ann shuts 5 + 3 for a throw of 8 (best: 8) and scores 13; Bob shuts 8 for his 8 and scores 1."""
    game = Game(Rules()).add_players("Ann", "Bob")
    game.throw(5, 3).shut(3, 5).throw(6, 6).shut(9, 2, 1).throw(6, 6).shut(8, 4).throw(1, 1)
    game.throw(4, 4).shut(8).throw(6, 6).shut(9, 3).throw(6, 6).shut(7, 5).throw(6, 6).shut(6, 4, 2)
    game.throw(6, 6)
    assert game.finished
    return game


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rules", [Rules(), Rules(match="long-game"), Rules(one_die="sum-6", max_tiles_per_throw=2),
                                   Rules(tiles=12, one_die_forced=True), Rules(match="drop-out", scoring="digits",
                                                                               limit=5000)],
                         ids=["round", "long", "sum6-max2", "12-forced", "digits"])
def test_losses_are_never_negative_and_dice_choices_agree_with_the_solver(rules, seed):
    names = ["Ann", "Bob"] if rules.match in ("long-game", "drop-out") else ["Ann", "Bob", "Cy"]
    game = play_game(rules, names, seed, skill=0.5, max_turns=40)
    for objective in ("shut", "score"):
        review = review_game(game, solver.solve, objective)
        sol = solver.solve(rules, objective)
        for d in review.decisions:
            assert d.loss >= 0
            assert (d.loss == 0) == (d.played == d.best)
            signed = d.value_best - d.value_played if objective == "shut" else d.value_played - d.value_best
            assert d.loss == pytest.approx(max(signed, 0.0), abs=1e-9)
            if d.kind == "dice":  # the best choice is worth what the solver says the position is worth
                p, e = sol.state(d.in_play)
                assert d.value_best == pytest.approx(p if objective == "shut" else e, rel=1e-9, abs=1e-12)
        assert sum(p.decisions for p in review.players.values()) == len(review.decisions)


def test_review_json_of_a_game_file(cli, tmp_path):
    path = save_game(_mistake_game(), tmp_path / "g.json")
    out = cli("review", str(path), "--json", "--objective", "shut", check=True)
    data = json.loads(out.stdout)
    assert data["objective"] == "shut" and data["exact"] is True
    assert all(REQUIRED <= set(d) for d in data["decisions"])
    first = data["decisions"][0]
    assert (first["player"], first["turn"], first["open"], first["throw"], first["played"], first["best"]) == \
        ("Ann", 1, list(range(1, 10)), 8, [3, 5], [8])
    assert first["value_best"] == pytest.approx(0.118771, abs=1e-6) and first["mistake"] is True
    assert first["grade"] == "blunder" and first["accuracy"] == pytest.approx(100 * 0.05766 / 0.118771, abs=0.01)
    ann, bob = data["players"]["Ann"], data["players"]["Bob"]
    assert ann["blunders"] >= 1 and 0 <= ann["accuracy"] < 100
    assert ann["loss"] == pytest.approx(sum(d["loss"] for d in data["decisions"] if d["player"] == "Ann"))
    assert bob["decisions"] == sum(d["player"] == "Bob" for d in data["decisions"])
    assert set(data["players"]) == {"Ann", "Bob"}


def test_review_text_marks_mistakes_and_sums_up(cli, tmp_path):
    path = save_game(_mistake_game(), tmp_path / "g.json")
    out = cli("review", str(path), check=True).stdout
    assert "expected score" in out and "mistake from 0.5 and 5% of the best" in out
    assert "  * open 1 2 3 4 5 6 7 8 9; throw 8: shut 5 + 3 (15.11) — BLUNDER: best 8 (9.04), +6.07" in out
    assert "turn 2 (round 1), Bob shutting" in out and out.rstrip().splitlines()[-2].startswith("  Ann: ")


def test_review_of_a_saved_game_by_number_reads_the_database_without_writing(cli, tmp_path):
    db = tmp_path / "games.sqlite3"
    game = _mistake_game()
    with GameStore(db) as store:
        events = game.to_events()
        assert isinstance(events[0], ev.PlayersEvent)
        gid = store.new_game(settings_of(game.rules), events[0])
        for e in events[1:]:
            store.append(gid, e)
    before = db.read_bytes()
    out = cli("review", str(gid), "--db", str(db), "--json", check=True)
    assert json.loads(out.stdout)["game"]["name"] == f"game {gid}"
    assert db.read_bytes() == before


@pytest.mark.parametrize(("args", "message"), first_fast([
    (["7"], "game 7: no such game"),
    (["nothere.json"], "nothere.json: no such file"),
    (["bad.json"], "not valid JSON"),
    (["1", "--db", "junk.sqlite3"], "not a shutbox game database"),
    (["1", "--db", "other.sqlite3"], "not a shutbox game database"),
    (["g.json", "--db", "games.sqlite3"], "only for a saved game's number"),
    (["g.json", "--pdf", "g.json"], "give a name ending in .pdf"),
], several=True))
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path, args, message):
    with GameStore(tmp_path / "games.sqlite3"):
        pass
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "junk.sqlite3").write_bytes(b"\x00garbage" * 200)
    with sqlite3.connect(tmp_path / "other.sqlite3") as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    save_game(_mistake_game(), tmp_path / "g.json")
    before = (tmp_path / "g.json").read_bytes()
    args = [a if a in ("--db", "--pdf") or a.isdigit() else str(tmp_path / a) for a in args]
    if "--db" not in args and args[0].isdigit():
        args += ["--db", str(tmp_path / "games.sqlite3")]
    out = __import__("tests.conftest", fromlist=["run_cli"]).run_cli("review", *args)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert (tmp_path / "g.json").read_bytes() == before


@pytest.mark.slow
def test_pdf_report_has_a_page_per_player_with_chart_and_mistakes(cli, tmp_path):
    pypdf = pytest.importorskip("pypdf")
    path = save_game(_mistake_game(), tmp_path / "g.json")
    pdf = tmp_path / "review.pdf"
    cli("review", str(path), "--pdf", str(pdf), check=True)
    reader = pypdf.PdfReader(str(pdf))
    assert len(reader.pages) == 2
    first = reader.pages[0].extract_text()
    assert "Game review — Ann" in first and "Mistakes and blunders (" in first
    assert "throw 8, 1 2 3 4 5 6 7 8 9 in play: shut 5 + 3" in first
    assert "Game review — Bob" in reader.pages[1].extract_text()
    assert reader.pages[0].images, "the chart is missing"
    fonts = {str(f["/BaseFont"]) for p in reader.pages for f in p["/Resources"]["/Font"].get_object().values()}
    assert any("DejaVuSans" in f for f in fonts)
    again = tmp_path / "again.pdf"
    cli("review", str(path), "--pdf", str(again), check=True)
    assert again.read_bytes() == pdf.read_bytes()  # same review, same bytes


def test_solver_tables_are_read_back_from_disk_and_verified(tmp_path, monkeypatch):
    rules = Rules()
    real_solve = solver.solve
    solves: list[str] = []

    def counting_solve(*args, **kwargs):
        solves.append("solved")
        return real_solve(*args, **kwargs)

    monkeypatch.setattr(solver, "solve", counting_solve)
    first = solvercache.cached_solve(rules, "shut")
    (path,) = [p for p in (tmp_path / "cache" / "solver").iterdir() if not p.name.startswith(".")]

    def again() -> Any:
        solvercache._cached.cache_clear()
        return solvercache.cached_solve(rules, "shut")

    assert np.array_equal(again().p_shut, first.p_shut) and solves == ["solved"]  # read from disk
    # A tampered or damaged file is not trusted: the values are solved again and the file rewritten.
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF
    path.write_bytes(bytes(data))
    fixed = again()
    assert np.array_equal(fixed.p_shut, first.p_shut) and np.array_equal(fixed.one_die, first.one_die)
    assert solves == ["solved"] * 2
    path.write_bytes(b"not a cache file")
    assert np.array_equal(again().expected_score, first.expected_score) and solves == ["solved"] * 3
    assert np.array_equal(again().p_shut, first.p_shut) and solves == ["solved"] * 3  # rewritten intact


def test_summary_for_the_end_of_a_live_game():
    review = review_game(_mistake_game(), solver.solve)
    lines = review_summary(review)
    assert lines[0].startswith("review (measured by the expected score")
    assert lines[1].startswith("Ann: ") and "mistake" in lines[1] and lines[2].startswith("Bob: ")
    payload = review_payload(review)
    assert [p["name"] for p in payload["players"]] == ["Ann", "Bob"]
    assert json.loads(json.dumps(payload)) == payload


def test_a_thirty_turn_game_reviews_every_turn(tmp_path):
    game = long_enough(Rules(match="drop-out", limit=150), ["Ann", "Bob", "Cy", "Di"], 30)
    review = review_game(game, solver.solve)
    assert [t.turn for t in review.traces] == [t.number for t in game.turns]
    assert all(t.points[0].label == "start" for t in review.traces)
    assert Path(save_game(game, tmp_path / "long.json")).is_file()


def test_dice_choices_recorded_by_total_alone_are_read_when_the_total_tells():
    game = Game(Rules()).add_players("Ann")
    for dice, tile in [((4, 5), 9), ((4, 4), 8), ((3, 4), 7)]:
        game.throw(*dice).shut(tile)
    game.apply(ev.throw(total=4))  # one die or two? the record cannot say
    game.shut(4)
    game.apply(ev.throw(total=11))  # only two dice show 11
    game.shut(6, 5)
    review = review_game(game, solver.solve, "shut")
    dice = [d for d in review.decisions if d.kind == "dice"]
    assert [d.played for d in dice] == [2] and review.skipped == 1
    assert any("not reviewed" in n for n in review.notes)


@pytest.mark.parametrize("objective", ["shut", "score"])
def test_the_chart_plots_the_measure_the_table_grades_by(objective):
    review = review_game(_mistake_game(), solver.solve, objective)
    traces = {t.turn: t for t in review.traces}
    moves = [d for d in review.decisions if d.kind == "move"]
    assert moves
    for d in moves:  # each graded move is a point of its turn's chart, at the values the table shows
        assert any(p.label == str(d.throw) and p.played == pytest.approx(d.value_played)
                   and p.best == pytest.approx(d.value_best) and p.mistake == d.mistake
                   for p in traces[d.turn].points), d
    start = review.traces[0].points[0].played
    p, e = solver.solve(Rules(), objective).state(tuple(range(1, 10)))
    assert start == pytest.approx(p if objective == "shut" else e)
