"""The studio's web server: the page, its vendored viewer, and the API (Starlette, served by uvicorn on a thread).

- ``GET /`` the page; ``GET /static/NAME`` the files vendored with it (three.js and its licence), read from the
  package once at start: a request names a key of that table, never a file;
- ``GET /api/settings`` the form's schema (:func:`shutbox.studio.schema.form_schema`);
- ``POST /api/builds`` ``{"settings": {...}}`` in ``shutbox.toml``'s shape: ``202 {"id", ...status}``, or ``400
  {"field", "error"}`` with the command line's words; ``503`` when the queue is full;
- ``GET /api/builds/ID`` the status (``queued``, ``building`` with ``progress``, ``done``, ``failed`` with
  ``reason``); ``DELETE /api/builds/ID`` one post of it no longer wanted (the page, when its settings change);
- ``GET /api/builds/ID/kit.zip`` and ``GET /api/builds/ID/preview.glb``.

Served to a LAN it takes the live scoreboard's care (:mod:`shutbox.companion.web.guard`: connections bounded,
silent ones closed): bodies are bounded (:data:`MAX_BODY`), posts must be the page's own JSON (its origin; on
127.0.0.1, addressed to this computer by name), an id is looked up in the pool's table, and every refused request
is one line on the terminal (:meth:`Studio.refused`) and a short JSON answer, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, MutableMapping
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from shutbox.base.bounded import parse_json
from shutbox.base.errors import ShutboxError
from shutbox.base.text import safe_line, shown
from shutbox.companion.web.guard import (
    BACKLOG,
    Guard,
    bounded_body,
    guarded_protocol,
    route_server_logs,
    widen_queue,
)
from shutbox.companion.web.scoreboard import is_loopback, lan_address
from shutbox.studio.builds import Busy, Pool
from shutbox.studio.schema import Refusal, check_settings, flatten, form_schema

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

#: Largest body of a post, bytes (every setting named is about 2 KB).
MAX_BODY = 16 * 1024
#: The npm package ``three`` vendored in ``three/`` (three/VENDORED.md says how to move to another).
THREE_VERSION = "0.187.0"
#: The files the page loads besides itself: URL name -> file in this package (three.js as npm ships it).
VENDORED = {
    "three.module.js": "three/build/three.module.js",
    "three.core.js": "three/build/three.core.js",
    "addons/loaders/GLTFLoader.js": "three/examples/jsm/loaders/GLTFLoader.js",
    "addons/controls/OrbitControls.js": "three/examples/jsm/controls/OrbitControls.js",
    "addons/utils/BufferGeometryUtils.js": "three/examples/jsm/utils/BufferGeometryUtils.js",
    "addons/utils/SkeletonUtils.js": "three/examples/jsm/utils/SkeletonUtils.js",
    "LICENSE.three.txt": "three/LICENSE",
    "studio.js": "studio.js",
}
_TYPES = {".js": "text/javascript; charset=utf-8", ".txt": "text/plain; charset=utf-8"}
_ID = re.compile(r"[0-9a-f]{16}")
#: Settings the studio holds for everyone: a build with another value would change what all builds share.
HELD = ("cad.cache_limit_mb",)
CHUNK = 256 * 1024


def packaged(name: str) -> bytes:
    """A file shipped in this package (``shutbox.studio``'s own folder)."""
    return resources.files("shutbox.studio").joinpath(name).read_bytes()


class Studio:
    """The studio's server and its pool of builds; see the module docstring."""

    def __init__(self, host: str, port: int, *, workers: int = 2, keep_bytes: int = 2_000_000_000,
                 held: dict[str, Any] | None = None, say: Callable[[str], None] | None = None) -> None:
        self.host, self.port = host, port
        self._say = say or _stderr_line
        self.held = dict(held or {})  #: settings every build takes (:data:`HELD`), with the studio's values
        self.root = Path(tempfile.mkdtemp(prefix="shutbox-studio-"))
        self.pool = Pool(self.root / "builds", workers=workers, keep_bytes=keep_bytes, say=self.say)
        self.guard = Guard(say=self.say)
        self.refusals = 0
        self._page = packaged("page.html")
        self._files = {name: packaged(path) for name, path in VENDORED.items()}
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self._stopped = False

    def say(self, text: str) -> None:
        try:
            self._say(safe_line(text))
        except (OSError, ValueError):  # the terminal is gone
            pass

    # -- serving ---------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host = lan_address() if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"

    def start(self) -> Studio:
        """Listen now (ShutboxError when the address cannot be used), start the pool, serve on a thread."""
        import uvicorn
        from uvicorn.protocols.http.h11_impl import H11Protocol

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(BACKLOG)
        except (OSError, OverflowError) as exc:
            sock.close()
            shutil.rmtree(self.root, ignore_errors=True)
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ShutboxError(f"--web {self.host}:{self.port}: cannot listen there ({why})") from None
        self._socket = sock
        self.port = sock.getsockname()[1]
        self.pool.start()
        config = uvicorn.Config(self.asgi(), log_level="warning", lifespan="off", access_log=False,
                                proxy_headers=False, log_config=None,
                                timeout_graceful_shutdown=1, backlog=BACKLOG,
                                http=guarded_protocol(H11Protocol, self.guard))
        route_server_logs(self.guard)
        self._server = uvicorn.Server(config)
        started = threading.Event()

        def run() -> None:
            async def serve() -> None:
                asyncio.get_running_loop().set_exception_handler(self.guard.loop_exception)
                started.set()
                await asyncio.gather(self._server.serve(sockets=[sock]), widen_queue(self._server, sock))

            asyncio.run(serve())

        self._thread = threading.Thread(target=run, name="shutbox-studio-web", daemon=True)
        self._thread.start()
        started.wait(5)
        return self

    def stop(self) -> int:
        """Stop serving, cancel the builds under way (their processes ended), remove every build; how many were
        cancelled."""
        if self._stopped:
            return 0
        self._stopped = True
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        cancelled = self.pool.stop()
        shutil.rmtree(self.root, ignore_errors=True)
        return cancelled

    def __enter__(self) -> Studio:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the app ---------------------------------------------------------------------------------

    def app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.routing import Route

        return Starlette(routes=[
            Route("/", self._page_route),
            Route("/static/{name:path}", self._static),
            Route("/api/settings", self._settings),
            Route("/api/builds", self._post_build, methods=["POST"]),
            Route("/api/builds/{key}", self._status, methods=["GET", "DELETE"]),
            Route("/api/builds/{key}/{which}", self._file),
        ], exception_handlers={Exception: _failed})

    def asgi(self) -> Any:
        """The ASGI app uvicorn serves: :meth:`app` behind :meth:`guarded`."""
        return self.guarded(self.app())

    def guarded(self, app: Any) -> Any:
        """``app`` with a refused request (a 4xx or 5xx, an unknown path) one terminal line with its reason, and an
        app failure one line and a JSON 500 -- never a traceback; the loopback server answers only this computer's
        names."""
        from starlette.responses import JSONResponse

        async def guarded(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
            if scope.get("type") != "http":
                return await app(scope, receive, send)
            answer = _Answer(send)
            refusal = self._check_host(scope)
            try:
                if refusal is not None:
                    await JSONResponse({"ok": False, "error": refusal}, status_code=403)(scope, receive, answer.send)
                else:
                    await app(scope, receive, answer.send)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one line and a short answer, never a traceback
                if type(exc).__name__ in ("ClientDisconnect", "ClientDisconnected") or isinstance(exc, OSError):
                    return
                self.say(f"studio: {scope.get('method', '')} {shown(scope.get('path', ''), 80)} failed "
                         f"({type(exc).__name__}: {exc})")
                if answer.status == 0:
                    await JSONResponse({"ok": False, "error": FAILED}, status_code=500)(scope, receive, send)
                return
            if answer.status >= 400:
                self.refused(scope, answer.status, answer.error())

        return guarded

    def _check_host(self, scope: MutableMapping[str, Any]) -> str | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = urlsplit("//" + headers.get("host", "")).hostname or ""
        if is_loopback(self.host) and not is_loopback(host):  # a page from elsewhere, rebound to this computer
            return f"requests for {host or 'no host'} are not accepted here"
        return None

    def refused(self, scope: MutableMapping[str, Any], status: int, reason: str | None = None) -> None:
        """The terminal's one line for a refused request."""
        self.refusals += 1
        client = scope.get("client")
        who = client[0] if client else "?"
        what = f"{scope.get('method', '')} {shown(scope.get('path', ''), 80)}"
        self.say(f"studio: refused {what} from {who}: {status}" + (f", {reason}" if reason else ""))

    async def _page_route(self, request: Request) -> Response:
        from starlette.responses import Response

        return Response(self._page, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})

    async def _static(self, request: Request) -> Response:
        from starlette.responses import JSONResponse, Response

        name = request.path_params["name"]
        data = self._files.get(name)
        if data is None:
            return JSONResponse({"ok": False, "error": "no such file"}, status_code=404)
        return Response(data, media_type=_TYPES[Path(name).suffix], headers={"Cache-Control": "max-age=3600"})

    async def _settings(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        schema = form_schema()
        for item in schema["settings"]:
            if item["key"] in self.held:
                item["held"] = True
                item["default"] = self.held[item["key"]]
        return JSONResponse(schema, headers={"Cache-Control": "no-store"})

    async def _post_build(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        refusal = self._check_post(request)
        if refusal is not None:
            return JSONResponse({"ok": False, "field": None, "error": refusal[1]}, status_code=refusal[0])
        raw = await bounded_body(request, MAX_BODY)  # the scoreboard's reader: linear, stops at the limit
        if raw is None:
            return JSONResponse({"ok": False, "field": None, "error": f"the body is over {MAX_BODY} bytes"},
                                status_code=413)
        try:
            values = flatten(parse_json(bytes(raw).decode("utf-8", "replace"), "the body"))
            for key, value in self.held.items():
                if key in values and str(values[key]) != str(value):
                    raise Refusal(key, f"{key} is the studio's own ({value}): whoever runs it sets it "
                                       f"(shutbox studio --cache-limit)")
            kit = check_settings({**values, **self.held})
        except Refusal as exc:
            return JSONResponse({"ok": False, "field": exc.field, "error": exc.message}, status_code=400)
        except ShutboxError as exc:
            return JSONResponse({"ok": False, "field": None, "error": str(exc)}, status_code=400)
        try:
            build = self.pool.submit(kit)
        except Busy as exc:
            return JSONResponse({"ok": False, "field": None, "error": str(exc)}, status_code=503,
                                headers={"Retry-After": "30"})
        return JSONResponse({"ok": True, **build.status()}, status_code=202)

    async def _status(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        key = request.path_params["key"]
        if request.method == "DELETE":
            refusal = self._check_post(request, body=False)
            if refusal is not None:
                return JSONResponse({"ok": False, "error": refusal[1]}, status_code=refusal[0])
        if not _ID.fullmatch(key):
            build = None
        elif request.method == "DELETE":  # ending a build's processes takes a moment: not on the server's loop
            build = await asyncio.to_thread(self.pool.cancel, key)
        else:
            build = self.pool.get(key)
        if build is None:
            return JSONResponse({"ok": False, "error": _NO_BUILD}, status_code=404)
        return JSONResponse({"ok": True, **build.status()}, headers={"Cache-Control": "no-store"})

    async def _file(self, request: Request) -> Response:
        from starlette.responses import JSONResponse, StreamingResponse

        key, which = request.path_params["key"], request.path_params["which"]
        if which not in ("kit.zip", "preview.glb") or not _ID.fullmatch(key):
            return JSONResponse({"ok": False, "error": "no such file"}, status_code=404)
        build = self.pool.get(key)
        if build is None:
            return JSONResponse({"ok": False, "error": _NO_BUILD}, status_code=404)
        opened = self.pool.open_file(key, which)
        if opened is None:
            ready = "the zip comes when the build is done" if which == "kit.zip" else "the preview is not made yet"
            return JSONResponse({"ok": False, "error": f"{ready} (the build is {build.state})"}, status_code=409)
        handle, size = opened
        if which == "kit.zip":
            media, headers = "application/zip", {"Content-Disposition": f'attachment; filename="shutbox-kit-{key}.zip"'}
        else:
            media, headers = "model/gltf-binary", {}
        return StreamingResponse(_chunks(handle), media_type=media,
                                 headers={**headers, "Content-Length": str(size), "Cache-Control": "no-store"})

    def _check_post(self, request: Request, body: bool = True) -> tuple[int, str] | None:
        """(status, reason) when a post (or a delete) is not the page's own JSON: another origin, another type."""
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host", ""):
            return 403, f"requests from {shown(origin, 80)} are not accepted"
        kind = request.headers.get("content-type", "").split(";")[0].strip()
        if body and kind != "application/json":
            return 415, "send JSON (Content-Type: application/json)"
        return None


class _Answer:
    """What a request was answered: its status, and the start of its body (a refusal's JSON error)."""

    def __init__(self, send: Any) -> None:
        self._send = send
        self.status = 0
        self.body = b""

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if message.get("type") == "http.response.start":
            self.status = int(message.get("status", 0))
        elif message.get("type") == "http.response.body" and self.status >= 400 and len(self.body) < 4096:
            self.body += bytes(message.get("body", b""))[:4096]
        await self._send(message)

    def error(self) -> str | None:
        """The refusal's ``error``, if its body is the studio's JSON."""
        try:
            found = json.loads(self.body.decode("utf-8", "replace"))
        except ValueError:
            return None
        return str(found["error"]) if isinstance(found, dict) and "error" in found else None


async def _failed(request: Any, exc: Exception) -> Response:
    """Starlette's answer to a failure of the app (:meth:`Studio.guarded` says it on the terminal): short JSON."""
    from starlette.responses import JSONResponse

    return JSONResponse({"ok": False, "error": FAILED}, status_code=500)


FAILED = "the studio could not answer that"
_NO_BUILD = ("no such build: finished builds are kept while they fit the studio's space, the oldest dropped "
             "first; post the settings again")


async def _chunks(handle: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while True:
            data = await asyncio.to_thread(handle.read, CHUNK)
            if not data:
                return
            yield data
    finally:
        handle.close()


def _stderr_line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
