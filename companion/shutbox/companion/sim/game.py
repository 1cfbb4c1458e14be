"""The simulated table: the real firmware (:class:`~shutbox.companion.sim.box.SimBox`) wired over its
pseudo-terminal, pyserial and :class:`~shutbox.companion.live.link.BoxLink` to a real
:class:`~shutbox.companion.live.session.LiveSession`, played by a script or by the demo player.

Nothing is short-cut: a tile flipped here reaches the session only as a snapshot line the firmware
wrote, and each flip waits until the session has seen it.
"""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.companion.live.link import BoxLink
from shutbox.companion.live.livestate import View
from shutbox.companion.live.moves import expected_shut
from shutbox.companion.live.session import InputClosed, LiveSession, Typed
from shutbox.companion.sim.box import SimBox
from shutbox.companion.sim.emulated import EmulatedBox
from shutbox.companion.sim.script import Action
from shutbox.companion.store.database import MEMORY, GameStore
from shutbox.game.policy import hint_objective
from shutbox.game.replay import UNCOVER, Game
from shutbox.game.rules import IllegalMove
from shutbox.kit.model import Kit

WAIT_S = 5.0  #: longest wait for the session to see a flipped tile
EMULATOR_WAIT_S = 30.0  #: the same on the emulated Pico, which runs slower than a real one (and boots first)
MAX_DEMO_STEPS = 2000


