"""The web scoreboard: a page for phones and a TV, live over server-sent events, and throws from a phone.

:class:`WebBoard` is a session view (it keeps the latest state and messages) and an ASGI app
(Starlette) served by uvicorn on a thread:

- ``GET /`` the page; ``GET /api/state`` the state (:func:`shutbox.companion.web.state.table_state`);
  ``GET /api/events`` server-sent events, one ``data:`` line of the same JSON on every change;
- ``POST /api/throw`` ``{"dice": [a, b]}``, ``POST /api/end`` (the page's End button), ``POST /api/undo``,
  ``POST /api/shut`` ``{"tiles": [...]}`` (box-less play) are read into command objects
  (:func:`shutbox.companion.live.inputs.from_post`) and handed to the session (:class:`Remote`), so they
  meet the same referee, land in the same record and cause the same messages as typed ones. The answer
  is ``{"ok", "messages", "state"}``: 200 when taken, 409 when refused, 400 for a malformed body.

Sharing: on 127.0.0.1 (the default) the page may post freely. Bound to any other address, a join
code is made up; every POST without it (header ``X-Join-Code``, or ``?code=`` in the page's URL) is
refused with 403, so spectators only read. POSTs must be JSON from the page's own origin and, on 127.0.0.1,
addressed to this computer by name (no DNS rebinding).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import socket
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from shutbox.base.bounded import parse_json
from shutbox.base.errors import ShutboxError
from shutbox.companion.live.inputs import from_post
from shutbox.companion.live.session import Remote
from shutbox.companion.web.guard import (
    BACKLOG,
    Guard,
    bounded_body,
    guarded_app,
    guarded_protocol,
    route_server_logs,
    widen_queue,
)
from shutbox.companion.web.state import table_state

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from shutbox.companion.live.livestate import LiveState
    from shutbox.companion.web.review import ReviewPages

LOCAL = "127.0.0.1"
MESSAGES_KEPT = 12
REPLY_TIMEOUT_S = 10.0
KEEPALIVE_S = 15.0
MAX_BODY = 4096  #: bytes; a throw or a move is a few dozen
MAX_PHOTO = 16 * 1024 * 1024  #: bytes; a phone's photo of the tray is a few MB
MAX_UPLOADS = 2  #: photos read at once; more are answered 503 at once (each costs MAX_PHOTO and its pixels)
CLOSING = "the scorekeeper is closing; the game is saved"
JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def parse_web(text: str) -> tuple[str, int]:
    """``--web [HOST:]PORT`` as (host, port); ShutboxError naming the bad value otherwise."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]") if sep else LOCAL
    if not port.isdigit() or not 0 <= int(port) <= 65535 or (sep and not host):
        raise ShutboxError(f"--web {text!r}: give [HOST:]PORT, a port 0 to 65535 (0: any free port), "
                           "e.g. --web 8000 or --web 0.0.0.0:8000")
    return host, int(port)


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1")


