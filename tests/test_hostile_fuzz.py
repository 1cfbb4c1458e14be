"""A seeded fuzz of every command's flags and of the web API's bodies and headers (issue 29, item 5).

Every command is given random flags with hostile values (huge and tiny numbers, NaN, control characters, line
separators, paths to the user's own files, folders and devices). Commands that finish quickly are run (in this
process, through ``shutbox.cli.parser.main``); the long-running ones (a CAD build, a live game, the firmware) are parsed
and their settings resolved, which is where their input is checked. The web API gets random methods, paths,
headers and bodies against a real scorekeeper. Counted, and printed with ``-s``: cases tried, tracebacks
(internal errors), HTTP 500s, and the user's files lost or changed — each must be 0 but the first.
Seeded (``FUZZ_SEED``, default 29), so a failure is reproduced by running the test again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import socket
import sqlite3
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.cli.parser import build_parser, main
from tests.crowd_support import quit_play, request, start_play

SEED = int(os.environ.get("FUZZ_SEED", "29"))
CLI_CASES = 1500
WEB_CASES = 400

#: Commands run for real (each case takes milliseconds to a second); the others are parsed and resolved only.
RUN = {"config", "solve", "advise", "history", "review", "stats", "scorepad", "card"}

HOSTILE = ["", " ", "0", "-1", "1", "2", "3", "9", "12", "54", "99999999999999999999999", "9" * 5000, "1e-300",
           "1e300", "nan", "inf", "-inf", "0.0000001", "3.5", "1,2,3", "1 2 3", "a,b,,c", "on", "off", "none", "auto",
           "é", "\x1b[2J", "a\u2028b", "\u3164", "\u202e", "\x00", "\ud800", "x" * 300, "../../etc/passwd",
           "/dev/null", "/proc/self/mem", "-", "--", "=", "@", "=HYPERLINK(\"x\")", "Ann,Bob", "Ann,Ann", "3 4",
           "round", "long-game", "digits", "mk4", "250x210x220", "1x1x1", "shut", "score"]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "<gone>"


@pytest.fixture
def users_files(tmp_path):
    """A folder with the user's own files: a document, a PDF that is not one of ours, notes, a game database."""
    from shutbox.companion.store.database import GameStore
    from shutbox.game import events as ev
    from shutbox.game.gamefile import settings_of
    from shutbox.kit.model import Rules

    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (home / "thesis.pdf").write_text("not a PDF: my thesis\n", encoding="utf-8")
    (home / "table.csv").write_text("name,score\nAnn,3\n", encoding="utf-8")
    (home / "folder").mkdir()
    (home / "folder" / "keep.txt").write_text("keep\n", encoding="utf-8")
    with GameStore(home / "games.sqlite3") as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        store.append(gid, ev.throw(3, 4))
    return home


def _values(rng: random.Random, home: Path) -> list[str]:
    return HOSTILE + [str(home / name) for name in ("notes.txt", "thesis.pdf", "table.csv", "folder", "games.sqlite3",
                                                    "new.pdf", "new.csv", "out", "folder/keep.txt")]


def _commands() -> dict[str, list[tuple[list[str], argparse.ArgumentParser]]]:
    """Every command (and action) with its parser."""
    parser = build_parser()
    found: dict[str, list[tuple[list[str], argparse.ArgumentParser]]] = {}
    top = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    for name, sub in top.choices.items():
        entries = [([name], sub)]
        for action in sub._actions:  # noqa: SLF001
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                entries += [([name, inner], p) for inner, p in action.choices.items()]
        found[name] = entries
    return found


def _argv(rng: random.Random, words: list[str], parser: argparse.ArgumentParser, values: list[str]) -> list[str]:
    options = [a for a in parser._actions if a.option_strings and a.dest != "help"]  # noqa: SLF001
    positional = [a for a in parser._actions if not a.option_strings and not isinstance(  # noqa: SLF001
        a, argparse._SubParsersAction)]  # noqa: SLF001
    argv = list(words)
    argv += [rng.choice(values) for _ in positional]
    for action in rng.sample(options, min(len(options), rng.randint(1, 4))):
        flag = rng.choice(action.option_strings)
        if action.nargs == 0:
            argv.append(flag)
        else:
            argv += [flag, rng.choice(values)] if rng.random() < 0.8 else [f"{flag}={rng.choice(values)}"]
    return argv


