"""A live game at the table: every input becomes a command, ruled on once, recorded before it is shown.

:class:`LiveSession` is what ``shutbox play`` and ``shutbox sim`` both run. It takes, one at a time,
link events (:mod:`shutbox.companion.live.link`), typed lines (:class:`Typed`), the web page's commands
(:class:`Remote`) and any :mod:`~shutbox.companion.live.command` object (a camera's :class:`Throw`), and
passes each through four parts, each its own module:

- **reading** (:mod:`shutbox.companion.live.inputs`): a line, a snapshot, a press count become commands;
- **refereeing** (:mod:`shutbox.companion.live.referee`): the one referee rules on each command and judges
  the box (:mod:`shutbox.companion.live.moves`);
- **recording** (:mod:`shutbox.companion.live.recording`): the events the referee asks for are checked by the
  rules engine (a move the box completed was checked once already, when it was judged: its
  :class:`~shutbox.game.replay.CheckedMove` is committed as it is) and committed to the
  :class:`~shutbox.companion.store.database.GameStore`, as are the tiles held under throws optional;
- **wording** (:mod:`shutbox.companion.live.wording`): the messages, shown only once their event is saved.

Views read the public :class:`~shutbox.companion.live.livestate.LiveState` (:attr:`LiveSession.state`).

Without a box (``boxless``: a plain wooden box, ``--port none``) the board is the game's own, and the tiles
are typed too: ``shut 3 5`` (``open 3 5`` when uncovering in the long game). ``throws`` is ``required``
(every throw entered before its tiles move) or ``optional`` (the box keeps score by itself; the referee's
docstring and docs/RULES.md say how).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.companion.live.advice import Advice
from shutbox.companion.live.camera import CameraRead, PhotoPost, enter_dice
from shutbox.companion.live.command import BoxSeen, Command, End, Help, Hint, Quit
from shutbox.companion.live.inputs import ButtonCounter, NotUnderstood, parse_line
from shutbox.companion.live.link import (
    AtRepl,
    Connected,
    Disconnected,
    Failed,
    LinkEvent,
    Noise,
    Received,
    crash_text,
    repl_text,
)
from shutbox.companion.live.livestate import LiveState, View
from shutbox.companion.live.moves import Verdict
from shutbox.companion.live.recording import Ledger
from shutbox.companion.live.referee import Referee, Ruling
from shutbox.companion.live.smartdice import DiceSeen, enter_seen
from shutbox.companion.live.wording import game_resumed, game_started, help_text, recorded, tiles_held
from shutbox.companion.store.database import GameStore
from shutbox.firmware.host.protocol import Bye, Crash, Hello, Snapshot
from shutbox.game.events import Event, ThrowEvent
from shutbox.game.gamefile import rules_from_settings
from shutbox.game.replay import CheckedMove, Game
from shutbox.game.rules import IllegalMove, plus
from shutbox.kit.model import Rules

Reply = Future[tuple[bool, list[tuple[str, str]]]]


@dataclass(frozen=True)
class Typed:
    """A line the player typed."""

    text: str


@dataclass(frozen=True)
class InputClosed:
    """The input ended (end of file on stdin)."""


@dataclass(frozen=True)
class Remote:
    """A command from the web page; ``reply`` gets ``(accepted, messages)`` once the session took it."""

    command: Command
    reply: Reply = field(default_factory=Future, compare=False)


class Views:
    """Several views shown the same session (the terminal and the web scoreboard)."""

    def __init__(self, *views: View) -> None:
        self.views = list(views)

    def note(self, kind: str, text: str) -> None:
        for view in self.views:
            view.note(kind, text)

    def show(self, state: LiveState) -> None:
        for view in self.views:
            view.show(state)


class _Capture:
    """Passes a view's calls on and keeps the messages (what one remote command caused)."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.notes: list[tuple[str, str]] = []

    def note(self, kind: str, text: str) -> None:
        self.notes.append((kind, text))
        self.view.note(kind, text)

    def show(self, state: LiveState) -> None:
        self.view.show(state)


