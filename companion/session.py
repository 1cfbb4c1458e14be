"""A live game at the box: typed throws and the box's tiles become events, each saved before it is shown.

:class:`LiveSession` is what ``shutbox play`` and ``shutbox sim`` both run. It takes, one at a time,

- link events (:mod:`shutbox.companion.link`): a box snapshot is judged by the referee
  (:func:`shutbox.companion.live.judge`); a complete move becomes a ``shut``/``open`` event;
- typed lines (:class:`Typed`): ``3 5`` (two dice), ``4`` (one die), ``end``, ``undo``, ``hint``,
  ``quit``, ``help``; a press of the box's button (a rise in the snapshot's press count) is ``end``;
- the same lines from the web scoreboard (:class:`Remote`), answered with what they caused.

Without a box (``boxless``: a plain wooden box, ``--port none``) the board is the game's own, and the
tiles are typed too: ``shut 3 5`` (``open 3 5`` when uncovering in the long game).

Every event is checked by the rules engine (``game.apply``), then committed to the
:class:`~shutbox.companion.store.GameStore`, and only then shown. A throw is taken only while the box
agrees with the game (not while tiles are flagged or the next turn's board is not set up, nor while
the box is unplugged). ``undo`` withdraws the latest typed entry (a throw or ``end``); a move made on
the box stands, as at a real table.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

from shutbox.companion.link import Connected, Disconnected, Failed, LinkEvent, Noise, Received
from shutbox.companion.live import Verdict, expected_shut, judge
from shutbox.companion.store import GameStore
from shutbox.errors import ShutboxError
from shutbox.firmware.host.protocol import PRESSES_MODULO, Bye, Hello, Snapshot
from shutbox.game import events as ev
from shutbox.game.gamefile import rules_from_settings, settings_of
from shutbox.game.policy import hint_objective
from shutbox.game.replay import PHASE_WORDS, UNCOVER, Game, Turn
from shutbox.game.report import describe, game_result_text, round_result_text, turn_score_text
from shutbox.game.rules import IllegalMove, plus
from shutbox.model import MAX_DICE, Rules
from shutbox.usertext import quoted

HELP = ("type a throw: '3 5' (the dice), '4' (one die) or '= 27' (a drawn total); "
        "or end (or press the box's button), undo, hint, quit")
HELP_BOXLESS = ("type a throw: '3 5' (the dice), '4' (one die) or '= 27' (a drawn total), "
                "then the tiles: 'shut 3 5'; or end, undo, hint, quit")
#: A count that jumps further than this between two snapshots is a restarted box, not presses.
MAX_PRESSES_BETWEEN = 100
#: one die or several (as many as the rules' dice; the rules engine checks the count), each at most 4 digits
_DICE = re.compile(rf"^\s*[0-9]{{1,4}}(?:\s*[ ,+]\s*[0-9]{{1,4}}){{0,{MAX_DICE - 1}}}\s*$")
_TILES = re.compile(r"^(shut|open|uncover|tiles)\b(.*)$")  #: ``tiles``: the web page's move, either way
#: a throw by its total (a domino or a card drawn instead of dice): ``= 27`` or ``total 27`` (rules helper)
_TOTAL = re.compile(r"^\s*(?:=|total\b)\s*([0-9]{1,4})\s*$")


@dataclass(frozen=True)
class Typed:
    """A line the player typed."""

    text: str


@dataclass(frozen=True)
class InputClosed:
    """The input ended (end of file on stdin)."""


@dataclass(frozen=True)
class Remote:
    """A line from the web scoreboard; ``reply`` gets ``(accepted, messages)`` once the session took it."""

    text: str
    reply: Future[tuple[bool, list[tuple[str, str]]]] = field(default_factory=Future, compare=False)


class View(Protocol):
    """Where a session shows itself."""

    def note(self, kind: str, text: str) -> None:
        """One message: kind is recorded, turn, round, win, flag, refused, hint, info or link."""

    def show(self, session: LiveSession) -> None:
        """Redraw the state (called after every change; may skip when nothing visible changed)."""


class Views:
    """Several views shown the same session (the terminal and the web scoreboard)."""

    def __init__(self, *views: View) -> None:
        self.views = list(views)

    def note(self, kind: str, text: str) -> None:
        for view in self.views:
            view.note(kind, text)

    def show(self, session: LiveSession) -> None:
        for view in self.views:
            view.show(session)


class _Capture:
    """Passes a view's calls on and keeps the messages (what one remote line caused)."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.notes: list[tuple[str, str]] = []

    def note(self, kind: str, text: str) -> None:
        self.notes.append((kind, text))
        self.view.note(kind, text)

    def show(self, session: LiveSession) -> None:
        self.view.show(session)