@pytest.mark.slow  # hundreds of fuzzed command lines
def test_fuzz_every_commands_flags(users_files, monkeypatch, capsys, record_property):
    home = users_files
    monkeypatch.chdir(home)
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.delenv("SHUTBOX_DEBUG", raising=False)
    rng = random.Random(SEED)
    values = _values(rng, home)
    commands = _commands()
    before = {p: _digest(p) for p in home.rglob("*") if p.is_file()}
    tried = tracebacks = 0
    codes: dict[int, int] = {}
    failures: list[str] = []
    for _ in range(CLI_CASES):
        name = rng.choice(sorted(commands))
        words, parser = rng.choice(commands[name])
        argv = _argv(rng, words, parser, values)
        if name == "cache" and "clear" in argv:
            continue  # it removes the (test's own) caches by design
        if name in RUN and not (name == "review" and "--full" in argv):
            try:
                code = main(argv)
            except SystemExit as exit_:  # a usage error, --help: argparse's own exit
                code = int(exit_.code or 0) if not isinstance(exit_.code, str) else 2
        else:
            code = _parse_and_resolve(argv)
        tried += 1
        codes[code] = codes.get(code, 0) + 1
        out, err = capsys.readouterr()
        if code == 70 or "Traceback" in err or "internal error" in err:
            tracebacks += 1
            failures.append(f"{argv!r}: {err[-300:]}")
        elif code not in (0, 1, 2):
            failures.append(f"{argv!r}: exit {code}")
        if code == 2 and err.count("\n") != 1:
            failures.append(f"{argv!r}: not one line: {err[-300:]!r}")
        if err and not err.replace("\n", "").isprintable():
            failures.append(f"{argv!r}: unescaped text on stderr: {err[-300:]!r}")
    lost = [str(p) for p, digest in before.items() if _digest(p) != digest]
    record_property("cli_cases", tried)
    print(f"\nCLI fuzz (seed {SEED}): {tried} cases (exit status: {dict(sorted(codes.items()))}), {tracebacks} "
          f"tracebacks, {len(lost)} files lost or changed")
    assert not failures, "\n".join(failures[:10])
    assert not lost, lost
    assert tried >= CLI_CASES * 0.9


