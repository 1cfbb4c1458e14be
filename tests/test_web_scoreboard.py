"""The web scoreboard in a real browser (headless Chromium from Debian's ``chromium``, driven by playwright)
and over HTTP: the page loads, follows the simulated box live, records a throw tapped on the page, and
refuses posts without the join code when shared on the network."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import httpx
import pytest

from shutbox.kit.model import build_kit
from tests.conftest import first_fast
from tests.web_support import LiveTable

FAST_KIT = {"firmware.debounce_ms": 5, "firmware.scan_ms": 1, "play.throws": "required"}  # typed throws


@pytest.fixture
def table(tmp_path):
    with LiveTable(build_kit(FAST_KIT), tmp_path / "games.sqlite3", ["Ann", "Bob"]) as live:
        yield live


def events(live: LiveTable) -> list[dict]:
    return live.events()


def scoreboard_url(line: str) -> str:
    """The page's address from the line the command prints first."""
    found = re.search(r"scoreboard: (http://\S+)", line)
    assert found is not None, line
    return found.group(1)


@pytest.mark.slow
def test_the_page_loads_with_the_board_the_turn_and_the_players(chromium, table):
    page = chromium.new_page()
    page.goto(table.local_url)
    page.wait_for_selector("#tile-9[data-state=open]")
    assert page.title() == "Shut the Box"
    assert page.locator(".tile").count() == 9
    assert page.inner_text("#say") == "Ann: throw the dice"
    assert [c.strip() for c in page.locator("#standbody td:first-child").all_inner_texts()] == ["Ann", "Bob"]
    assert page.is_visible("#controls")  # on this computer the page may post without a code
    page.close()


@pytest.mark.slow
def test_tiles_follow_the_simulated_box(chromium, table):
    page = chromium.new_page()
    page.goto(table.local_url)
    page.wait_for_selector("#tile-4[data-state=open]")
    table.box.set_tile(4, True)  # before the turn's first throw: shown shut, marked, and to be put back
    page.wait_for_selector("#tile-4[data-state=shut].flag", timeout=5000)
    assert page.inner_text("#say") == "Ann's turn: open tile 4 to start with every tile open"
    table.box.set_tile(4, False)
    page.wait_for_selector("#tile-4[data-state=open]:not(.flag)", timeout=5000)
    assert page.inner_text("#say") == "Ann: throw the dice"
    page.close()


@pytest.mark.slow
def test_a_throw_tapped_on_the_page_is_recorded_and_the_move_on_the_box_follows(chromium, table):
    page = chromium.new_page()
    page.goto(table.local_url)
    page.wait_for_selector("#tile-9[data-state=open]")
    page.click("[data-die=a][data-value='6']")
    page.click("[data-die=b][data-value='6']")
    assert page.inner_text("#throw") == "Throw 6 + 6"
    page.click("#throw")
    page.wait_for_function("document.getElementById('total').textContent === '= 12'")
    assert events(table)[-1] == {"type": "throw", "dice": [6, 6]}
    assert page.locator("#dice .die").count() == 2
    table.box.set_tile(9, True)
    table.box.set_tile(3, True)
    page.wait_for_selector("#tile-3[data-state=shut]:not(.moving)")
    page.wait_for_function("document.getElementById('say').textContent === 'Ann: throw the dice'")
    assert events(table)[-1] == {"type": "shut", "tiles": [3, 9]}
    # typed throws: a press is never taken (a dead throw ends the turn), so the page shows no End button;
    # a refused post says why on the page, and nothing is recorded
    assert not page.is_visible("#end")
    page.evaluate("post('/api/end')")
    page.wait_for_selector("#answer.refused")
    assert "throw" in page.inner_text("#answer")  # the reason the rules engine gives
    assert events(table)[-1] == {"type": "shut", "tiles": [3, 9]}
    page.close()


