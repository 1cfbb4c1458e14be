"""A crowd against the web scoreboard (issue 29): a real ``shutbox play --port none --web`` process, idle TCP
connections kept open (reopened when the server closes them), server-sent-event spectators timing each state they
receive, and a game played through the API meanwhile. Used by tests/test_hostile_web.py and bench/web_crowd.py."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any


def start_play(db: Path, *, host: str = "127.0.0.1", files: int | None = None,
               extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], int, str | None]:
    """``shutbox play --port none`` with the web page on a free port; (process, port, join code)."""

    def limit_files() -> None:
        if files is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    out, err = db.with_suffix(".stdout"), db.with_suffix(".stderr")
    with open(out, "w") as out_file, open(err, "w") as err_file:
        proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                                 "--web", f"{host}:0", "--db", str(db), *extra],
                                stdin=subprocess.PIPE, stdout=out_file, stderr=err_file, text=True,
                                preexec_fn=limit_files, env={**os.environ, "COLUMNS": "200"})
    port, code = 0, None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not port and proc.poll() is None:
        for line in out.read_text(errors="replace").splitlines():
            found = re.search(r"http://[^ ]+:(\d+)/(?:\?code=(\w+))?", line)
            if found:
                port, code = int(found.group(1)), found.group(2) or code
        if host != "127.0.0.1" and not code:
            port = 0
        time.sleep(0.05)
    assert port, f"the scoreboard never said where it is: {err.read_text()[-2000:]}"
    wait_for_game(port)
    return proc, port, code


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            timeout: float = 15) -> tuple[int, dict[str, Any]]:
    """One HTTP request on a connection of its own; (status, JSON answer or {})."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json",
                                                       "Host": f"127.0.0.1:{port}", **(headers or {})})
        answer = conn.getresponse()
        raw = answer.read()
        try:
            return answer.status, json.loads(raw) if raw else {}
        except ValueError:
            return answer.status, {"raw": raw[:200].decode("latin-1")}
    finally:
        conn.close()