class LiveSession:
    """One game being played at the table; see the module docstring."""

    def __init__(self, rules: Rules, store: GameStore, view: View, *, game_id: int | None = None,
                 game: Game | None = None, hint: bool = False, boxless: bool = False, throws: str = "required",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rules = rules
        self.store = store
        self.view = view
        self.boxless = boxless
        self.throws = throws
        self.help = help_text(boxless=boxless, optional=throws == "optional")
        #: the players' review summaries once the game is over (set by the review, issue 14); views show it
        self.review: dict[str, Any] | None = None
        self.ledger = Ledger(rules, store, game_id=game_id, game=game)
        self.referee = Referee(throws=throws, boxless=boxless, clock=clock)
        self.button = ButtonCounter()
        self.advice = Advice()
        self.auto_hint = hint
        self.device = ""
        self.firmware = ""
        self.done = False  #: the game is over, or the player quit
        self.quit = False
        self.noise = 0  #: lines rejected by the decoder
        self.latency: float | None = None  #: seconds from the latest snapshot's arrival to its verdict
        self._last_flag = ""
        self._held_before: tuple[int, ...] = ()  #: tiles held when the scorekeeper stopped (after :meth:`resume`)

    # -- what views read -------------------------------------------------------------------------

    @property
    def game(self) -> Game | None:
        return self.ledger.game

    @property
    def game_id(self) -> int | None:
        return self.ledger.game_id

    @property
    def box(self) -> frozenset[int] | None:
        return self.referee.box

    @property
    def connected(self) -> bool:
        return self.referee.connected

    @property
    def verdict(self) -> Verdict | None:
        return self.referee.verdict

    @property
    def state(self) -> LiveState:
        """The table now, for the views."""
        game = self.game
        hint = None
        if self.auto_hint and game is not None and game.pending is not None and not game.finished:
            hint = self.advice.text(game)
        return LiveState(rules=self.rules, game=game, game_id=self.game_id, boxless=self.boxless,
                         throws=self.throws, box=self.box, connected=self.connected, device=self.device,
                         firmware=self.firmware, verdict=self.verdict, help=self.help,
                         end_accepted=self.referee.end_accepted(game), hint=hint, review=self.review)

    def show(self) -> None:
        self.view.show(self.state)

    # -- starting ------------------------------------------------------------------------------

    @classmethod
    def resume(cls, store: GameStore, view: View, game_id: int, **kwargs: Any) -> LiveSession:
        """The session of a stored game, replayed from its events."""
        store.claim(game_id)  # one scorekeeper per game (issue 11): refused here if another one has it
        row = store.game(game_id)
        rules = rules_from_settings(row.settings, f"game {game_id}")
        try:
            game = Game.from_events(rules, store.events(game_id))
        except IllegalMove as exc:
            raise ShutboxError(f"game {game_id} in {store.path} cannot be replayed: {exc}") from None
        session = cls(rules, store, view, game_id=game_id, game=game, **kwargs)
        session.done = game.finished
        held = session.ledger.held()
        if held is not None and session.referee.resume_held(game, held[0]):
            session._held_before = held[1]
        return session

    def start(self, names: Iterable[str]) -> None:
        """Begin a new game with these players (saved as the game's first event)."""
        game = self.ledger.start(names)  # IllegalMove: empty, repeated or wrong number of names
        self.view.note(*game_started(game, self.game_id, self.throws == "optional", self.boxless))
        self._settle()

    def resumed(self) -> None:
        """Say which game goes on (after :meth:`resume`) and show it."""
        assert self.game is not None
        self.view.note(*game_resumed(self.game, self.game_id))
        if self._held_before:
            self.view.note(*tiles_held(self.game, self._held_before))
        self._settle()

    # -- input ---------------------------------------------------------------------------------

    def handle(self, item: LinkEvent | Typed | Remote | InputClosed | Command | CameraRead | PhotoPost | DiceSeen) \
            -> None:
        """Take one link event, typed line, page command, command, or dice read (the camera, a posted photo, smart
        dice)."""
        if isinstance(item, Received):
            self._received(item)
        elif isinstance(item, Typed):
            self.typed(item.text)
        elif isinstance(item, Remote):
            self._remote(item)
        elif isinstance(item, Connected | Disconnected | Noise | AtRepl | Failed):
            self._link_event(item)
        elif isinstance(item, InputClosed):
            self.stop()
        elif isinstance(item, CameraRead | PhotoPost):
            enter_dice(self, item)  # pyright: ignore[reportArgumentType]  (camera.py names this class lazily)
        elif isinstance(item, DiceSeen):
            enter_seen(self, item)  # pyright: ignore[reportArgumentType]  (smartdice.py names this class lazily)
        else:
            self.apply(item)

    def _link_event(self, item: Connected | Disconnected | Noise | AtRepl | Failed) -> None:
        """The link connected, lost the box, heard noise or a board at its REPL, or failed."""
        if isinstance(item, Connected):
            self.button.reset()
            self.device = item.device
            self.view.note("link", f"connected to the box on {item.device}")
        elif isinstance(item, Disconnected):
            self.button.reset()
            self.referee.connected = False
            self.view.note("link", f"lost the box on {item.device} ({item.reason}); waiting for it to come back")
            self.show()
        elif isinstance(item, Noise):
            self.noise += 1
        elif isinstance(item, AtRepl):
            self.referee.connected = False
            self.view.note("link", repl_text(item.device))
            self.show()
        else:
            raise item.error

    def _received(self, item: Received) -> None:
        """A message from the box."""
        message = item.message
        if isinstance(message, Snapshot):
            self.on_box(message.shut_tiles)
            self.latency = time.perf_counter() - item.arrived
            if self.button.pressed(message.presses):
                self.view.note("info", "button pressed: end of turn")
                self.apply(End(source="button"))
        elif isinstance(message, Hello):
            self.firmware = f"firmware {message.firmware}, {message.board}"
        elif isinstance(message, Crash):
            self.referee.connected = False
            self.view.note("link", crash_text(self.device or "the port", message))
            self.show()
        elif isinstance(message, Bye):
            self.referee.connected = False
            self.view.note("link", "the box left for its REPL; restart it to go on")
            self.show()

    def _remote(self, item: Remote) -> None:
        """A command from the web page; the reply says whether it was refused, and what it caused."""
        view, capture = self.view, _Capture(self.view)
        self.view = capture
        try:
            self.apply(item.command)
        except BaseException:  # the session's own failure (e.g. the database) ends it; the page hears why
            if not item.reply.done():
                item.reply.set_result((False, [*capture.notes, ("refused", "the scorekeeper stopped")]))
            raise
        finally:
            self.view = view
        if not item.reply.done():
            item.reply.set_result((not any(k == "refused" for k, _ in capture.notes), capture.notes))

    def stop(self) -> None:
        self.done = True
        self.quit = not (self.game is not None and self.game.finished)

    def on_box(self, shut: Iterable[int]) -> None:
        """The box reports these tiles shut."""
        self.apply(BoxSeen(frozenset(shut)))

    def typed(self, text: str) -> None:
        """A typed line: read into a command, then applied."""
        try:
            command = parse_line(text)
        except NotUnderstood as exc:
            self.view.note("refused", f"{exc}; {self.help}" if str(exc).endswith("not understood") else str(exc))
            return
        if command is None:
            self.show()
            return
        self.apply(command)

    def apply(self, command: Command) -> None:
        """One command, from wherever it came."""
        if isinstance(command, Quit):
            self.stop()
        elif isinstance(command, Help):
            self.view.note("info", self.help)
        elif isinstance(command, Hint):
            self.view.note("hint", self.hint_text())
        elif isinstance(command, BoxSeen):
            self.referee.seen(command.shut)
            self._settle()
        else:
            self._carry_out(self.referee.rule(command, self.game))

    def _carry_out(self, ruling: Ruling) -> None:
        if ruling.refused is not None:
            self.view.note("refused", ruling.refused)
        elif ruling.prompt is not None:
            self.view.note("refused", ruling.prompt)
        elif ruling.events:
            try:
                self._commit(ruling.events)
            except IllegalMove as exc:
                self.view.note("refused", str(exc))
        self._settle()

    # -- recording -----------------------------------------------------------------------------

    def _commit(self, events: tuple[Event | CheckedMove, ...]) -> None:
        """Check and save the events (IllegalMove leaves everything unchanged), then say what they did."""
        changes = self.ledger.commit(events)
        game = self.game
        assert game is not None
        for change in changes:
            for kind, text in recorded(change, game):
                self.view.note(kind, text)
        if game.finished:
            self.done = True
        elif isinstance(changes[-1].event, ThrowEvent) and game.pending is not None and self.auto_hint:
            self.view.note("hint", self.hint_text())

    def _settle(self) -> None:
        """Judge the box against the game; record what the box completed; show the result."""
        game = self.game
        while True:
            verdict = self.referee.judge(game)
            if verdict is None or verdict.kind != "complete" or verdict.checked is None:
                break
            try:
                self._commit((verdict.checked,))  # ruled on once, by the game, in the verdict
            except IllegalMove as exc:  # a move the game allowed cannot fail; this is a safety net
                self.referee.verdict = verdict = Verdict("flag", f"{exc}: put {plus(verdict.tiles)} back",
                                                         verdict.tiles)
                break
            game = self.game
        self._keep_held()
        if verdict is not None and verdict.kind == "flag" and verdict.message != self._last_flag:
            self.view.note("flag", verdict.message)
        self._last_flag = verdict.message if verdict is not None and verdict.kind == "flag" else ""
        self.show()

    def _keep_held(self) -> None:
        """Throws optional: save the tiles held on the box (moved with no throw entered) before they are shown,
        so a scorekeeper restarted in the turn goes on with them."""
        game = self.game
        if game is None or self.game_id is None:
            return
        turn = self.referee.held_turn(game)
        if turn is None:
            return
        held = self.referee.held(game)
        self.ledger.hold(turn, held.tiles if held is not None else ())

    # -- hints ---------------------------------------------------------------------------------

    def hint_text(self) -> str:
        """The advisor's best move for the pending throw."""
        return self.advice.text(self.game)