@pytest.mark.slow
def test_the_api_state_events_and_posts(table):
    base = table.local_url
    state = httpx.get(base + "api/state").json()
    assert state["turn"] == "Ann" and state["open"] == list(range(1, 10)) and state["throw"] is None
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"] and not state["over"] and state["winner"] is None
    assert any(m["text"].startswith("game 1: Ann, Bob") for m in state["messages"])
    with httpx.stream("GET", base + "api/events", timeout=5) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        first = next(line for line in lines if line.startswith("data: "))
        assert json.loads(first[6:])["turn"] == "Ann"
        answer = httpx.post(base + "api/throw", json={"dice": [5, 4]})
        assert answer.status_code == 200 and answer.json()["ok"]
        assert answer.json()["messages"][0] == {"kind": "recorded", "text": "Ann threw 5 + 4 = 9"}
        pushed = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
        assert pushed["throw"] == {"dice": [5, 4], "total": 9}
    # the same checks as typed input: a second throw is refused, undo withdraws the first
    again = httpx.post(base + "api/throw", json={"dice": [1, 1]})
    assert again.status_code == 409 and again.json()["messages"][0]["kind"] == "refused"
    assert httpx.post(base + "api/undo", json={}).status_code == 200
    assert [e["type"] for e in events(table)] == ["players", "throw", "undo"]
    # box-less moves are refused while a box reports the tiles
    shut = httpx.post(base + "api/shut", json={"tiles": [9]})
    assert shut.status_code == 409 and "move the tiles on the box" in shut.json()["messages"][0]["text"]
    # malformed bodies, other content types, other methods
    assert httpx.post(base + "api/throw", json={"dice": "6 6"}).status_code == 400
    three = httpx.post(base + "api/throw", json={"dice": [1, 2, 3]})  # the rules say how many dice
    assert three.status_code == 409 and three.json()["messages"][0]["kind"] == "refused"
    assert httpx.post(base + "api/throw", json={"dice": [1] * 10}).status_code == 400
    assert httpx.post(base + "api/throw", content=b"{nope", headers={"content-type": "application/json"}) \
        .status_code == 400
    assert httpx.post(base + "api/throw", content=b"[" * 5000, headers={"content-type": "application/json"}) \
        .status_code == 413
    assert httpx.post(base + "api/throw", content=b"[" * 100 + b"]" * 100,
                      headers={"content-type": "application/json"}).status_code == 400
    assert httpx.post(base + "api/end", content=b"{}", headers={"content-type": "text/plain"}).status_code == 415
    assert httpx.post(base + "api/end", json={}, headers={"origin": "http://evil.example"}).status_code == 403
    rebound = {"host": "evil.example:80", "origin": "http://evil.example:80"}  # DNS rebinding to 127.0.0.1
    assert httpx.post(base + "api/end", json={}, headers=rebound).status_code == 403
    assert httpx.put(base + "api/state", json={}).status_code == 405
    assert httpx.post(base + "api/state", json={}).status_code == 405
    assert [e["type"] for e in events(table)] == ["players", "throw", "undo"]


@pytest.mark.slow
def test_shared_on_the_network_posts_need_the_join_code(chromium, tmp_path):
    with LiveTable(build_kit(FAST_KIT), tmp_path / "games.sqlite3", ["Ann", "Bob"], host="0.0.0.0") as live:
        assert live.web is not None
        code = live.web.join_code
        assert code is not None and re.fullmatch(r"[A-Z2-9]{6}", code)
        base = live.local_url
        assert httpx.post(base + "api/throw", json={"dice": [6, 6]}).status_code == 403
        assert httpx.post(base + "api/throw", json={"dice": [6, 6]}, headers={"x-join-code": "WRONG1"}) \
            .status_code == 403
        assert httpx.get(base + "api/state").status_code == 200  # spectators read
        assert [e["type"] for e in events(live)] == ["players"]
        spectator = chromium.new_page()
        spectator.goto(base)
        spectator.wait_for_selector("#tile-9[data-state=open]")
        assert not spectator.is_visible("#controls") and spectator.is_visible("#join")
        player = chromium.new_page()
        player.goto(f"{base}?code={code}")
        player.wait_for_selector("#controls:not(.hidden)")
        player.click("[data-die=a][data-value='3']")
        player.click("#throw")  # one die is refused while 7, 8, 9 are open: the rules still apply
        player.wait_for_selector("#answer.refused")
        player.click("[data-die=a][data-value='2']")
        player.click("[data-die=b][data-value='5']")
        player.click("#throw")
        spectator.wait_for_function("document.getElementById('total').textContent === '= 7'")
        assert events(live)[-1] == {"type": "throw", "dice": [2, 5]}
        # the spectator's page joins with the code typed in
        spectator.fill("#code", code.lower())
        spectator.click("#joinbtn")
        assert spectator.is_visible("#controls")
        spectator.close()
        player.close()


