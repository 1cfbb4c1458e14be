"""The web scoreboard's guard against crowds and attackers: a connection limit, a join-code rate limit, a safe code
compare, and one terminal line instead of tracebacks.

- **Connections**: a process may open only so many files (``RLIMIT_NOFILE``; raised to its hard limit, at most
  :data:`WANTED_FILES`). The server takes at most :func:`connection_limit` connections at once and keeps the rest
  of the files for the game (its database, lock, serial port, the firmware's pseudo-terminal). When they are all
  taken, the connection that has sent nothing for longest is closed to make room (an idle crowd gives way to
  pages that ask for something); when none is silent, the new one is answered ``503`` and closed at once, so
  the game and the connected pages go on. A connection that sends nothing for :data:`FIRST_REQUEST_S` is closed.
- **Slow clients**: a request's headers must arrive within :data:`HEADERS_S` of its first byte, and its body at
  :data:`MIN_BODY_BYTES` at least every :data:`BODY_WINDOW_S` (while the server reads it); a client slower than
  that is answered ``408`` and closed. When every slot is taken and none is silent, the connection whose request
  has been arriving longest gives way (after the silent ones): slots are kept for pages that ask for something.
- **Join codes**: compared as UTF-8 bytes in constant time (any text a header or a URL carries, ``é`` too); a
  client that gave :data:`WRONG_CODES` wrong codes within :data:`WRONG_WINDOW_S` is answered ``429`` with the wait
  (``Retry-After``), whatever code it sends, until the oldest of them is that old.
- **Failures**: a browser that goes away mid-request, a request that arrives while the server stops, or any error
  of the app is answered (when the client is still there) with a short JSON error, never a traceback; what the
  terminal shows is one line (:meth:`Guard.say`), repeated at most every :data:`SAY_EVERY_S`.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from shutbox.base.text import safe_line

#: Files the process asks for (its soft ``RLIMIT_NOFILE``), if the hard limit allows.
WANTED_FILES = 8192
#: Most connections served at once, however many files the process may open.
MAX_CONNECTIONS = 4096
#: Files kept for the game whatever the crowd (its database, lock, port, solver cache, pseudo-terminal …).
KEPT_FILES = 48
#: Connections the server accepts in one go (asyncio's accept batch): each costs a file until it is refused.
BACKLOG = 16
#: Connections the kernel queues for the server meanwhile (its listen backlog once serving; they cost no file).
LISTEN_QUEUE = 1024
#: Seconds a new connection may stay silent before it is closed.
FIRST_REQUEST_S = 10.0
#: Seconds a request's headers may take from its first byte.
HEADERS_S = 10.0
#: A body must bring at least this many bytes in every window of :data:`BODY_WINDOW_S` seconds (about 1 kB/s).
MIN_BODY_BYTES = 10 * 1024
BODY_WINDOW_S = 10.0
#: How often a connection with a request under way is looked at.
SLOW_CHECK_S = 1.0
#: Wrong join codes one client may send within :data:`WRONG_WINDOW_S` seconds.
WRONG_CODES = 10
WRONG_WINDOW_S = 60.0
#: Clients whose wrong codes are remembered (the oldest forgotten first).
CLIENTS_KEPT = 4096
#: A repeated terminal line (the crowd is still there) is said again at most this often.
SAY_EVERY_S = 30.0

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
         b"Connection: close\r\nContent-Length: 73\r\n\r\n"
         b'{"ok": false, "error": "the scoreboard is full; try again in a few seconds"}')
_SLOW = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nConnection: close\r\n"
         b"Content-Length: 57\r\n\r\n"
         b'{"ok": false, "error": "the request arrived too slowly"}')


def open_files_limit() -> int:
    """The files this process may open, after raising the soft limit towards :data:`WANTED_FILES`."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return 512
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = WANTED_FILES if hard == resource.RLIM_INFINITY else min(WANTED_FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return WANTED_FILES if soft == resource.RLIM_INFINITY else int(soft)


def files_in_use() -> int:
    """Files this process has open now (``/proc/self/fd``; a guess of 32 elsewhere)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 32


def connection_limit(files: int, in_use: int | None = None) -> int:
    """Connections served at once when the process may open ``files`` files and has ``in_use`` open: what is left
    after the files in use, :data:`KEPT_FILES` for the game and two accept bursts (:data:`BACKLOG`)."""
    used = files_in_use() if in_use is None else in_use
    return max(1, min(MAX_CONNECTIONS, files - used - KEPT_FILES - 2 * BACKLOG))


def same_code(given: str, expected: str) -> bool:
    """Is ``given`` (as typed: any case, spaces around it, any characters) the join code? Constant time."""
    typed = given.strip().upper().encode("utf-8", "surrogatepass")
    return secrets.compare_digest(typed, expected.upper().encode("utf-8"))


class Guard:
    """The limits of one web scoreboard (see the module docstring); shared by its connections and its routes."""

    def __init__(self, *, files: int | None = None, say: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.files = open_files_limit() if files is None else files
        self.limit = connection_limit(self.files)  #: connections served at once
        self.refused = 0  #: connections answered 503 since the start
        self.evicted = 0  #: silent connections closed to make room
        self.peak = 0
        self._admitted: dict[Any, None] = {}  #: connections being served, oldest first
        self._silent: dict[Any, None] = {}  #: of those, the ones that have sent nothing yet
        self._arriving: dict[Any, None] = {}  #: of those, the ones whose request is arriving, longest first
        self.slow = 0  #: connections closed for sending their request too slowly
        self._clock = clock
        self._say = say or _stderr_line
        self._said: dict[str, float] = {}
        self._wrong: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    # -- the terminal ----------------------------------------------------------------------------

    def say(self, key: str, text: str) -> None:
        """One line on the terminal, unless the same kind was said within :data:`SAY_EVERY_S`."""
        now = self._clock()
        if now - self._said.get(key, -SAY_EVERY_S - 1) < SAY_EVERY_S:
            return
        self._said[key] = now
        try:
            self._say(safe_line(text))
        except (OSError, ValueError):  # the terminal itself is gone
            pass

    # -- connections -----------------------------------------------------------------------------

    def admit(self, conn: Any) -> bool:
        """Take connection ``conn``, if there is room — made, when full, by closing the connection that has been
        silent longest (an idle crowd gives way to pages that ask for something); else count it refused."""
        if len(self._admitted) >= self.limit and (self._silent or self._arriving):
            oldest = next(iter(self._silent or self._arriving))
            self.evicted += 1
            self.say("idle", f"web: {self.limit} connections at once (this process may open {self.files} files); the "
                             "oldest silent ones are closed to make room — the game goes on")
            self.release(oldest)
            oldest.close_silently()
        if len(self._admitted) >= self.limit:
            self.refused += 1
            self.say("crowd", f"web: more than {self.limit} connections at once (this process may open {self.files} "
                              f"files); answering the rest 503 — the game goes on ({self.refused} refused so far)")
            return False
        self._admitted[conn] = None
        self._silent[conn] = None
        self.peak = max(self.peak, len(self._admitted))
        return True

    def spoke(self, conn: Any) -> None:
        """``conn`` sent its first bytes: no longer the first to give way."""
        self._silent.pop(conn, None)

    def arriving(self, conn: Any, under_way: bool) -> None:
        """``conn``'s request is arriving (``under_way``) or complete: one arriving longest gives way next."""
        if not under_way:
            self._arriving.pop(conn, None)
        elif conn in self._admitted and conn not in self._arriving:
            self._arriving[conn] = None

    def too_slow(self) -> None:
        """A connection was closed for sending its request too slowly."""
        self.slow += 1
        self.say("slow", "web: closed a connection that sent its request too slowly (headers within "
                         f"{HEADERS_S:.0f} s, a body at {MIN_BODY_BYTES // 1024} kB every {BODY_WINDOW_S:.0f} s) — "
                         f"the game goes on ({self.slow} so far)")

    def release(self, conn: Any) -> bool:
        """``conn`` is closed; False when it had been released already."""
        self._silent.pop(conn, None)
        self._arriving.pop(conn, None)
        return self._admitted.pop(conn, 0) is None

    @property
    def open(self) -> int:
        """Connections being served now."""
        return len(self._admitted)

    def summary(self) -> str | None:
        """What the crowd cost, for the terminal when the server stops; None if there was no crowd."""
        if not self.evicted and not self.refused:
            return None
        return (f"web: {self.evicted} silent connections closed to make room and {self.refused} answered 503 "
                f"(at most {self.peak} at once, limit {self.limit})")

    # -- join codes ------------------------------------------------------------------------------

    def wait_s(self, client: str) -> float:
        """Seconds ``client`` must wait before a join code of its is looked at again (0: it may try now)."""
        with self._lock:
            tries = self._wrong.get(client)
            if not tries:
                return 0.0
            now = self._clock()
            while tries and now - tries[0] >= WRONG_WINDOW_S:
                tries.popleft()
            if len(tries) < WRONG_CODES:
                return 0.0
            return WRONG_WINDOW_S - (now - tries[0])

    def wrong_code(self, client: str) -> None:
        """Note a wrong join code from ``client``."""
        with self._lock:
            if client not in self._wrong and len(self._wrong) >= CLIENTS_KEPT:
                self._wrong.pop(next(iter(self._wrong)))
            tries = self._wrong.setdefault(client, deque(maxlen=WRONG_CODES))
            tries.append(self._clock())
            if len(tries) == WRONG_CODES:
                self.say(f"codes {client}", f"web: {WRONG_CODES} wrong join codes from {client} within "
                                            f"{WRONG_WINDOW_S:.0f} s; it waits before it may try again")

    def check_code(self, client: str, given: str, expected: str) -> tuple[int, str, float] | None:
        """(status, reason, wait) when a POST's join code must be refused: 429 while ``client`` waits, 403 for no
        code or a wrong one; None when it is the code."""
        wait = self.wait_s(client)
        if wait > 0:
            seconds = max(1, int(wait + 0.999))
            return 429, f"too many wrong join codes from this device; wait {seconds} s and try again", seconds
        if not given.strip():
            return 403, "a join code is needed to play from this device (spectators only watch)", 0.0
        if not same_code(given, expected):
            self.wrong_code(client)
            return 403, ("wrong join code: the scorekeeper's screen shows the right one (\"players join with code "
                         "…\", with a QR code to scan)"), 0.0
        return None

    # -- the server's event loop -----------------------------------------------------------------

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """asyncio's exception handler for the server's loop: one line (at most every :data:`SAY_EVERY_S`), no
        traceback; running out of files to accept with is said plainly."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
            self.say("files", f"web: out of files to accept connections with ({exc.strerror}); new connections wait "
                              "— the game goes on")
            return
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return  # a client that went away
        what = f"{type(exc).__name__}: {exc}" if exc is not None else str(context.get("message", "?"))
        self.say(f"loop {type(exc).__name__}", f"web: {what}")


def _stderr_line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class _SlowWatch:
    """For :func:`guarded_protocol`: closes a client whose request arrives too slowly (see the module docstring)."""

    _guard: Guard
    _watch: asyncio.TimerHandle | None = None
    _phase = ""  #: what of a request is arriving: "headers", "body" or ""
    _since = 0.0
    _bytes = 0
    conn: Any
    flow: Any
    loop: Any
    cycle: Any
    transport: Any

    def close_silently(self) -> None:
        raise NotImplementedError

    def _under_way(self) -> str:
        """What of the client's request is still arriving: "headers", "body" (while it is read) or ""."""
        state = getattr(self.conn.their_state, "__name__", "")  # h11's states are named sentinels
        if state == "IDLE":
            return "headers" if self.conn.trailing_data[0] else ""
        return "body" if state == "SEND_BODY" and not self.flow.read_paused else ""

    def _too_slow(self, phase: str, now: float) -> bool:
        if phase == "headers":
            return now - self._since >= HEADERS_S
        return phase == "body" and now - self._since >= BODY_WINDOW_S and self._bytes < MIN_BODY_BYTES

    def _check(self) -> None:
        """Close a client whose request arrives too slowly; look again while one is arriving."""
        self._watch = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        phase, now = self._under_way(), self.loop.time()
        if phase != self._phase:
            self._phase, self._since, self._bytes = phase, now, 0
        elif self._too_slow(phase, now):
            self._guard.too_slow()
            if self.cycle is None or not self.cycle.response_started:
                transport.write(_SLOW)
            self.close_silently()
            return
        elif phase == "body" and now - self._since >= BODY_WINDOW_S:
            self._since, self._bytes = now, 0
        self._guard.arriving(self, bool(phase))
        if phase:
            self._watch = self.loop.call_later(SLOW_CHECK_S, self._check)

    def _received(self, count: int) -> None:
        self._bytes += count
        if self._watch is None:
            self._check()

    def _stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None


def guarded_protocol(base: type[Any], guard: Guard) -> type[Any]:
    """uvicorn's HTTP protocol ``base``, admitting a connection only while ``guard`` has room (else: ``503`` and
    closed at once, its file freed) and closing one that stays silent for :data:`FIRST_REQUEST_S`."""

    class Guarded(_SlowWatch, base):  # type: ignore[misc, valid-type]
        _guard = guard
        _admitted = False
        _spoke = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if not guard.admit(self):
                try:
                    transport.write(_BUSY)
                finally:
                    transport.close()
                return
            self._admitted = True
            super().connection_made(transport)
            # uvicorn's keep-alive timer closes a connection that sends nothing more; start it for the first request
            self.timeout_keep_alive_task = self.loop.call_later(FIRST_REQUEST_S, self.timeout_keep_alive_handler)

        def close_silently(self) -> None:
            """Close a connection that never sent anything (to make room for one that may)."""
            self._admitted = False
            self._unset_keepalive_if_required()
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_watch()
            if self._admitted:
                self._admitted = False
                guard.release(self)
            if self.transport is not None:
                super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.transport is None or self.transport.is_closing():
                return
            if not self._spoke:
                self._spoke = True
                guard.spoke(self)
            super().data_received(data)
            self._received(len(data))

    Guarded.__name__ = f"Guarded{base.__name__}"
    return Guarded


async def _answer_503(send: Send, error: bytes) -> None:
    """A short JSON 503, to a client that may be gone already."""
    body = b'{"ok": false, "error": "' + error + b'"}'
    try:
        await send({"type": "http.response.start", "status": 503,
                    "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
    except BaseException:  # noqa: BLE001 - the client left, or the server is going away with it
        pass


def guarded_app(app: ASGIApp, guard: Guard) -> ASGIApp:
    """``app`` with every failure of a request made one JSON answer (or nothing, to a client already gone) and at
    most one terminal line: a browser disconnecting mid-request, the server stopping, a bug."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if message.get("type") == "http.response.start":
                started = True
            await send(message)

        try:
            await app(scope, receive, tracked)
        except asyncio.CancelledError:  # the server stops (its graceful shutdown ran out): answer, if not yet
            if not started and scope.get("type") == "http":
                await _answer_503(send, b"the scorekeeper is closing")
        except Exception as exc:  # noqa: BLE001 - every failure is one answer and one line, never a traceback
            if _client_gone(exc):
                return
            if scope.get("type") == "http":
                guard.say(f"app {type(exc).__name__}", f"web: {scope.get('method', '')} {scope.get('path', '')} "
                                                       f"failed ({type(exc).__name__}: {exc})")
                if not started:
                    await _answer_503(send, b"the scorekeeper could not answer that; try again")

    return guarded


def _client_gone(exc: BaseException) -> bool:
    """Is ``exc`` a client that went away (mid-body, mid-stream), not a fault of ours?"""
    if isinstance(exc, (ConnectionError, BrokenPipeError)):
        return True
    return type(exc).__name__ in ("ClientDisconnect", "ClientDisconnected", "LocalProtocolError")


async def bounded_body(request: Any, limit: int) -> bytearray | None:
    """A request's body read into one growing buffer (linear time, whatever the pieces it arrives in), or None as soon
    as it is, or its ``Content-Length`` says it will be, over ``limit`` bytes (nothing more is read then)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        if len(body) + len(chunk) > limit:
            return None
        body += chunk
    return body


#: uvicorn's lines that say nothing a scorekeeper can act on: pages still connected when the game quits.
_EXPECTED = ("Cancel ", "Waiting for ")


class _GuardLog(logging.Handler):
    """uvicorn's warnings through :meth:`Guard.say`: one terminal line per kind at most every :data:`SAY_EVERY_S`."""

    def __init__(self, guard: Guard) -> None:
        super().__init__(logging.WARNING)
        self.guard = guard

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot be formatted is not worth a traceback
            text = str(record.msg)
        if text.startswith(_EXPECTED):
            return
        self.guard.say(f"log {text[:40]}", f"web: {text.rstrip('.')} (said at most every {SAY_EVERY_S:.0f} s)")


def route_server_logs(guard: Guard) -> None:
    """Send uvicorn's loggers through ``guard`` (pass ``log_config=None`` to uvicorn so it keeps its own away): 40
    malformed requests are one line, not 40."""
    handler = _GuardLog(guard)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.WARNING)


async def widen_queue(server: Any, sock: socket.socket) -> None:
    """Once ``server`` (uvicorn's) is serving, let the kernel queue :data:`LISTEN_QUEUE` connections on ``sock``
    (asyncio accepts BACKLOG at a time)."""
    while not server.started and not server.should_exit:
        await asyncio.sleep(0.01)
    try:
        sock.listen(LISTEN_QUEUE)
    except OSError:
        pass
