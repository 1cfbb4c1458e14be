"""The web scoreboard under a crowd and an attacker (issue 29, faults 3, 4, 5 and the join-code rate limit).

Each test runs a real ``shutbox play --port none --web`` process and plays its game through the API. The crowd
test lowers the process's file limit (``RLIMIT_NOFILE``) to 256, so a few hundred idle connections do what a
thousand did at 1,024: the game must go on, every move recorded, the pages updated, one terminal line.
bench/web_crowd.py measures the full size (1,000 idle connections and 100 spectators).
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from shutbox.companion.web.guard import WRONG_CODES, Guard, connection_limit, same_code
from tests.crowd_support import Crowd, play_game, quit_play, recorded_moves, request, start_play


def no_traceback(err: str) -> None:
    assert "Traceback" not in err and "Exception in ASGI" not in err, err[-3000:]


# -- the pieces -------------------------------------------------------------------------------------------------


def test_the_connection_limit_keeps_files_for_the_game():
    assert connection_limit(1024, in_use=30) == 1024 - 30 - 48 - 32
    assert connection_limit(256, in_use=30) < 256 - 30
    assert connection_limit(1_000_000, in_use=30) == 4096
    assert connection_limit(40, in_use=30) == 1


@pytest.mark.parametrize("given", ["é", "Ã©", "ABCDE\u0301", "\ud800", "", " ", "x" * 10_000, "abcdef", "ABCDEG"])
def test_a_join_code_of_any_text_is_compared_without_error(given):
    assert not same_code(given, "ABCDEF") or given.strip().upper() == "ABCDEF"
    assert same_code(" abcdef ", "ABCDEF")


def test_wrong_codes_from_one_client_wait_and_others_do_not():
    now = [0.0]
    guard = Guard(files=1024, say=lambda text: None, clock=lambda: now[0])
    for _ in range(WRONG_CODES):
        refused = guard.check_code("10.0.0.1", "WRONG1", "ABCDEF")
        assert refused is not None and refused[0] == 403
    refused = guard.check_code("10.0.0.1", "ABCDEF", "ABCDEF")  # even the right code waits now
    assert refused is not None
    status, reason, wait = refused
    assert status == 429 and "wait" in reason and 59 <= wait <= 60
    assert guard.check_code("10.0.0.2", "ABCDEF", "ABCDEF") is None
    now[0] = 61.0
    assert guard.check_code("10.0.0.1", "ABCDEF", "ABCDEF") is None


# -- the real server ----------------------------------------------------------------------------------------------


@pytest.mark.slow  # holds a crowd of connections open for seconds
def test_a_crowd_of_idle_connections_does_not_end_the_game(tmp_path):
    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db, files=256)
    try:
        with Crowd(port, idle=300, spectators=10) as crowd:
            played = play_game(port, seed=2)
            time.sleep(1.0)
            status, state = request(port, "GET", "/api/state")
            page, _ = request(port, "GET", "/")
        assert state["over"], "the game was played to its end"
        assert crowd.idle_made >= 300 and crowd.spectators_connected >= 10
        assert set(played.statuses) == {200}, played.statuses
        assert page == 200
        for stream in crowd.received:  # every page saw the last state
            assert stream and '"over":true' in stream[-1][1]
    finally:
        err = quit_play(proc, db)
    moves = recorded_moves(db)
    assert len(moves) == len(played.accepted)  # every move recorded
    no_traceback(err)
    assert "changed by another scorekeeper" not in err
    assert len([line for line in err.splitlines() if line.startswith("web:")]) <= 3, err


@pytest.mark.slow  # waits out the rate limit
def test_non_ascii_join_codes_are_refused_cleanly_and_wrong_ones_are_rate_limited(tmp_path):
    db = tmp_path / "g.sqlite3"
    proc, port, code = start_play(db, host="0.0.0.0")
    try:
        assert code
        throw = {"dice": [3, 4]}
        assert request(port, "POST", "/api/throw", throw, {"X-Join-Code": "é".encode().decode("latin-1")})[0] == 403
        status, answer = request(port, "POST", "/api/throw?code=%C3%A9", throw)
        assert status == 403 and answer["error"].startswith("wrong join code")
        for _ in range(WRONG_CODES - 2):
            assert request(port, "POST", "/api/throw?code=WRONG9", throw)[0] == 403
        status, answer = request(port, "POST", f"/api/throw?code={code}", throw)
        assert status == 429 and "wait" in answer["error"]
        assert request(port, "GET", "/api/state")[0] == 200  # spectators still watch
    finally:
        err = quit_play(proc, db)
    no_traceback(err)
    assert err.count("wrong join codes") == 1, err


@pytest.mark.slow  # a live server through a game and its shutdown
def test_a_browser_leaving_mid_request_and_posts_while_quitting_are_no_traceback_and_no_500(tmp_path):
    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db)
    statuses: dict[object, int] = {}
    stop = threading.Event()

    def spam() -> None:
        while not stop.is_set():
            try:
                status, _ = request(port, "POST", "/api/throw", {"dice": [1, 1]}, timeout=5)
            except OSError as exc:
                status = type(exc).__name__
            statuses[status] = statuses.get(status, 0) + 1

    try:
        for head in (b"POST /api/throw HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"dice\"",
                     b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                     b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(head)
                time.sleep(0.2)
        spammers = [threading.Thread(target=spam) for _ in range(4)]
        for t in spammers:
            t.start()
        time.sleep(0.5)
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    finally:
        stop.set()
        err = quit_play(proc, db)
    for t in spammers:
        t.join()
    assert 500 not in statuses, statuses
    assert statuses.get(200, 0) + statuses.get(409, 0) > 0, statuses
    no_traceback(err)
