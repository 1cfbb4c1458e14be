"""Review and stats on the web page (shutbox.companion.web.review): the API says what `shutbox review --json` and
`shutbox stats --json` say, and in headless Chromium the step-through moves by keys and buttons, the
leaderboard shows, and both read on a phone and on a TV."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx
import pytest

from shutbox.companion.store.database import GameStore
from shutbox.companion.web.review import ReviewPages
from shutbox.companion.web.scoreboard import WebBoard
from shutbox.game.replay import Game
from shutbox.kit.model import Rules, build_kit
from tests.review_support import long_enough, save_game
from tests.test_review_cli import _mistake_game
from tests.web_support import LiveTable


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A database of three games (two finished) and the review pages serving it."""
    folder = tmp_path_factory.mktemp("webreview")
    db = folder / "games.sqlite3"
    with GameStore(db) as store:
        save_game(store, _mistake_game())
        save_game(store, long_enough(Rules(match="drop-out", limit=60), ["Ann", "Bob", "Cy"], 10))
        save_game(store, Game(Rules()).add_players("Ann", "Cy").throw(4, 4))
    with WebBoard("127.0.0.1", 0, lambda item: None, pages=ReviewPages(db)) as web:
        yield SimpleNamespace(db=db, url=f"http://127.0.0.1:{web.port}")


@pytest.mark.slow  # reviews games behind a live server
def test_the_api_says_what_review_and_stats_say(cli, saved):
    listed = httpx.get(saved.url + "/api/games", timeout=30).json()
    assert [g["id"] for g in listed["games"]] == [1, 2, 3] and listed["current"] is None
    assert [g["finished"] for g in listed["games"]] == [True, True, False]
    for gid in (1, 2):
        page = httpx.get(f"{saved.url}/api/review/{gid}", timeout=60).json()
        told = json.loads(cli("review", str(gid), "--db", str(saved.db), "--json", check=True).stdout)
        assert page["objective"] == told["objective"] and page["grades"] == told["grades"]
        assert len(page["steps"]) == len(told["decisions"]) > 0
        for mine, theirs in zip(page["steps"], told["decisions"], strict=True):
            for key in ("turn", "player", "open", "throw", "played", "best", "grade", "loss", "accuracy"):
                assert mine[key] == theirs[key], key
        for p in page["players"]:
            for key in ("accuracy", "inaccuracies", "mistakes", "blunders", "decisions"):
                assert p[key] == told["players"][p["name"]][key]
    stats = httpx.get(saved.url + "/api/stats", timeout=60).json()
    told = json.loads(cli("stats", "--db", str(saved.db), "--json", check=True).stdout)
    assert stats["leaderboard"] == told["leaderboard"] and stats["objective"] == told["objective"]
    assert {p["name"]: p["accuracy"] for p in stats["players"]} == {n: p["accuracy"] for n, p in
                                                                    told["players"].items()}
    assert stats["games"] == 2 and stats["unfinished"] == 1


def test_unknown_or_malformed_games_are_answered_plainly(saved):
    missing = httpx.get(saved.url + "/api/review/99", timeout=30)
    assert missing.status_code == 404 and "game 99: no such game" in missing.json()["error"]
    bad = httpx.get(saved.url + "/api/review/abc", timeout=30)
    assert bad.status_code == 400 and "give a game's number" in bad.json()["error"]
    huge = httpx.get(saved.url + "/api/review/" + "9" * 40, timeout=30)
    assert huge.status_code == 400


@pytest.mark.slow
def test_the_step_through_moves_by_keys_buttons_and_the_move_list(chromium, saved):
    steps = httpx.get(saved.url + "/api/review/1", timeout=60).json()["steps"]
    page = chromium.new_page()
    page.goto(saved.url + "/review?game=1")
    page.wait_for_selector("#moves li")
    assert page.inner_text("#where").startswith(f"decision 1 of {len(steps)} · turn 1")
    first = steps[0]  # Ann shut 5 + 3 for 8 with every tile open: the best was 8
    assert page.locator(".tile").count() == 9
    assert page.locator(".tile[data-state=open]").count() == len(first["open"])
    assert sorted(int(t) for t in page.locator(".tile.played").all_inner_texts()) == first["played"]
    assert [int(t) for t in page.locator(".tile.best").all_inner_texts()] == first["best"]
    assert page.locator("#dice .die").count() == 2 and page.inner_text("#total") == "= 8"
    assert "blunder" in page.inner_text("#verdict").lower() and "best 8" in page.inner_text("#verdict")
    assert page.locator("#players .player").count() == 2 and "%" in page.inner_text("#players .player .acc")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('where').textContent.startsWith('decision 2 ')")
    assert "step=2" in page.url
    page.click("#last")
    assert page.inner_text("#where").startswith(f"decision {len(steps)} ")
    assert page.is_disabled("#next") and not page.is_disabled("#prev")
    page.keyboard.press("Home")
    assert page.inner_text("#where").startswith("decision 1 ") and page.is_disabled("#prev")
    page.click("#moves li[data-step='2']")
    assert page.inner_text("#where").startswith("decision 3 ")
    assert page.get_attribute("#moves li.here", "data-step") == "2"
    costly = [i for i, s in enumerate(steps) if s["grade"] in ("mistake", "blunder")]
    page.keyboard.press("Home")
    page.keyboard.press("m")
    later = [i for i in costly if i > 0]
    if later:
        assert page.inner_text("#where").startswith(f"decision {later[0] + 1} ")
    page.goto(saved.url + "/review?game=1&step=3")  # a step's address opens that step
    page.wait_for_selector("#moves li.here")
    assert page.inner_text("#where").startswith("decision 3 ")
    page.select_option("#game", "2")
    page.wait_for_function("document.getElementById('title').textContent === 'Review — game 2'")
    assert page.locator(".tile").count() == 9 and page.locator("#players .player").count() == 3
    page.close()