def wait_for_game(port: int, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, state = request(port, "GET", "/api/state")
        if status == 200 and state.get("players"):
            return state
        time.sleep(0.1)
    raise AssertionError("the game did not start")


@dataclass
class Played:
    """A game played through the API: what was accepted, when, and the states the answers carried."""

    accepted: list[tuple[str, Any]] = field(default_factory=list)
    answers: list[tuple[float, dict[str, Any]]] = field(default_factory=list)  #: (time sent, state)
    statuses: dict[int, int] = field(default_factory=dict)


def _shut_choice(open_tiles: list[int], total: int, rng: random.Random) -> list[int] | None:
    options = [list(c) for n in range(1, len(open_tiles) + 1) for c in combinations(open_tiles, n) if sum(c) == total]
    return rng.choice(options) if options else None


def play_game(port: int, seed: int = 1, headers: dict[str, str] | None = None, pause_s: float = 0.0,
              max_posts: int = 400) -> Played:
    """Throw and shut through the API until the game is over (random dice, a random legal move)."""
    rng = random.Random(seed)
    played = Played()

    def post(path: str, body: Any) -> dict[str, Any]:
        sent = time.monotonic()
        status, answer = request(port, "POST", path, body, headers)
        played.statuses[status] = played.statuses.get(status, 0) + 1
        if status == 200:
            played.accepted.append((path, body))
            played.answers.append((sent, answer["state"]))
        return answer

    state = wait_for_game(port)
    for _ in range(max_posts):
        if state.get("over"):
            break
        dice = [rng.randint(1, 6) for _ in range(state["rules"]["dice"])]
        answer = post("/api/throw", {"dice": dice})
        state = answer.get("state") or request(port, "GET", "/api/state")[1]
        if state.get("over"):
            break
        pending = state.get("throw")
        if pending:
            choice = _shut_choice(state["open"], sum(dice), rng)
            if choice is not None:
                answer = post("/api/shut", {"tiles": choice})
                state = answer.get("state") or request(port, "GET", "/api/state")[1]
        if pause_s:
            time.sleep(pause_s)
    return played


class Crowd:
    """Idle connections and SSE spectators on a thread of their own (an asyncio loop)."""

    def __init__(self, port: int, idle: int, spectators: int) -> None:
        self.port, self.idle_wanted, self.spectators = port, idle, spectators
        self.received: list[list[tuple[float, str]]] = [[] for _ in range(spectators)]
        self.idle_open = 0
        self.idle_made = 0
        self.idle_closed_by_server = 0
        self.refused_503 = 0
        self.connect_errors = 0
        self.spectators_connected = 0
        self._stop = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()

    def __enter__(self) -> Crowd:
        self._thread.start()
        self._ready.wait(120)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        watchers = [asyncio.ensure_future(self._spectate(i)) for i in range(self.spectators)]
        for _ in range(200):  # the spectators are at the table first
            if self.spectators_connected >= self.spectators:
                break
            await asyncio.sleep(0.05)
        idlers = [asyncio.ensure_future(self._idle()) for _ in range(self.idle_wanted)]
        for _ in range(600):
            if self.idle_made >= self.idle_wanted:
                break
            await asyncio.sleep(0.05)
        self._ready.set()
        while not self._stop.is_set():
            await asyncio.sleep(0.05)
        for task in watchers + idlers:
            task.cancel()
        await asyncio.gather(*watchers, *idlers, return_exceptions=True)

    async def _idle(self) -> None:
        """One idle connection, reopened whenever the server closes it."""
        while not self._stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                self.connect_errors += 1
                await asyncio.sleep(0.2)
                continue
            self.idle_made += 1
            self.idle_open += 1
            try:
                data = await reader.read(200)  # the server's 503, or b"" when it closes the connection
                if data.startswith(b"HTTP/1.1 503"):
                    self.refused_503 += 1
                else:
                    self.idle_closed_by_server += 1
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                self.idle_open -= 1
                writer.close()
            await asyncio.sleep(0.1)

    async def _spectate(self, index: int) -> None:
        """A page's event stream: every ``data:`` line's state, with the time it arrived."""
        while not self._stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode())
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
                if b" 200 " not in head.split(b"\r\n", 1)[0]:
                    writer.close()
                    await asyncio.sleep(1)
                    continue
                self.spectators_connected += 1
                buffer = b""
                while True:
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    buffer += chunk
                    for line in buffer.split(b"\n")[:-1]:
                        if line.startswith(b"data: "):
                            self.received[index].append((time.monotonic(), line[6:].decode()))
                    buffer = buffer.split(b"\n")[-1]
                writer.close()
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                await asyncio.sleep(0.5)


def update_delays(played: Played, crowd: Crowd) -> list[float]:
    """For every accepted move and every spectator: seconds from sending the move to receiving its state."""
    delays = []
    for sent, state in played.answers:
        for stream in crowd.received:
            arrived = next((t for t, text in stream if t >= sent and _same_state(text, state)), None)
            delays.append(float("inf") if arrived is None else arrived - sent)
    return delays


def _same_state(text: str, state: dict[str, Any]) -> bool:
    try:
        seen = json.loads(text)
    except ValueError:
        return False
    return seen.get("messages") == state.get("messages") and seen.get("open") == state.get("open")


def recorded_moves(db: Path) -> list[dict[str, Any]]:
    """The throws and shuts saved for game 1 (read with a connection of the test's own)."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT event FROM events WHERE game_id = 1 ORDER BY seq").fetchall()
    events = [json.loads(r[0]) for r in rows]
    return [e for e in events if e.get("type") in ("throw", "shut")]


def quit_play(proc: subprocess.Popen[str], db: Path) -> str:
    """Stop the scorekeeper as a user would (Ctrl-C) and return what it said on stderr."""
    import signal

    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return db.with_suffix(".stderr").read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