class SimTable:
    """A simulated box, its link and a live session; use as a context manager."""

    def __init__(self, kit: Kit, store: GameStore, view: View, *, hint: bool = False, emulator: bool = False) -> None:
        self.kit = kit
        # the unix port with a fake machine module, or (``emulator``) the built firmware on an emulated Pico
        self.box: SimBox | EmulatedBox = EmulatedBox(kit) if emulator else SimBox(kit, connect=False)
        self.wait_s = EMULATOR_WAIT_S if emulator else WAIT_S
        self.events: queue.Queue[Any] = queue.Queue()
        self.link: BoxLink | None = None
        self.session = LiveSession(kit.rules, store, view, hint=hint, throws=kit.play.throws_for(boxless=False))

    def __enter__(self) -> SimTable:
        self.box.start()
        try:
            self.link = BoxLink(self.box.port, self.kit.rules.tiles, self.events.put, retry_s=0.1).start()
            self.pump(lambda: self.session.box is not None, "its first snapshot")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.link is not None:
            self.link.stop()
        self.box.close()

    def pump(self, until: Callable[[], bool], what: str, timeout: float | None = None) -> None:
        """Hand link events to the session until ``until()`` holds; ShutboxError after ``timeout``."""
        timeout = self.wait_s if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if not self.box.running():
                raise ShutboxError(f"the simulated box stopped before it sent {what}: {self._ended()}")
            if left <= 0:
                detail = self.box.stderr_text().strip().splitlines()
                raise ShutboxError(f"the simulated box did not report {what} within {timeout:g} s"
                                   + (f" (firmware: {detail[-1]})" if detail else ""))
            try:
                item = self.events.get(timeout=min(left, 0.1))
            except queue.Empty:
                continue
            self.session.handle(item)

    def _ended(self) -> str:
        """How the simulated box's process ended, with its last line on stderr if any."""
        detail = self.box.stderr_text().strip().splitlines()
        process = getattr(self.box, "process", None)
        command = getattr(self.box, "micropython", "")
        how = (f"{command} exited with status {process.returncode}" if process is not None and command
               and process.poll() is not None else "its process ended")
        hint = " (SHUTBOX_MICROPYTHON names the unix-port micropython to run)" if command else ""
        return how + (f", saying: {shown(detail[-1], 120)}" if detail else "") + hint

    def settle(self, seconds: float) -> None:
        """Keep the session fed for ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                item = self.events.get(timeout=left)
            except queue.Empty:
                return
            self.session.handle(item)

    def linger(self, text: str) -> None:
        """After the game: keep the session (and the web scoreboard) going until a line is typed, the input
        ends, or Ctrl-C."""
        self.session.view.note("info", text)
        try:
            while True:
                try:
                    item = self.events.get(timeout=0.5)
                except queue.Empty:
                    continue
                if isinstance(item, (Typed, InputClosed)):
                    return
                self.session.handle(item)
        except KeyboardInterrupt:
            return

    def flip(self, tile: int, shut: bool) -> None:
        """Move one tile on the box and wait until the session has seen it there."""
        self.box.set_tile(tile, shut)
        self.pump(lambda: self.session.box is not None and (tile in self.session.box) == shut,
                  f"tile {tile} {'shut' if shut else 'open'}")

    def type(self, text: str) -> None:
        self.session.handle(Typed(text))

    def press(self) -> None:
        """Press the box's button and wait until the session has seen the press count change."""
        before = self.session.button.presses
        self.box.press_button()
        self.pump(lambda: self.session.button.presses not in (None, before), "the button press")

    # -- scripts -------------------------------------------------------------------------------

    def play(self, actions: list[Action], where: str = "script") -> None:
        for action in actions:
            if action.kind == "players":
                try:
                    self.session.start(action.names)
                except IllegalMove as exc:
                    raise ShutboxError(f"{where}:{action.line}: {exc}") from None
            elif action.kind == "throw":
                self.type(" ".join(map(str, action.numbers)))
            elif action.kind == "total":
                self.type(f"= {action.numbers[0]}")
            elif action.kind in ("end", "undo", "hint"):
                self.type(action.kind)
            elif action.kind == "press":
                self.press()
            else:
                for tile in action.numbers:
                    self.flip(tile, action.kind == "shut")

    # -- the demo player -----------------------------------------------------------------------

    def demo(self, players: list[str], rng: random.Random, pause_s: float) -> None:
        """Play a whole game with random dice, choosing the solver's best move, at ``pause_s`` per step."""
        from shutbox.game import solver

        self.session.start(players)
        game = self.session.game
        assert game is not None
        rules = game.rules
        solution = solver.solve(rules, hint_objective(rules))
        for _ in range(MAX_DEMO_STEPS):
            if self._game().finished or self.session.done:
                break
            self.settle(pause_s)
            game = self._game()  # read afresh each step: the page may have undone something meanwhile
            if game.finished or self.session.done:
                break
            if game.pending is None:  # set the board the next turn starts from (or put back what an undo left)
                want = expected_shut(game)
                for tile in rules.tile_numbers:
                    if (tile in self.box.shut_tiles) != (tile in want):
                        self.flip(tile, tile in want)
                        self.settle(pause_s / 4)
            dice_count = solution.dice(game.in_play)  # as many dice as the solver's policy throws
            self.type(" ".join(str(rng.randint(1, 6)) for _ in range(dice_count)))
            game = self._game()
            throw = game.pending
            if throw is None or throw.total is None:
                continue
            ranked = solver.rank_moves(solution, game.in_play, throw.total)
            move = ranked[0].tiles if rng.random() < 0.85 else rng.choice(ranked).tiles
            uncovering = game.phase == UNCOVER
            for tile in rng.sample(move, len(move)):
                self.settle(pause_s / 2)
                if self._game().pending is not throw:  # undone from the page: throw again
                    break
                self.flip(tile, not uncovering)
        else:
            raise ShutboxError(f"the demo game did not end within {MAX_DEMO_STEPS} throws")
        self.settle(pause_s)

    def _game(self) -> Game:
        game = self.session.game
        assert game is not None
        return game


def open_store(db: Path | None) -> GameStore:
    """The store for a simulated game: ``--db FILE``, or a database in memory that goes away afterwards
    (nothing is left on disk, even when the process is killed)."""
    return GameStore(db if db is not None else MEMORY)