def lan_address() -> str:
    """This computer's address on the local network (for the join URL when bound to all addresses)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a UDP "connect" sends nothing; it picks the outgoing address
            return str(probe.getsockname()[0])
        except OSError:
            return LOCAL


class WebBoard:
    """The session view behind the web page, and the server; see the module docstring."""

    def __init__(self, host: str, port: int, submit: Callable[[Remote], None], *,
                 join_code: str | None = None, pages: ReviewPages | None = None) -> None:
        self.host = host
        self.pages = pages  #: the review and stats pages (:mod:`shutbox.companion.web.review`)
        self.port = port
        self.submit = submit
        self.join_code = join_code if join_code is not None else (
            None if is_loopback(host) else "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6)))
        self.messages: deque[tuple[int, str, str]] = deque(maxlen=MESSAGES_KEPT)
        self._count = 0
        self.state: dict[str, Any] = {}
        self.state_json = "{}"
        self.changes = 0  #: how many distinct states were published
        self._session: LiveState | None = None
        self._review: dict[str, Any] | None = None  #: the review summaries set after the game (kept on show)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: set[asyncio.Queue[str | None]] = set()
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.guard = Guard()  #: connection and join-code limits (:mod:`shutbox.companion.web.guard`)
        self._uploads = 0  #: photos being received or read
        self._page_text: str | None = None
        self.closing = False  #: stop() has begun: posts are answered 503 at once
        self._pending: dict[int, Remote] = {}  #: posts handed to the session, not answered yet (by id)

    # -- the view ------------------------------------------------------------------------------

    def note(self, kind: str, text: str) -> None:
        with self._lock:
            self._count += 1
            self.messages.append((self._count, kind, text))

    @property
    def session(self) -> LiveState | None:
        """The state of the table (its game and game id; None before it is shown)."""
        return self._session

    def show(self, state: LiveState) -> None:
        self._session = state
        self.refresh()

    def _shown(self) -> LiveState | None:
        """The state as the page shows it: the session's, with the review once one is set (a box snapshot
        after the game must not take the review off the page)."""
        if self._session is None or self._review is None:
            return self._session
        return dataclasses.replace(self._session, review=self._review)

    def refresh(self) -> None:
        """Publish the state again (after a change the session did not show, e.g. a review)."""
        shown = self._shown()
        if shown is None:
            return
        with self._lock:
            state = table_state(shown, list(self.messages))
            state["join"] = {"required": self.join_code is not None}
            text = json.dumps(state, separators=(",", ":"))
            if text == self.state_json:
                return
            self.state, self.state_json = state, text
            self.changes += 1
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._broadcast, text)
            except RuntimeError:  # the server's loop has closed
                pass

    def set_review(self, review: dict[str, Any] | None) -> None:
        """Show the players' review summaries (issue 14's hook) on the page."""
        self._review = review
        self.refresh()

    def _broadcast(self, text: str | None) -> None:
        for listener in list(self._listeners):
            listener.put_nowait(text)

    # -- the server ----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """Where to open the page (with the join code for players, when one is needed)."""
        host = lan_address() if self.host in ("0.0.0.0", "::", "") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/" + (f"?code={self.join_code}" if self.join_code else "")

    @property
    def spectator_url(self) -> str:
        return self.url.split("?", 1)[0]

    def start(self) -> WebBoard:
        """Listen now (ShutboxError when the address cannot be used) and serve on a thread."""
        import uvicorn

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(BACKLOG)
        except (OSError, OverflowError) as exc:
            sock.close()
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ShutboxError(f"--web {self.host}:{self.port}: cannot listen there ({why})") from None
        self._socket = sock
        self.port = sock.getsockname()[1]
        from uvicorn.protocols.http.h11_impl import H11Protocol

        config = uvicorn.Config(guarded_app(self.app(), self.guard), log_level="warning", lifespan="off",
                                # X-Forwarded-For is a header anyone can send: never trusted; uvicorn's log lines go
                                # through the guard (one line per kind every 30 s)
                                proxy_headers=False, log_config=None,
                                access_log=False, timeout_graceful_shutdown=1, backlog=BACKLOG,
                                http=guarded_protocol(H11Protocol, self.guard))
        route_server_logs(self.guard)
        self._server = uvicorn.Server(config)
        started = threading.Event()

        def run() -> None:
            async def serve() -> None:
                self._loop = asyncio.get_running_loop()
                self._loop.set_exception_handler(self.guard.loop_exception)
                started.set()
                await asyncio.gather(self._server.serve(sockets=[sock]), widen_queue(self._server, sock))

            asyncio.run(serve())

        self._thread = threading.Thread(target=run, name="shutbox-web", daemon=True)
        self._thread.start()
        started.wait(5)
        return self

    def stop(self) -> None:
        """Close the event streams and stop serving; posts still waiting for the session are answered now."""
        self.closing = True
        for item in list(self._pending.values()):
            if not item.reply.done():
                try:
                    item.reply.set_result((False, [("refused", CLOSING)]))
                except InvalidStateError:  # the session answered it meanwhile
                    pass
        loop = self._loop
        if loop is not None and self._server is not None:
            try:
                loop.call_soon_threadsafe(self._broadcast, None)
            except RuntimeError:
                pass
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._loop = None
        summary = self.guard.summary()
        if summary is not None:
            self.guard.say("summary", summary)

    def __enter__(self) -> WebBoard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def announce(self, out: Callable[[str], None]) -> None:
        """Say where the page is; off this computer also the join code and a QR code of the join URL."""
        if self.join_code is None:
            out(f"scoreboard: {self.url}")
            return
        import io

        import segno

        qr = io.StringIO()
        segno.make(self.url, error="m").terminal(out=qr, compact=True)
        out(f"scoreboard for spectators: {self.spectator_url}")
        out(f"players join with code {self.join_code}: {self.url}")
        out(qr.getvalue().rstrip("\n"))

    # -- the ASGI app --------------------------------------------------------------------------

    def app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.routing import Route

        return Starlette(routes=[
            Route("/", self._page),
            Route("/api/state", self._state),
            Route("/api/events", self._events),
            Route("/api/throw", self._post("throw"), methods=["POST"]),
            Route("/api/end", self._post("end"), methods=["POST"]),
            Route("/api/undo", self._post("undo"), methods=["POST"]),
            Route("/api/shut", self._post("shut"), methods=["POST"]),
            Route("/api/photo", self._photo, methods=["POST"]),
            *(self.pages.routes(self) if self.pages is not None else ()),
        ])

    async def _page(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse

        if self._page_text is None:  # read once: a crowd must not cost a file per request
            self._page_text = resources.files("shutbox.companion.web").joinpath("page.html").read_text(encoding="utf-8")
        return HTMLResponse(self._page_text, headers={"Cache-Control": "no-store"})

    async def _state(self, request: Request) -> Response:
        from starlette.responses import Response

        return Response(self.state_json, media_type="application/json", headers={"Cache-Control": "no-store"})

    async def _events(self, request: Request) -> Response:
        from starlette.responses import StreamingResponse

        queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._listeners.add(queue)

        async def stream() -> AsyncIterator[str]:
            try:
                yield f"retry: 1000\ndata: {self.state_json}\n\n"
                while True:
                    try:
                        text = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    if text is None:
                        return
                    while not queue.empty():  # only the newest of several queued states matters
                        newer = queue.get_nowait()
                        if newer is None:
                            return
                        text = newer
                    yield f"data: {text}\n\n"
            finally:
                self._listeners.discard(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    def _post(self, action: str) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            from starlette.responses import JSONResponse

            refusal = self._check_post(request)
            if refusal is not None:
                return self._refused(request, refusal)
            raw = await bounded_body(request, MAX_BODY)
            if raw is None:
                return JSONResponse({"ok": False, "error": f"the body is over {MAX_BODY} bytes"}, status_code=413)
            try:
                body = parse_json(raw.decode("utf-8"), "the body") if action in ("throw", "shut") else None
                command = from_post(action, body)
            except (ValueError, ShutboxError) as exc:
                return JSONResponse({"ok": False, "error": str(exc)}, status_code=400)
            if self.closing:
                return JSONResponse({"ok": False, "error": CLOSING}, status_code=503)
            item = Remote(command)
            self._pending[id(item)] = item
            try:
                if self.closing:  # stop() began meanwhile (it answers what it found pending; not this one)
                    return JSONResponse({"ok": False, "error": CLOSING}, status_code=503)
                self.submit(item)
                ok, notes = await asyncio.wait_for(asyncio.wrap_future(item.reply), REPLY_TIMEOUT_S)
            except (FutureTimeout, TimeoutError):
                return JSONResponse({"ok": False, "error": "the scorekeeper did not answer"}, status_code=503)
            finally:
                self._pending.pop(id(item), None)
            if self.closing and not ok:
                return JSONResponse({"ok": False, "error": CLOSING}, status_code=503)
            return JSONResponse({"ok": ok, "messages": [{"kind": k, "text": t} for k, t in notes],
                                 "state": self.state}, status_code=200 if ok else 409)

        return endpoint

    async def _photo(self, request: Request) -> Response:
        """A phone's photo of the tray (the image's own bytes): read, and entered as the throw like a camera's."""
        from starlette.responses import JSONResponse

        from shutbox.companion.live.camera import PhotoPost, reading_of
        from shutbox.dice.imagefile import read_image_bytes

        refusal = self._check_post(request, image=True)
        if refusal is not None:
            return self._refused(request, refusal)
        if self._uploads >= MAX_UPLOADS:  # each holds up to MAX_PHOTO and a decoded picture
            return JSONResponse({"ok": False, "error": "other photos are being read; try again in a moment"},
                                status_code=503, headers={"Retry-After": "2"})
        self._uploads += 1
        try:
            raw = await bounded_body(request, MAX_PHOTO)
            if raw is None:
                return JSONResponse({"ok": False, "error": f"the photo is over {MAX_PHOTO // (1024 * 1024)} MB"},
                                    status_code=413)
            photo = raw
            read = await asyncio.to_thread(lambda: reading_of(read_image_bytes(photo, "the photo"), "phone"))
        except ShutboxError as exc:
            return JSONResponse({"ok": False, "error": str(exc)}, status_code=400)
        finally:
            self._uploads -= 1
            raw = None
        if self.closing:
            return JSONResponse({"ok": False, "error": CLOSING}, status_code=503)
        item = PhotoPost(read)
        self._pending[id(item)] = item  # type: ignore[assignment]  (answered like a Remote when the board stops)
        try:
            self.submit(item)  # type: ignore[arg-type]  (the session's queue takes any of its items)
            ok, notes = await asyncio.wait_for(asyncio.wrap_future(item.reply), REPLY_TIMEOUT_S)
        except (FutureTimeout, TimeoutError):
            return JSONResponse({"ok": False, "error": "the scorekeeper did not answer"}, status_code=503)
        finally:
            self._pending.pop(id(item), None)
        return JSONResponse({"ok": ok, "dice": list(read.values), "unsure": read.unsure,
                             "messages": [{"kind": k, "text": t} for k, t in notes], "state": self.state},
                            status_code=200 if ok else 409)

    def _refused(self, request: Request, refusal: tuple[int, str]) -> Response:
        """The answer to a refused POST; a rate-limited one says when to try again (``Retry-After``)."""
        from starlette.responses import JSONResponse

        wait = self.guard.wait_s(_client(request)) if refusal[0] == 429 else 0
        return JSONResponse({"ok": False, "error": refusal[1]}, status_code=refusal[0],
                            headers={"Retry-After": str(max(1, int(wait + 0.999)))} if wait else None)

    def _check_post(self, request: Request, image: bool = False) -> tuple[int, str] | None:
        """(status, reason) when a POST must be refused: no or a wrong join code, or not the page's own JSON
        (``image``: a picture's bytes)."""
        if self.join_code is not None:
            given = request.headers.get("x-join-code") or request.query_params.get("code") or ""
            refused = self.guard.check_code(_client(request), given, self.join_code)
            if refused is not None:
                return refused[0], refused[1]
        host = urlsplit("//" + request.headers.get("host", "")).hostname or ""
        if is_loopback(self.host) and not is_loopback(host):  # a page from elsewhere, rebound to this computer
            return 403, f"requests for {host or 'no host'} are not accepted here"
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host", ""):
            return 403, f"requests from {origin} are not accepted"
        kind = request.headers.get("content-type", "").split(";")[0].strip()
        if image:
            return None if kind.startswith("image/") else (415, "send the photo's bytes (Content-Type: image/...)")
        if kind != "application/json":
            return 415, "send JSON (Content-Type: application/json)"
        return None



def _client(request: Request) -> str:
    """Who sent ``request``, for the join-code rate limit: its address."""
    return request.client.host if request.client is not None else "?"
