"""Headless Chromium (Debian's ``chromium``) driven by playwright, for the web scoreboard's tests and bench,
and a simulated table whose session is fed on a thread while the test moves the box or uses the page."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from shutbox.companion.live.session import Views
from shutbox.companion.live.terminal import Notes
from shutbox.companion.sim.game import SimTable
from shutbox.companion.store.database import GameStore
from shutbox.companion.web.review import ReviewPages
from shutbox.companion.web.scoreboard import WebBoard
from shutbox.kit.model import Kit

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def chromium_path() -> str | None:
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


@contextmanager
def browser() -> Iterator[Any]:
    """A playwright Chromium browser on the system's chromium (never a downloaded one)."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    assert path is not None, "chromium is not installed (apt-get install chromium; see .ci/run)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class LiveTable:
    """A :class:`SimTable` with a web scoreboard, run on a thread of its own (the store, the box, the link and
    the session live there and every event is handed to the session there), so the test only moves switches
    (``box.set_tile``), uses the page, and reads the record through its own connection (:meth:`events`)."""

    def __init__(self, kit: Kit, db: Path, names: list[str], *, host: str = "127.0.0.1",
                 join_code: str | None = None) -> None:
        self.kit = kit
        self.db = db
        self.names = names
        self.host = host
        self.join_code = join_code
        self.sim: SimTable | None = None
        self.web: WebBoard | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LiveTable:
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        assert self.web is not None
        return self

    def _run(self) -> None:
        try:
            with GameStore(self.db) as store:
                notes = Notes()
                with SimTable(self.kit, store, notes) as sim:
                    self.sim = sim
                    with WebBoard(self.host, 0, sim.events.put, join_code=self.join_code,
                                  pages=ReviewPages(self.db)) as web:
                        self.web = web
                        sim.session.view = Views(notes, web)
                        sim.session.start(self.names)
                        self._ready.set()
                        while not self._stop.is_set():
                            sim.settle(0.02)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            self._error = exc
        finally:
            self._ready.set()

    @property
    def box(self) -> Any:
        assert self.sim is not None
        return self.sim.box

    @property
    def local_url(self) -> str:
        assert self.web is not None
        return f"http://127.0.0.1:{self.web.port}/"

    def events(self) -> list[dict[str, Any]]:
        """The game's saved events (without their time and version)."""
        with GameStore(self.db) as store:
            return [{k: v for k, v in e.items() if k not in ("at", "v")} for e in store.events(1)]

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        if self._error is not None:
            raise self._error