@pytest.mark.slow
def test_the_stats_page_shows_the_leaderboard(chromium, saved):
    board = httpx.get(saved.url + "/api/stats", timeout=60).json()
    page = chromium.new_page()
    page.goto(saved.url + "/stats")
    page.wait_for_selector("#boardbody tr")
    names = [r.strip() for r in page.locator("#boardbody td:nth-child(2)").all_inner_texts()]
    assert names == board["leaderboard"]
    assert page.inner_text("#statshead").startswith("2 finished games; decisions measured by the expected score")
    assert "1 unfinished not counted" in page.inner_text("#statsnote")
    assert page.get_attribute("#navstats", "class") == "here"
    page.wait_for_selector("#navlive.hidden", state="attached")  # no game at this table: no live page to go to
    page.close()


@pytest.mark.slow
@pytest.mark.parametrize(("size", "query"), [({"width": 390, "height": 844}, ""),
                                              ({"width": 1920, "height": 1080}, "&tv=1")], ids=["phone", "tv"])
def test_readable_on_a_phone_and_on_a_tv(chromium, saved, size, query):
    page = chromium.new_page(viewport=size)
    page.goto(f"{saved.url}/review?game=2{query}")
    page.wait_for_selector("#moves li")
    fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert fits, "the page scrolls sideways"
    tile = page.locator("#tile-9").bounding_box()
    assert tile is not None and tile["x"] + tile["width"] <= size["width"]
    verdict_px = float(page.evaluate("parseFloat(getComputedStyle(document.getElementById('verdict')).fontSize)"))
    if query:
        assert page.evaluate("document.body.classList.contains('tv')") and verdict_px >= 36
    else:
        assert 14 <= verdict_px <= 24
    page.goto(f"{saved.url}/stats{query.replace('&', '?')}")
    page.wait_for_selector("#boardbody tr")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    last = page.locator("#boardbody tr:first-child td:last-child").bounding_box()  # the blunders, on screen
    assert last is not None and last["x"] + last["width"] <= size["width"]
    page.close()


def test_a_game_kept_in_memory_is_reviewed_from_the_table():
    game = _mistake_game()
    pages = ReviewPages(None)
    pages.board = SimpleNamespace(session=SimpleNamespace(game=game, game_id=1))  # type: ignore[assignment]
    assert pages.games()["current"] == 1 and len(pages.games()["games"]) == 1
    assert pages.review(1)["steps"]
    with pytest.raises(LookupError):
        pages.review(2)
    stats = pages.stats()
    assert stats["games"] == 1 and stats["kept"] == "memory" and stats["leaderboard"][0] == "Bob"


@pytest.mark.slow
def test_the_live_page_links_the_step_through_after_the_game(chromium, tmp_path):
    with LiveTable(build_kit({"firmware.debounce_ms": 5, "firmware.scan_ms": 1}), tmp_path / "games.sqlite3",
                   ["Ann", "Bob"]) as table:
        page = chromium.new_page()
        page.goto(table.local_url)
        page.wait_for_selector("#tile-9[data-state=open]")
        assert table.web is not None
        table.web.set_review({"lines": ["review (measured by the expected score of the turn):"], "players": [],
                              "review_url": "/review?game=1"})
        page.wait_for_selector("a.reviewlink")
        page.click("a.reviewlink >> nth=0")
        page.wait_for_url("**/review?game=1**")
        page.wait_for_function("document.getElementById('title').textContent === 'Review — game 1'")
        page.click("#navlive")  # back to the live page, and from its header to the stats
        page.wait_for_selector("#tile-9")
        page.click("a.pagelink[href='/stats']")
        page.wait_for_selector("#statshead")
        page.close()


def test_unverified_turns_are_not_stepped_through(tmp_path):
    from shutbox.game import events as ev

    game = Game(Rules()).add_players("Ann", "Bob")
    game.throw(5, 3).shut(3, 5).throw(6, 6).shut(9, 2, 1).throw(6, 6).shut(8, 4).throw(1, 1)  # Ann: graded
    game.apply(ev.shut(9, 8, unverified=True))  # Bob's turn, no throw entered: nothing to grade it against
    assert game.turns[-1].unverified
    pages = ReviewPages(None)
    pages.board = SimpleNamespace(session=SimpleNamespace(game=game, game_id=4))  # type: ignore[assignment]
    document = pages.review(4)
    assert document["steps"] and {s["player"] for s in document["steps"]} == {"Ann"}
    assert any("unverified turn" in n for n in document["notes"])


@pytest.mark.slow
def test_stats_web_serves_the_pages_of_every_saved_game_until_ctrl_c(cli, saved, tmp_path):
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "stats", "--db", str(saved.db), "--web", "0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("stats: http://127.0.0.1:") and first.rstrip().endswith("/stats")
        base = first.split()[1].removesuffix("/stats")
        assert "review of any game" in proc.stdout.readline()
        assert httpx.get(base + "/api/stats", timeout=60).json()["games"] == 2
        assert httpx.get(base + "/api/review/1", timeout=60).json()["steps"]
        assert httpx.get(base + "/review", timeout=10).status_code == 200
        refused = httpx.post(base + "/api/end", json={}, timeout=10)
        assert refused.status_code == 409 and "only the review and stats pages" in refused.text
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 130
        assert proc.stderr is not None and proc.stderr.read().strip() == "shutbox: interrupted"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"\x00garbage" * 100)
    for db, message in ((tmp_path / "none.sqlite3", "no such game database"), (junk, "not a shutbox game database")):
        out = cli("stats", "--db", str(db), "--web", "0")
        assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1, out.stderr
