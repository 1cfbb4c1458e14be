"""Where a live session is shown, shared by ``shutbox play`` and ``shutbox sim``: the terminal (a live screen, or
one line per message when piped), the web scoreboard with ``--web``, the camera over the tray, and the review
summary once the game is over."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from shutbox.companion.live.camera import CameraWatch
from shutbox.companion.live.livestate import View
from shutbox.companion.live.session import LiveSession, Views
from shutbox.companion.live.smartdice import SmartDiceWatch, wants_throw
from shutbox.companion.live.terminal import TextView, read_input
from shutbox.companion.live.tui import ScreenView
from shutbox.companion.web.review import ReviewPages
from shutbox.companion.web.scoreboard import WebBoard, parse_web
from shutbox.dice.ble.record import Record
from shutbox.dice.ble.source import DiceSource
from shutbox.game import solver
from shutbox.game.review import review_game, review_payload
from shutbox.game.solvercache import cached_solve


class SessionDisplay:
    """Where a live session is shown: the terminal (a live screen, or one line per message when piped) and,
    with ``--web``, the web scoreboard. Use as a context manager around the game."""

    def __init__(self, submit: Callable[[Any], None], web: str | None, *, read_stdin: bool = True,
                 db: Path | None = None) -> None:
        self.submit = submit
        self.read_stdin = read_stdin
        self.web = WebBoard(*parse_web(web), submit, pages=ReviewPages(db)) if web is not None else None
        self.interactive = read_stdin and sys.stdin.isatty() and sys.stdout.isatty()
        self.screen: ScreenView | None = None
        self.camera: CameraWatch | None = None
        self.dice: SmartDiceWatch | None = None
        self.terminal: View = TextView()

    @property
    def view(self) -> View:
        return Views(self.terminal, self.web) if self.web is not None else self.terminal

    def open_web(self, out: TextIO | None = None) -> None:
        """Start serving (ShutboxError when the address cannot be used) and say where (on ``out``, default
        stdout)."""
        if self.web is not None:
            self.web.start()
            self.web.announce(lambda line: print(line, file=out or sys.stdout, flush=True))

    def open_input(self, help_text: str) -> None:
        """Start taking typed lines: the live screen on a terminal, else lines from stdin."""
        if self.interactive:
            extra = [f"scoreboard: {self.web.url}"] if self.web is not None else []
            self.screen = ScreenView(self.submit, help_text=help_text, extra=extra).start()
            self.terminal = self.screen
        elif self.read_stdin:
            read_input(sys.stdin, self.submit)

    def open_camera(self, device: str | None, session: LiveSession) -> None:
        """Watch the tray with the camera ``device`` (None: no camera); its readings come through ``submit``."""
        if device is None:
            return
        self.camera = CameraWatch(device, self.submit).start()
        session.view.note("info", f"camera {device}: the dice are read when they come to rest")

    def open_dice(self, source: DiceSource | None, count: int, session: LiveSession,
                  record: Callable[[Record], None] | None) -> None:
        """Take the throws of smart dice from ``source`` (None: none); they come through ``submit``."""
        if source is None:
            return
        self.dice = SmartDiceWatch(source, count, self.submit, record=record).start()
        what = f"replay {source.path}" if source.path is not None else f"{source.kind} dice"
        session.view.note("info", f"{what}: each throw is read from the dice when they come to rest")

    def ready(self, item: object, session: LiveSession) -> None:
        """The session handled ``item``: a replay of smart dice may go on once the game wants a throw."""
        if self.dice is not None:
            self.dice.ready(item, wants_throw(session))

    def close(self) -> None:
        if self.dice is not None:
            self.dice.stop()
            self.dice = None
        if self.camera is not None:
            self.camera.stop()
            self.camera = None
        if self.screen is not None:
            self.screen.stop()
        if self.web is not None:
            self.web.stop()


def show_review(session: LiveSession, piped: bool, kept: bool = True) -> list[str]:
    """Once the game is over, each player's review summary (issue 14) on the page and the terminal; its lines.

    ``kept``: the game is in a database file (else in memory: say how to keep the next one for a review)."""
    game = session.game
    if game is None or not game.finished:
        return []
    if not solver.exact(game.rules):
        lines = [f"review: `shutbox review {session.game_id}` (approximate values at {game.rules.tiles} tiles)"]
        payload: dict[str, Any] = {"lines": lines, "players": [], "exact": False}
    else:
        payload = review_payload(review_game(game, cached_solve))
        payload["lines"].append(f"every decision: shutbox review {session.game_id}" if kept else
                                "every decision: this game is kept in memory only; with --db FILE the next one is "
                                "saved for `shutbox review ID --db FILE`")
    payload["review_url"] = f"/review?game={session.game_id}"  # the page's step-through of every decision
    session.review = payload
    if piped:
        for line in payload["lines"]:
            session.view.note("info", line)
    session.show()
    return list(payload["lines"])
