"""Hands-free games through the web scoreboard (throws optional) in headless Chromium and over HTTP: tiles
flipped on the simulated box, the page's End button ending each turn; the state's ``throws``, ``verified``,
``legal`` and ``can_end``; the End button shown only when a press would be taken; a wrong join code said
plainly; the TV view's result filling the screen; ``sim --demo --web`` surviving an undo from the page and
serving its result until Ctrl-C; ``sim --script --json --web`` printing nothing but its JSON on stdout."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

from shutbox.game import events as ev
from shutbox.kit.model import build_kit
from tests.web_support import LiveTable

HANDS_FREE = {"firmware.debounce_ms": 5, "firmware.scan_ms": 1, "play.throws": "optional"}
FAST = ["--debounce-ms", "5", "--scan-ms", "1"]


def flip(live: LiveTable, page, tiles: list[int], shut: bool) -> None:
    for tile in tiles:
        live.box.set_tile(tile, shut)
        page.wait_for_selector(f"#tile-{tile}[data-state={'shut' if shut else 'open'}]", timeout=5000)


def end_turn(page) -> str:
    """Click End and return what the page answered."""
    page.wait_for_selector("#end:not(.hidden)", timeout=5000)
    before = page.inner_text("#answer")
    page.click("#end")
    page.wait_for_function("(before) => document.getElementById('answer').textContent !== before", arg=before)
    return page.inner_text("#answer")


@pytest.mark.slow  # a browser
def test_a_drop_out_with_a_stake_played_hands_free_on_the_page(chromium, tmp_path):
    # limit 50, stake 1. Round 1: Ann 21 (9 8 7 shut), Bob 45 (an accidental press, then a second one): Ann
    # takes the pool. Round 2: Ann 21 -> 42; Bob 21 -> 66 drops out: Ann is left, wins and takes the pool.
    kit = build_kit({**HANDS_FREE, "rules.match": "drop-out", "rules.limit": 50, "rules.stake": 1})
    with LiveTable(kit, tmp_path / "games.sqlite3", ["Ann", "Bob"]) as live:
        page = chromium.new_page()
        page.goto(live.local_url)
        page.wait_for_selector("#tile-9[data-state=open]")
        state = httpx.get(live.local_url + "api/state").json()
        assert (state["throws"], state["verified"], state["legal"], state["can_end"]) == \
            ("optional", False, None, True)
        flip(live, page, [9, 8, 7], True)
        assert "ended the turn" in end_turn(page)
        assert not page.is_visible("#end")  # Bob's turn is not set up (Ann's tiles are still shut)
        flip(live, page, [9, 8, 7], False)
        assert end_turn(page) == "press again to end with nothing shut"
        assert "ended the turn" in end_turn(page)
        flip(live, page, [9, 8, 7], True)
        end_turn(page)
        flip(live, page, [9, 8, 7], False)
        flip(live, page, [9, 8, 7], True)
        end_turn(page)
        page.wait_for_selector("#result:not(.hidden)")
        assert page.inner_text("#result") == "game over: Ann wins"
        assert not page.is_visible("#end") and not page.is_visible("#controls")
        state = httpx.get(live.local_url + "api/state").json()
        assert state["over"] and state["winner"] == "Ann" and state["can_end"] is False
        assert {p["name"]: (p["total"], p["balance"]) for p in state["players"]} == {"Ann": (42, 2.0),
                                                                                     "Bob": (66, -2.0)}
        saved = live.events()
        assert [e["type"] for e in saved] == ["players", "shut", "end_turn", "end_turn", "shut", "end_turn",
                                              "shut", "end_turn"]
        assert saved[1] == {"type": "shut", "tiles": [7, 8, 9], "unverified": True}
        assert saved[2] == {"type": "end_turn", "unverified": True, "declared": True}
        page.close()


def test_the_api_under_optional_throws(tmp_path):
    with LiveTable(build_kit({**HANDS_FREE, "rules.match": "long-game", "rules.stake": 3}),
                   tmp_path / "games.sqlite3", ["Ann", "Bob"]) as live:
        base = live.local_url
        answer = httpx.post(base + "api/throw", json={"dice": [1, 2]})
        assert answer.status_code == 200
        state = answer.json()["state"]
        assert state["verified"] is True and state["legal"] == [[3], [1, 2]] and state["can_end"] is False
        end = httpx.post(base + "api/end", json={})
        assert end.status_code == 409
        assert end.json()["messages"] == [{"kind": "refused", "text": "the turn is not over: the throw of 3 can "
                                                                       "still shut 3, 2 + 1"}]
        live.box.set_tile(3, True)
        deadline = time.monotonic() + 5
        while httpx.get(base + "api/state").json()["can_end"] is not True and time.monotonic() < deadline:
            time.sleep(0.05)
        for tile in (9, 8):  # more tiles with no throw entered: held, then recorded with the end
            live.box.set_tile(tile, True)
        while httpx.get(base + "api/state").json()["verdict"]["tiles"] != [8, 9] and time.monotonic() < deadline:
            time.sleep(0.05)
        end = httpx.post(base + "api/end", json={})
        assert end.status_code == 200 and end.json()["ok"]
        assert [m["text"] for m in end.json()["messages"]][:2] == [
            "Ann shut 9 + 8 (no throw entered: unverified)", "Ann ended the turn (unverified: no throw with no "
                                                             "move was entered)"]
        for tile in (9, 8, 3):  # Bob uncovers every tile with no throw entered: he wins the pool, single
            live.box.set_tile(tile, False)
        while not httpx.get(base + "api/state").json()["over"] and time.monotonic() < deadline + 5:
            time.sleep(0.05)
        state = httpx.get(base + "api/state").json()
        assert state["winner"] == "Bob" and {p["name"]: p["balance"] for p in state["players"]} == \
            {"Ann": -3.0, "Bob": 3.0}
        undo = httpx.post(base + "api/undo", json={})  # the game is over: its result stands
        assert undo.status_code == 409 and "undo cannot reopen it" in undo.json()["messages"][0]["text"]
        assert live.events()[1:3] == [{"type": "throw", "dice": [1, 2]}, {"type": "shut", "tiles": [3]}]
        assert live.events()[3] == {k: v for k, v in ev.shut(8, 9, unverified=True).to_dict().items() if k != "v"}


@pytest.mark.slow  # a browser
def test_a_wrong_join_code_says_so_and_where_the_right_one_is(chromium, tmp_path):
    with LiveTable(build_kit(HANDS_FREE), tmp_path / "games.sqlite3", ["Ann", "Bob"], host="0.0.0.0") as live:
        base = live.local_url
        wrong = httpx.post(base + "api/end", json={}, headers={"x-join-code": "WRONG1"})
        assert wrong.status_code == 403 and wrong.json()["error"].startswith("wrong join code")
        page = chromium.new_page()
        page.goto(base + "?code=WRONG1")
        page.wait_for_selector("#end:not(.hidden)")
        page.click("#end")
        page.wait_for_selector("#join:not(.hidden)")
        why = page.inner_text("#joinwhy")
        assert why.startswith('wrong join code "WRONG1"') and "scorekeeper" in why and "QR code" in why
        assert not page.is_visible("#controls")
        page.close()


@pytest.mark.slow  # a browser
def test_the_tv_view_result_and_standings_fill_the_screen(chromium, tmp_path):
    with LiveTable(build_kit(HANDS_FREE), tmp_path / "games.sqlite3", ["Ann", "Bob"]) as live:
        page = chromium.new_page(viewport={"width": 1280, "height": 720})
        page.goto(live.local_url + "?tv=1")
        page.wait_for_selector("#tile-9[data-state=open]")
        live.box.set_tile(9, True)
        page.wait_for_selector("#tile-9[data-state=shut]")
        httpx.post(live.local_url + "api/end", json={})
        live.box.set_tile(9, False)
        page.wait_for_selector("#tile-9[data-state=open]")
        for _ in range(2):
            httpx.post(live.local_url + "api/end", json={})
        page.wait_for_selector("#result:not(.hidden)")
        result = page.locator("#result").bounding_box()
        table = page.locator("#standings").bounding_box()
        assert result is not None and table is not None
        assert result["height"] + table["height"] >= 0.6 * 720  # together they fill the screen
        size = float(page.eval_on_selector("#result", "e => parseFloat(getComputedStyle(e).fontSize)"))
        assert size >= 0.05 * 1280  # the result in type readable across the room
        assert not page.is_visible("#box")
        page.close()


def scoreboard_url(line: str) -> str:
    found = re.search(r"scoreboard: (http://\S+)", line)
    assert found is not None, line
    return found.group(1)


@pytest.mark.slow  # a whole demo game played in real time
@pytest.mark.parametrize("throws", ["required", "optional"])
def test_sim_demo_web_survives_an_undo_from_the_page_and_serves_the_result_until_ctrl_c(throws):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "sim", "--demo", "--speed", "8", "--seed", "3",
                             "--web", "0", "--throws", throws, *FAST], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = scoreboard_url(proc.stdout.readline())
        undone = False  # an undo posted the moment a throw waits for its tiles (again at the next throw if late)
        state: dict = {}
        with httpx.stream("GET", url + "api/events", timeout=90) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data: "):
                    continue
                state = json.loads(line[6:])
                if state.get("over"):
                    break
                if not undone and state.get("throw") is not None:
                    undone = httpx.post(url + "api/undo", json={}, timeout=5).status_code == 200
        assert undone and state.get("over"), state  # the demo played on to the end after the undo
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the review is shown, then the page stays until Ctrl-C
            again = httpx.get(url + "api/state", timeout=2).json()
            if any("until Ctrl-C" in m["text"] for m in again["messages"]):
                break
            time.sleep(0.1)
        time.sleep(1.0)
        again = httpx.get(url + "api/state", timeout=2).json()  # still served after the end
        assert again["over"] and again["result"] == state["result"]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
        assert "until Ctrl-C" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sim_script_json_web_prints_only_the_json_on_stdout(cli, tmp_path):
    script = tmp_path / "game.txt"
    script.write_text("players Ann\nshut 9 8 7\npress\n", encoding="utf-8")
    proc = cli("sim", "--script", str(script), "--json", "--web", "0", *FAST)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # the whole of stdout is the one object
    assert result["players"][0]["score"] == 21 and result["turns"][0]["unverified"] is True
    assert "scoreboard: http://" in proc.stderr