@pytest.mark.slow
def test_box_less_play_tiles_tapped_on_the_page(chromium, tmp_path):
    db = tmp_path / "games.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                             "--db", str(db), "--web", "0", "--hint"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = scoreboard_url(proc.stdout.readline())
        page = chromium.new_page()
        page.goto(url)
        page.wait_for_selector("#tile-9[data-state=open]")
        assert page.inner_text("#link") == "box-less: tap the tiles"
        page.click("[data-die=a][data-value='6']")
        page.click("[data-die=b][data-value='6']")
        page.click("#throw")
        page.wait_for_selector("#hint:not(.hidden)")
        assert page.inner_text("#hint").startswith("hint: best: shut 9 + 3")
        page.click("#tile-9")
        page.click("#tile-4")
        page.click("#shut")  # 13: refused by the rules engine, with its reason
        page.wait_for_selector("#answer.refused")
        assert "the throw was 12" in page.inner_text("#answer")
        page.click("#tile-4")
        page.click("#tile-3")
        assert page.inner_text("#shut") == "Shut 3 + 9"
        page.click("#shut")
        page.wait_for_selector("#tile-9[data-state=shut]")
        assert page.get_attribute("#tile-3", "data-state") == "shut"
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert "* Ann threw 6 + 6 = 12" in out and "* Ann shut 9 + 3" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_network_sharing_prints_the_join_code_and_a_qr_code(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                             "--db", str(tmp_path / "g.sqlite3"), "--web", "0.0.0.0:0"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate("quit\n", timeout=20)
    assert proc.returncode == 0, err
    code = re.search(r"players join with code ([A-Z2-9]{6}): http://\S+:\d+/\?code=\1", out)
    assert code, out
    assert re.search(r"scoreboard for spectators: http://\S+:\d+/$", out, re.M)
    assert sum(line.count("█") + line.count("▀") + line.count("▄") > 10 for line in out.splitlines()) >= 10


@pytest.mark.parametrize("value", first_fast(["abc", "70000", "host:", ":80x", "-1"]))
def test_a_bad_web_address_is_one_line_and_exit_2(cli, tmp_path, value):
    proc = cli("play", "--port", "none", "--players", "Ann,Bob", "--db", str(tmp_path / "g.sqlite3"), "--web", value)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--web" in proc.stderr and "[HOST:]PORT" in proc.stderr
    assert not (tmp_path / "g.sqlite3").exists()


@pytest.mark.slow
def test_sim_demo_serves_the_page_too(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "sim", "--demo", "--speed", "20", "--seed", "4",
                             "--web", "0", *("--debounce-ms", "5", "--scan-ms", "1")], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = scoreboard_url(proc.stdout.readline())
        seen: set[tuple[int, ...]] = set()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(seen) < 3:
            try:
                state = httpx.get(url + "api/state", timeout=2).json()
            except httpx.HTTPError:
                break  # the demo ended
            if state.get("open") is not None:
                seen.add(tuple(state["open"]))
            time.sleep(0.05)
        assert len(seen) >= 3  # the tiles moved while we watched
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_a_larger_set_on_the_page_three_dice_and_tiles_in_rows(chromium, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                             "--tiles", "15", "--dice", "3", "--db", str(tmp_path / "g.sqlite3"), "--web", "0"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = scoreboard_url(proc.stdout.readline())
        page = chromium.new_page(viewport={"width": 390, "height": 844})
        page.goto(url)
        page.wait_for_selector("#tile-15[data-state=open]")
        assert page.locator(".dice-row").count() == 3
        rows = {round(box["y"]) for box in (page.locator(f"#tile-{t}").bounding_box() for t in range(1, 16))}
        assert len(rows) == 2  # 15 tiles: two rows of at most 12 (8 and 7)
        for die, value in zip("abc", (6, 5, 4), strict=True):
            page.click(f"[data-die={die}][data-value='{value}']")
        assert page.inner_text("#throw") == "Throw 6 + 5 + 4"
        page.click("#throw")
        page.wait_for_function("document.getElementById('total').textContent === '= 15'")
        assert page.locator("#dice .die").count() == 3
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert "* Ann threw 6 + 5 + 4 = 15" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_a_port_in_use_is_one_line_and_nothing_is_written(cli, tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = cli("play", "--port", "none", "--players", "Ann,Bob", "--db", str(tmp_path / "g.sqlite3"),
                   "--web", str(port))
    assert proc.returncode == 2
    assert proc.stderr == f"shutbox: error: --web 127.0.0.1:{port}: cannot listen there (Address already in use)\n"
    assert not (tmp_path / "g.sqlite3").exists()


@pytest.mark.slow  # a browser
def test_the_long_game_page_shows_each_players_role(chromium, tmp_path):
    """The page asks the state, not the format's name, whether the players have roles."""
    kit = build_kit({**FAST_KIT, "rules.match": "long-game"})
    with LiveTable(kit, tmp_path / "games.sqlite3", ["Ann", "Bob"]) as live:
        page = chromium.new_page()
        page.goto(live.local_url)
        page.wait_for_selector("#standbody td")
        assert page.locator("#standhead th").all_inner_texts()[:3] == ["player", "role", "left last turn"]
        assert [c.strip() for c in page.locator("#standbody td:nth-child(2)").all_inner_texts()] == ["shuts",
                                                                                                   "uncovers"]
        page.close()