def _parse_and_resolve(argv: list[str]) -> int:
    """What a long-running command checks before it starts: its flags and its settings."""
    from shutbox.cli.parser import _Parser  # noqa: F401 - the parser main() builds
    from shutbox.kit.config import resolve

    parser = build_parser(argv[0])
    try:
        args = parser.parse_args(argv)
        if getattr(args, "command_spec", None) is not None and args.command_spec.settings:
            resolve(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    except ShutboxError as exc:
        import sys

        sys.stderr.write(f"shutbox: error: {exc}\n")
        return 2
    except Exception as exc:  # noqa: BLE001 - counted as a traceback
        import sys
        import traceback

        sys.stderr.write("Traceback (fuzz)\n" + "".join(traceback.format_exception(exc))[-300:])
        return 70
    return 0


# -- the web API ----------------------------------------------------------------------------------------------------

PATHS = ["/", "/api/state", "/api/events", "/api/throw", "/api/shut", "/api/end", "/api/undo", "/api/nothing",
         "/api/throw?code=%C3%A9", "/api/throw?code=%FF%FE", "/%00", "/api/../api/state", "/review", "/stats",
         "/api/games", "/api/stats", "/api/review/1", "/api/review/0", "/api/review/99999999999999999999999",
         "/api/review/%C2%B2", "/api/review/-1", "/api/review/1e3",
         "/api/throw?" + "a=1&" * 500, "/" + "x" * 5000]
BODIES = [b"", b"{}", b'{"dice": [3, 4]}', b'{"dice": [6, 6, 6, 6, 6, 6, 6, 6, 6, 6]}', b'{"dice": [0]}',
          b'{"dice": [1e300]}', b'{"dice": [NaN]}', b'{"dice": "3 4"}', b'{"tiles": [7]}', b'{"tiles": [99999999999]}',
          b"[" * 10000, b'{"dice": [' + b"9" * 5000 + b"]}", b"\xff\xfe\x00", b'{"dice": [true, false]}',
          b'{"tiles": [' + b"1," * 2000 + b"1]}", b"x" * 10000, b'{"a": "\\ud800"}']
HEADERS = [{}, {"Content-Type": "text/plain"}, {"Content-Type": "application/json; charset=latin-1"},
           {"Origin": "http://evil.example"}, {"Host": "evil.example"}, {"X-Join-Code": "\xe9"},
           {"X-Join-Code": "A" * 5000}, {"Content-Length": "999999"}, {"Transfer-Encoding": "chunked"},
           {"Accept": "text/event-stream"}, {"Origin": "null"}, {"Cookie": "a=" + "b" * 3000}]


@pytest.mark.slow  # hundreds of fuzzed requests against a live server
def test_fuzz_the_web_api(tmp_path, record_property):
    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db)
    rng = random.Random(SEED)
    statuses: dict[object, int] = {}
    tried = 0
    try:
        for _ in range(WEB_CASES):
            method = rng.choice(["GET", "POST", "POST", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH"])
            path = rng.choice(PATHS)
            headers = {"Content-Type": "application/json", **rng.choice(HEADERS)}
            body = rng.choice(BODIES) if method != "GET" else None
            tried += 1
            if rng.random() < 0.1:
                status: object = _raw(port, rng)
            elif path == "/api/events" and method == "GET":
                status = _raw(port, rng, b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            else:
                try:
                    status = _send(port, method, path, body, headers)
                except (OSError, ValueError) as exc:
                    status = type(exc).__name__
            statuses[status] = statuses.get(status, 0) + 1
        alive, state = request(port, "GET", "/api/state")
    finally:
        err = quit_play(proc, db)
    with sqlite3.connect(db) as con:  # the record is whole: every saved event replays
        events = con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    tracebacks = err.count("Traceback")
    record_property("web_cases", tried)
    print(f"\nweb fuzz (seed {SEED}): {tried} requests, {statuses.get(500, 0)} answered 500, {tracebacks} tracebacks; "
          f"answers {dict(sorted(statuses.items(), key=str))}")
    assert alive == 200 and state.get("players"), "the scoreboard still answers"
    assert statuses.get(500, 0) == 0, statuses
    assert tracebacks == 0, err[-3000:]
    failed = [line for line in err.splitlines() if line.startswith("web:") and " failed (" in line]
    assert not failed, failed  # the guard caught an error of the app: a bug, even if answered 503
    assert events >= 1


def _send(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> int | str:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)  # a body promised but not sent: the server waits
    try:
        conn.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
        for key, value in headers.items():
            conn.putheader(key, value.encode("latin-1", "replace"))
        if body is not None and "Content-Length" not in headers and "Transfer-Encoding" not in headers:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body if body is not None and "Content-Length" not in headers else None)
        answer = conn.getresponse()
        answer.read()
        return answer.status
    except TimeoutError:
        return "waited for the promised body"
    except http.client.HTTPException as exc:  # the server closed the connection: not a 500
        return type(exc).__name__
    finally:
        conn.close()


def _raw(port: int, rng: random.Random, data: bytes | None = None) -> object:
    """Bytes on a socket that may not be HTTP at all, then hang up (maybe before the answer)."""
    if data is None:
        data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))
        if rng.random() < 0.5:
            data = b"POST /api/throw HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n" + data[:20]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(data)
            s.settimeout(0.3)
            try:
                head = s.recv(64)
            except TimeoutError:
                return "hung up"
        parts = head.split(b" ")
        return int(parts[1]) if head.startswith(b"HTTP/") and len(parts) > 1 and parts[1].isdigit() else "closed"
    except OSError as exc:
        return type(exc).__name__