class LiveSession:
    """One game being played at the box; see the module docstring."""

    def __init__(self, rules: Rules, store: GameStore, view: View, *, game_id: int | None = None,
                 game: Game | None = None, hint: bool = False, boxless: bool = False) -> None:
        self.rules = rules
        self.store = store
        self.view = view
        self.boxless = boxless
        self.help = HELP_BOXLESS if boxless else HELP
        #: the players' review summaries once the game is over (set by the review, issue 14); views show it
        self.review: dict[str, Any] | None = None
        self.game_id = game_id
        self.game = game
        self.auto_hint = hint
        self.box: frozenset[int] | None = None  #: tiles shut on the box, as last reported
        self.connected = False
        self.device = ""
        self.firmware = ""
        self.verdict: Verdict | None = None
        self.done = False  #: the game is over, or the player quit
        self.quit = False
        self.noise = 0  #: lines rejected by the decoder
        self.latency: float | None = None  #: seconds from the latest snapshot's arrival to its verdict
        self._last_flag = ""
        self._presses: int | None = None  #: the box's button press count, as last reported on this connection
        self._hint: tuple[tuple[Any, ...], str] | None = None  #: (phase, tiles in play, throw) and its hint

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
        return session

    @property
    def box_word(self) -> str:
        """What the players move the tiles on: ``the box``, or for box-less play ``the board``."""
        return "the board" if self.boxless else "the box"

    def start(self, names: Iterable[str]) -> None:
        """Begin a new game with these players (saved as the game's first event)."""
        if self.game is not None:
            raise ShutboxError("the players are already set")
        event = dict(ev.players(list(names)), at=_now())
        game = Game(self.rules)
        game.apply(event)  # IllegalMove: empty, repeated or wrong number of names
        self.game_id = self.store.new_game(settings_of(self.rules), event)
        self.game = game
        self.view.note("info", f"game {self.game_id}: {', '.join(game.players)} — {self.rules.match}, "
                               f"{self.rules.tiles} tiles")
        self._evaluate()

    def resumed(self) -> None:
        """Say which game goes on (after :meth:`resume`) and show it."""
        game = self.game
        assert game is not None
        self.view.note("info", f"resuming game {self.game_id}: {', '.join(game.players)} — {self.rules.match}, "
                               f"{len(game.to_events())} events replayed")
        self._evaluate()

    # -- input ---------------------------------------------------------------------------------

    def handle(self, item: LinkEvent | Typed | Remote | InputClosed) -> None:
        """Take one link event or typed line."""
        if isinstance(item, Received):
            self._received(item)
        elif isinstance(item, Typed):
            self.typed(item.text)
        elif isinstance(item, Remote):
            self._remote(item)
        elif isinstance(item, Connected):
            self._presses = None
            self.device = item.device
            self.view.note("link", f"connected to the box on {item.device}")
        elif isinstance(item, Disconnected):
            self._presses = None
            self.connected = False
            self.view.note("link", f"lost the box on {item.device} ({item.reason}); waiting for it to come back")
            self.view.show(self)
        elif isinstance(item, Noise):
            self.noise += 1
        elif isinstance(item, Failed):
            raise item.error
        elif isinstance(item, InputClosed):
            self.stop()

    def _received(self, item: Received) -> None:
        """A message from the box."""
        message = item.message
        if isinstance(message, Snapshot):
            self.on_box(message.shut_tiles)
            self.latency = time.perf_counter() - item.arrived
            self._button(message.presses)
        elif isinstance(message, Hello):
            self.firmware = f"firmware {message.firmware}, {message.board}"
        elif isinstance(message, Bye):
            self.connected = False
            self.view.note("link", "the box left for its REPL; restart it to go on")
            self.view.show(self)

    def _remote(self, item: Remote) -> None:
        """A line from the web page: taken as typed; the reply says whether it was refused, and what it caused."""
        view, capture = self.view, _Capture(self.view)
        self.view = capture
        try:
            self.typed(item.text)
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
        self.box = frozenset(shut)
        self.connected = True
        self._evaluate()

    def _button(self, presses: int) -> None:
        """A press of the box's button ends the turn, as typing ``end`` does."""
        last, self._presses = self._presses, presses
        if last is None or not 0 < (presses - last) % PRESSES_MODULO <= MAX_PRESSES_BETWEEN:
            return  # the first count of a connection, no press, or a count that restarted
        self.view.note("info", "button pressed: end of turn")
        self.typed("end")

    def typed(self, text: str) -> None:
        """A typed line: a throw, or a command."""
        word = text.strip().lower()
        if not word:
            self.view.show(self)
            return
        if word in ("quit", "q", "exit"):
            self.stop()
            return
        if word in ("help", "?"):
            self.view.note("info", self.help)
            return
        if word == "hint":
            self.view.note("hint", self.hint_text())
            return
        if word == "undo":
            self._undo()
            return
        tiles = _TILES.match(word)
        if tiles is not None:
            self._typed_tiles(tiles.group(1), tiles.group(2))
            return
        self._typed_throw(word, text)

    def _typed_throw(self, word: str, text: str) -> None:
        """A typed throw (dice, or ``= 27`` for a drawn total) or ``end``."""
        match = _DICE.match(word)
        total = _TOTAL.match(word)
        if word != "end" and match is None and total is None:
            self.view.note("refused", f"{quoted(text.strip())}: not understood; {self.help}")
            return
        refusal = self._not_ready()
        if refusal:
            self.view.note("refused", refusal)
            return
        if word == "end":  # throws are typed here, so a dead throw has ended the turn already (rules helper)
            assert self.game is not None
            self.view.note("refused", self.game.end_refusal(typed=True) or "the turn is over")
            self.view.show(self)
            return
        if total is not None:
            self._try(ev.throw(total=int(total.group(1))))
            return
        self._try(ev.throw(*(int(d) for d in re.findall(r"[0-9]+", word))))

    def _typed_tiles(self, verb: str, rest: str) -> None:
        """``shut 3 5`` (``open 3 5`` when uncovering; ``tiles 3 5`` either): box-less play only; the rules
        engine checks the move."""
        if not self.boxless:
            self.view.note("refused", "move the tiles on the box: it reports them (entering tiles is for "
                                      "box-less play, --port none)")
            return
        words = rest.replace(",", " ").replace("+", " ").split()
        if not words or not all(re.fullmatch(r"[0-9]{1,4}", w) for w in words):
            self.view.note("refused", f"{verb} {quoted(rest.strip())}: give tile numbers, e.g. '{verb} 3 5'")
            return
        refusal = self._not_ready()
        if refusal:
            self.view.note("refused", refusal)
            return
        game = self.game
        assert game is not None
        if game.pending is None:
            self.view.note("refused", f"enter the throw first, then {PHASE_WORDS[game.phase].verb} its tiles")
            return
        numbers = [int(w) for w in words]
        uncovering = game.phase == UNCOVER
        if verb == "tiles":
            verb = "open" if uncovering else "shut"
        if verb == "shut" and uncovering:
            self.view.note("refused", f"{game.current_player} uncovers tiles: type 'open {' '.join(words)}'")
            return
        if verb != "shut" and not uncovering:
            self.view.note("refused", f"{game.current_player} shuts tiles: type 'shut {' '.join(words)}'")
            return
        self._try(ev.uncover(*numbers) if uncovering else ev.shut(*numbers))

    def _not_ready(self) -> str | None:
        if self.game is None:
            return "no players yet"
        if self.game.finished:
            return "the game is over"
        if self.boxless:
            return None
        if self.box is None or not self.connected:
            return "waiting for the box: the throw counts once the box is connected"
        verdict = self.verdict
        if verdict is not None and verdict.kind in ("setup", "flag"):
            return f"put the box right first: {verdict.message}"
        return None

    def _undo(self) -> None:
        if self.game is None:
            self.view.note("refused", "no players yet")
            return
        live = self.game.effective_events()
        if len(live) <= 1:
            self.view.note("refused", "there is nothing to undo")
            return
        if live[-1]["type"] in ("shut", "open") and not self.boxless:
            self.view.note("refused", "a move made on the box stands; undo withdraws only a typed throw or end")
            return
        self._try(ev.undo())

    def _try(self, event: dict[str, Any]) -> None:
        try:
            self._commit(event)
        except IllegalMove as exc:
            self.view.note("refused", str(exc))
        self._evaluate()

    # -- recording -----------------------------------------------------------------------------

    def _commit(self, event: dict[str, Any]) -> None:
        """Check, save, then show one event (IllegalMove leaves everything unchanged)."""
        game = self.game
        assert game is not None and self.game_id is not None
        event = dict(event, at=_now())
        turns_before = [(t.number, t.ended) for t in game.turns]
        rounds_done = sum(r.finished for r in game.rounds)
        game.apply(event)
        try:
            self.store.append(self.game_id, event, finished=game.finished)
        except ShutboxError:
            self.game = Game.from_events(self.rules, self.store.events(self.game_id))  # back to what is saved
            raise
        self.view.note("recorded", describe(event, game))
        if event["type"] != "undo":
            self._announce(turns_before, rounds_done)
        if game.finished:
            self.done = True
        elif event["type"] == "throw" and game.pending is not None and self.auto_hint:
            self.view.note("hint", self.hint_text())

    def _announce(self, turns_before: list[tuple[int, bool]], rounds_done: int) -> None:
        game = self.game
        assert game is not None
        was_open = {n for n, ended in turns_before if not ended}
        known = {n for n, _ in turns_before}
        for turn in game.turns:
            if turn.number not in known or turn.number in was_open:
                self._announce_turn(game, turn)
        for r in game.rounds[rounds_done:]:  # a round's winners matter for the stakes
            if r.finished and game.rules.stake and game.format.pool_per_round:
                self.view.note("round", round_result_text(game, r))
        if game.finished:
            self.view.note("win", game_result_text(game))

    def _announce_turn(self, game: Game, turn: Turn) -> None:
        """What a turn that was open (or is new) did: a double thrown again, or how it ended."""
        last = turn.throws[-1] if turn.throws else None
        if not turn.ended:
            if last is not None and last.extra:
                self.view.note("turn", f"a double with no move: {turn.player} throws again")
            return
        if turn.shut_box:
            self.view.note("win", f"{turn.player} SHUT THE BOX — an instant win!")
        elif turn.uncovered_box:
            self.view.note("win", f"{turn.player} uncovered every tile — an instant win!")
        else:
            why = f"no move for {last.total}" if last is not None and last.total is not None else "no move"
            self.view.note("turn", f"{why}: {turn_score_text(game, turn)}")
        if turn.player in game.eliminated:
            self.view.note("turn", f"{turn.player} reached {game.rules.limit} and drops out")

    # -- the referee -----------------------------------------------------------------------------

    def _evaluate(self) -> None:
        """Judge the box against the game; record a complete move; show the result."""
        game = self.game
        if self.boxless and game is not None:
            self.box = expected_shut(game)  # the board is the game's own
            self.connected = True
        if game is None or self.box is None:
            self.verdict = None
            self.view.show(self)
            return
        while True:
            verdict = judge(game, self.box)
            if verdict.kind != "complete" or verdict.event is None:
                break
            try:
                self._commit(verdict.event)
            except IllegalMove as exc:  # the referee checks moves first; this is a safety net
                verdict = Verdict("flag", f"{exc}: put {plus(verdict.tiles)} back", verdict.tiles)
                break
        if verdict.kind == "flag" and verdict.message != self._last_flag:
            self.view.note("flag", verdict.message)
        self._last_flag = verdict.message if verdict.kind == "flag" else ""
        self.verdict = verdict
        self.view.show(self)

    # -- hints ---------------------------------------------------------------------------------

    def hint_text(self) -> str:
        """The advisor's best move for the pending throw (exact, or Monte Carlo for the largest sets; the
        answer is kept until the board or the throw changes, as the page asks for it on every redraw)."""
        game = self.game
        if game is None or game.finished:
            return "no game in progress"
        if game.pending is None or game.pending.total is None:
            return "throw first; the hint ranks the moves for a throw"
        key = (game.phase, game.in_play, game.pending.total)
        if self._hint is not None and self._hint[0] == key:
            return self._hint[1]
        from shutbox.game import solver

        advisor = solver.advisor(self.rules, hint_objective(self.rules))
        ranked = advisor.rank_moves(game.in_play, game.pending.total)
        best = ranked[0]
        uncovering = game.phase == UNCOVER
        verb, goal = ("uncover", "uncover every tile") if uncovering else ("shut", "shut the box")
        also = f"; {len(ranked) - 1} other move{'s' if len(ranked) != 2 else ''}" if len(ranked) > 1 else ""
        about = "" if advisor.exact else "about "
        text = (f"best: {verb} {plus(best.tiles)} — chance to {goal} {about}{best.p_shut:.1%}, "
                f"expected score {about}{best.expected_score:.1f}{also}")
        self._hint = (key, text)
        return text


def _now() -> float:
    return round(time.time(), 3)
