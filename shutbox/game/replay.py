"""A game derived by replaying its event record: turns, rounds, totals, drop-outs, winners, stakes.

``Game.from_events(rules, events)`` replays a record (see :mod:`shutbox.game.events`: typed events, or their JSON
objects as saved); ``game.apply(event)`` appends one event after checking it, raising
:class:`~shutbox.game.rules.IllegalMove` with a player's reason and leaving the game unchanged;
``game.to_events()`` returns the record (typed events), so ``Game.from_events(rules, game.to_events())`` is the
same game. A move is validated once: ``game.check(event)`` rules on a ``shut``/``open`` event without
changing the game and returns a :class:`CheckedMove`, which ``game.apply`` then commits without checking
again (as long as the game has not changed since; a stale one is checked afresh).

How each match format runs (RULES.md names; docs/RULES.md gives each decision's source):

- ``round``: every player takes one turn in the order of the ``players`` event; the lowest score
  wins, tied lowest scores share the win. Shutting the box wins at once: the players after do not
  play. The game is one round.
- ``drop-out``: rounds repeat; each turn's score is added to the player's total. A player whose
  total reaches the limit drops out as soon as that turn ends; the last player left wins at once.
- ``tournament``: as drop-out, but the first player whose total reaches the limit loses and the
  match ends at once; the player(s) with the lowest total of the others win.
- In both cumulative formats every still-active player plays each round, in the ``players`` order;
  shutting the box wins that round at once (players after it skip that round, adding nothing).
  A round's winner is the lowest score among the round's players still in the match when it ends
  (a player who dropped out, or lost the tournament, in that round cannot win it). A round the end
  of the match cuts short (some still-active player had no turn in it) has no winner: it is *cut
  short* and every stake paid into it is returned.
- ``long-game`` (two players): the first player shuts tiles as usual. When that turn ends, the other
  takes the board as it is and *uncovers* (``open`` events): each throw reopens shut tiles adding up
  to it, under the same rules with the roles of open and shut swapped: the one-die rule and the
  maximum tiles per throw look at the tiles still shut (``high-shut``: one die once every tile from
  7 up is open again). Turns alternate, each player keeping their role, until one shuts the box or
  uncovers it completely and wins. The turn score shown is what the player left undone (open tiles
  when shutting, shut tiles when uncovering).
  **Doubles**, the source's "when a double is thrown, the player gets an extra turn": a player
  throws again after every throw that moves tiles anyway, so the extra turn matters only when the
  throw admits no move. Precisely: in the long game a double (every die showing the same pips, two
  or more dice) that admits no move does not end the turn; the player throws again. A throw
  recorded by total only counts as a double only when its total says so (6 x dice, or the number
  of dice while one die cannot show it).

Throws optional (a box keeps score by itself; docs/RULES.md): a ``shut``/``open`` event marked ``unverified``
holds tiles moved with no throw entered (any tiles in play; ``Throw.unverified``), and an ``end_turn`` marked
``declared`` is the players ending the turn, accepted unless an entered throw is unused and can still move;
such a turn is ``Turn.unverified``.

Ending a turn: a throw that admits no move ends it by itself. An ``end_turn`` event is the report of
a throw that was not entered (box-only play): it is accepted only when no pending throw can still
move tiles and some throw the player may make admits no move, and it is marked *unverified*
(``Throw.unverified``, ``Turn.unverified_end``). Where throws are typed, :meth:`Game.end_refusal`
with ``typed=True`` says why ``end`` is refused (the turn is never over until a throw admits no move).

Stakes (``rules.stake`` > 0): at the start of each round every player still in the match pays the
stake into the pool. The round's winner takes the pool; tied winners split it. A player who shuts
the box takes the pool and every other player of that round pays them a further stake, so each
pays double the stake (round, drop-out, tournament). A cut-short round returns every stake. The long
game is one pool: its winner takes it single, whether they shut or uncovered the box.
``Round.paid``/``Round.payouts`` hold the money per player; ``Game.balance`` the running net.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from shutbox.base.text import name_key, shown_name
from shutbox.game import events as ev
from shutbox.game.events import (
    EndTurnEvent,
    Event,
    Move,
    OpenEvent,
    PlayersEvent,
    ShutEvent,
    ThrowEvent,
    UndoEvent,
)
from shutbox.game.formats import BOX_DONE, FIRST_TO_LIMIT, match_format
from shutbox.game.rules import (
    IllegalMove,
    check_dice,
    check_move,
    check_total,
    dice_counts,
    is_double,
    legal_moves,
    only_a_double,
    parse_tiles,
    plus,
    score,
    throw_totals,
    tiles_out,
)
from shutbox.kit.model import Rules

SHUT, UNCOVER = "shut", "uncover"

_LINEAGES = itertools.count(1)  #: tells games apart (a copy of a game keeps its lineage)


@dataclass(frozen=True)
class PhaseWords:
    """How a phase is worded everywhere (terminal, history, reports, sheets, refusals)."""

    verb: str  #: shut / uncover
    doing: str  #: shutting / uncovering
    does: str  #: shuts / uncovers
    done: str  #: shut / uncovered
    left: str  #: what a turn's score counts: left open / left shut


#: The words of each phase, stated once.
PHASE_WORDS = {
    SHUT: PhaseWords("shut", "shutting", "shuts", "shut", "left open"),
    UNCOVER: PhaseWords("uncover", "uncovering", "uncovers", "uncovered", "left shut"),
}


def tiles_in_play(rules: Rules, phase: str, board: tuple[int, ...]) -> tuple[int, ...]:
    """The tiles a player in ``phase`` works on while ``board`` is open: the open tiles, or (uncovering) the
    shut ones. It is its own inverse: given the tiles in play, it returns the open tiles."""
    return tiles_out(rules, board) if phase == UNCOVER else board


@dataclass
class Throw:
    """One throw of a turn and what it did."""

    dice: tuple[int, ...] | None  #: pips per die; None when not entered
    total: int | None  #: None for a dead throw reported by ``end_turn``
    tiles: tuple[int, ...] | None = None  #: tiles shut (or uncovered) with it; None if none yet / none possible
    dead: bool = False  #: it admitted no move
    extra: bool = False  #: long game: a dead double, so the player threw again
    unverified: bool = False  #: not entered (``end_turn``, or tiles moved with no throw): the rules could not check it

    @property
    def double(self) -> bool:
        """Every die shows the same pips (two or more dice)."""
        return self.dice is not None and is_double(self.dice)


@dataclass
class Turn:
    """One player's turn: from the first throw until a throw admits no move or the box is done."""

    number: int  #: 1-based across the game
    round: int  #: 1-based round number
    player: str
    phase: str  #: "shut", or "uncover" (long game, second player)
    start_open: tuple[int, ...]  #: open tiles when the turn began
    open_tiles: tuple[int, ...]  #: open tiles now (at the end, once ended)
    throws: list[Throw] = field(default_factory=list)
    ended: bool = False
    score: int | None = None  #: once ended
    left: tuple[int, ...] = ()  #: once ended: the tiles its score counts (open when shutting, shut when uncovering)
    shut_box: bool = False  #: every tile shut in this turn
    uncovered_box: bool = False  #: long game: every tile reopened in this turn

    @property
    def unverified_end(self) -> bool:
        """The turn was ended by an ``end_turn`` report the rules could not check (no throw entered)."""
        return self.ended and bool(self.throws) and self.throws[-1].unverified

    @property
    def unverified(self) -> bool:
        """Some of the turn the rules could not check: it ended without a dead throw entered, or tiles moved
        with no throw entered (throws optional)."""
        return any(t.unverified for t in self.throws)


@dataclass
class Round:
    """One round: every active player's turn (fewer if the box was shut) and the pool."""

    number: int
    players: tuple[str, ...]  #: in the round, in playing order (each paid the stake)
    turns: list[Turn] = field(default_factory=list)
    finished: bool = False
    scores: dict[str, int] = field(default_factory=dict)  #: per player who played (long game: latest turn)
    winners: tuple[str, ...] = ()  #: none when cut short
    cut_short: bool = False  #: the match ended before every player still in it had a turn: stakes returned
    shut_box_by: str | None = None
    pool: float = 0.0
    paid: dict[str, float] = field(default_factory=dict)  #: what each paid in (stake, plus the extra stake)
    payouts: dict[str, float] = field(default_factory=dict)  #: what each received

    @property
    def net(self) -> dict[str, float]:
        """Money won (positive) or lost per player in this round."""
        return {p: self.payouts.get(p, 0.0) - self.paid.get(p, 0.0) for p in self.players}


@dataclass(frozen=True)
class CheckedMove:
    """A ``shut``/``open`` event the rules allowed on a game as it stood (:meth:`Game.check`)."""

    event: Move  #: the event, its shape checked
    tiles: tuple[int, ...]  #: the tiles it moves, sorted
    lineage: int  #: the game it was checked on ...
    version: int  #: ... after how many applied events

    def stamped(self, at: float) -> CheckedMove:
        """The same move with the time it is recorded."""
        return replace(self, event=self.event.stamped(at))


class Game:
    """The state of a game, derived from its events; see the module docstring for the formats."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.format = match_format(rules)  #: what the match format means for play
        self._events: list[Event] = []  # everything recorded, undo events included
        self._lineage = next(_LINEAGES)
        self._reset()

    def _reset(self) -> None:
        self._effective: list[Event] = []  # events in effect (after undos)
        self.players: tuple[str, ...] = ()
        self.rounds: list[Round] = []
        self.board: tuple[int, ...] = self.rules.tile_numbers  #: open tiles
        self.pending: Throw | None = None  #: a throw waiting for its tiles
        self.totals: dict[str, int] = {}  #: sum of each player's turn scores (not kept in the long game)
        self.eliminated: list[str] = []  #: drop-out, in the order they dropped out
        self.loser: str | None = None  #: tournament
        self.winners: tuple[str, ...] = ()  #: match winners, once finished
        self.finished = False
        self.balance: dict[str, float] = {}

    # ----------------------------------------------------------------------------- record
    @classmethod
    def from_events(cls, rules: Rules, events: Iterable[Event | Mapping[str, Any]]) -> Game:
        """Replay a record (typed events or their JSON objects); an illegal event raises IllegalMove naming its
        position and reason."""
        game = cls(rules)
        for index, event in enumerate(events, start=1):
            try:
                game.apply(event)
            except IllegalMove as exc:
                kind = event.get("type") if isinstance(event, Mapping) else event.type
                raise IllegalMove(f"event {index}" + (f" ({kind})" if kind else "") + f": {exc}") from None
        return game

    def to_events(self) -> list[Event]:
        """The record (a copy), undo events included."""
        return list(self._events)

    def effective_events(self) -> list[Event]:
        """The events in effect (a copy): the record once every ``undo`` has withdrawn its predecessor."""
        return list(self._effective)

    def check(self, event: Move | Mapping[str, Any]) -> CheckedMove:
        """Rule on a ``shut``/``open`` event without changing the game: IllegalMove with the reason, or the
        move, which :meth:`apply` commits without checking it again."""
        clean = ev.checked(event)
        if not isinstance(clean, (ShutEvent, OpenEvent)):
            raise ValueError(f"only moves are checked ahead, not {clean.type!r} events")
        self._playing()
        chosen = self._check_move(clean.type, list(clean.tiles), unverified=clean.unverified)
        return CheckedMove(clean, chosen, self._lineage, len(self._events))

    def apply(self, event: Event | Mapping[str, Any] | CheckedMove) -> None:
        """Check and append one event (a :class:`CheckedMove` still current is not checked again); on
        IllegalMove the game is unchanged."""
        if isinstance(event, CheckedMove):
            if (event.lineage, event.version) == (self._lineage, len(self._events)):
                move = event.event
                self._make_move(move.type, event.tiles, unverified=move.unverified)
                self._effective.append(move)
                self._events.append(move)
                return
            event = event.event  # the game changed since: check it afresh
        clean = ev.checked(event)
        if isinstance(clean, UndoEvent):
            if not self._effective:
                raise IllegalMove("there is nothing to undo")
            keep = self._effective[:-1]
            self._reset()
            for e in keep:
                self._apply(e)
        else:
            self._apply(clean)
        self._events.append(clean)

    def _playing(self) -> None:
        """IllegalMove unless the game takes moves: it has players and is not over."""
        if self.finished:
            raise IllegalMove("the game is over")
        if not self.players:
            raise IllegalMove("the game has no players yet")

    def _apply(self, e: Event) -> None:
        if isinstance(e, PlayersEvent):
            self._start(list(e.names))
            self._effective.append(e)
            return
        self._playing()
        if isinstance(e, ThrowEvent):
            self._throw(e)
        elif isinstance(e, (ShutEvent, OpenEvent)):
            self._make_move(e.type, self._check_move(e.type, list(e.tiles), e.unverified), e.unverified)
        elif isinstance(e, EndTurnEvent):
            self._end_turn_reported(declared=e.declared)
        self._effective.append(e)

    # ----------------------------------------------------------------------------- queries
    @property
    def turns(self) -> list[Turn]:
        """Every turn so far, in order."""
        return [t for r in self.rounds for t in r.turns]

    @property
    def current_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def current_turn(self) -> Turn | None:
        """The turn in progress, or None between turns and once the game is over."""
        r = self.current_round
        if r and r.turns and not r.turns[-1].ended:
            return r.turns[-1]
        return None

    @property
    def current_player(self) -> str | None:
        """Whose turn it is (or is about to be); None once the game is over."""
        if self.finished or not self.players:
            return None
        turn = self.current_turn
        if turn:
            return turn.player
        return self._next_player()

    @property
    def phase(self) -> str:
        """``shut``, or ``uncover`` for the long game's second player."""
        player = self.current_player
        if self.format.uncovering and player is not None and player == self.players[1]:
            return UNCOVER
        return SHUT

    @property
    def active(self) -> tuple[str, ...]:
        """Players still in the match."""
        return tuple(p for p in self.players if p not in self.eliminated)

    @property
    def in_play(self) -> tuple[int, ...]:
        """The tiles the current player works on: open tiles, or (uncovering) shut tiles."""
        return self._in_play(self.phase)

    def _in_play(self, phase: str) -> tuple[int, ...]:
        return tiles_in_play(self.rules, phase, self.board)

    def dice_counts(self) -> tuple[int, ...]:
        """How many dice the current player may throw next."""
        return dice_counts(self.rules, self.in_play)

    def legal_moves(self) -> tuple[tuple[int, ...], ...]:
        """The moves for the pending throw (empty if there is none)."""
        if self.pending is None or self.pending.total is None:
            return ()
        return legal_moves(self.rules, self.in_play, self.pending.total)

    # ----------------------------------------------------------------------------- progression
    def _start(self, names: list[str]) -> None:
        if self.players:
            raise IllegalMove("the players are already set")
        cleaned = [shown_name(n) for n in names]
        if any(not n for n in cleaned):
            raise IllegalMove("a player name may not be empty")
        seen: set[str] = set()
        for n in cleaned:
            if name_key(n) in seen:
                raise IllegalMove(f"player {n!r} is listed twice")
            seen.add(name_key(n))
        refusal = self.format.players_refusal(len(cleaned))
        if refusal:
            raise IllegalMove(refusal)
        self.players = tuple(cleaned)
        self.totals = {p: 0 for p in cleaned}
        self.balance = {p: 0.0 for p in cleaned}
        self._new_round()

    def _new_round(self) -> None:
        players = self.active
        stake = float(self.rules.stake)
        self.rounds.append(Round(
            number=len(self.rounds) + 1, players=players, pool=stake * len(players),
            paid={p: stake for p in players}, payouts={p: 0.0 for p in players},
        ))

    def _next_player(self) -> str:
        r = self.rounds[-1]
        if self.format.uncovering:  # the turns alternate in the one round
            return self.players[len(r.turns) % 2]
        played = {t.player for t in r.turns}
        return next(p for p in r.players if p not in played)

    def _turn(self) -> Turn:
        """The turn in progress, starting one if needed."""
        turn = self.current_turn
        if turn is None:
            r = self.rounds[-1]
            turn = Turn(number=len(self.turns) + 1, round=r.number, player=self._next_player(),
                        phase=self.phase, start_open=self.board, open_tiles=self.board)
            r.turns.append(turn)
        return turn

    def _throw(self, e: ThrowEvent) -> None:
        if self.pending is not None:
            raise IllegalMove(f"the throw of {self.pending.total} has not been used yet: "
                              f"{self._verb()} tiles adding up to {self.pending.total} first")
        in_play, left = self.in_play, self._left_word()
        if e.dice is not None:
            dice = e.dice
            total = check_dice(self.rules, in_play, dice, left)
        else:
            dice, total = None, e.total
            assert total is not None  # a checked throw has its dice or its total
            check_total(self.rules, in_play, total, left)
        turn = self._turn()
        throw = Throw(dice=dice, total=total)
        turn.throws.append(throw)
        if legal_moves(self.rules, in_play, total):
            self.pending = throw
            return
        throw.dead = True
        if self.format.double_throws_again and (throw.double or (dice is None and self._double_total(total))):
            throw.extra = True
            return
        self._end_turn(turn)

    def _double_total(self, total: int) -> bool:
        """A total only a double can show, with the current player's tiles in play."""
        return only_a_double(self.rules, self.in_play, total)

    def _verb(self) -> str:
        return PHASE_WORDS[self.phase].verb

    def _left_word(self) -> str:
        """What the tiles in play are on the board: ``open``, or ``shut`` for the uncovering player."""
        return "shut" if self.phase == UNCOVER else "open"

    def _check_move(self, kind: str, tiles: list[int], unverified: bool) -> tuple[int, ...]:
        """The one check of a move (nothing changes): IllegalMove with the reason, or the tiles, sorted."""
        uncovering = self.phase == UNCOVER
        if uncovering and kind == "shut":
            raise IllegalMove(f"{self.current_player} is uncovering tiles in the long game, not shutting them")
        if not uncovering and kind == "open":
            if self.format.uncovering:
                raise IllegalMove(f"{self.current_player} is shutting tiles, not uncovering them")
            raise IllegalMove("tiles are only uncovered in the long game")
        in_play = self.in_play
        words = ("uncover", "open") if uncovering else ("shut", "shut")
        if unverified:
            # Tiles moved on the box with no throw entered (throws optional): any tiles in play, unchecked.
            if self.pending is not None:
                raise IllegalMove(f"the throw of {self.pending.total} has not been used yet: "
                                  f"{self._verb()} tiles adding up to {self.pending.total} first")
            return self._tiles_in_play(tiles, *words)
        if self.pending is None:
            # The dice were not entered: the throw is the tiles' sum, if the rules allow that total.
            total = sum(t for t in tiles if isinstance(t, int))
            chosen = check_move(self.rules, in_play, total, tiles, *words)
            check_total(self.rules, in_play, total, self._left_word())
            return chosen
        assert self.pending.total is not None
        return check_move(self.rules, in_play, self.pending.total, tiles, *words)

    def _make_move(self, kind: str, chosen: tuple[int, ...], unverified: bool) -> None:
        """Carry out a move :meth:`_check_move` allowed."""
        uncovering = self.phase == UNCOVER
        turn = self._turn()
        if unverified:
            throw = Throw(dice=None, total=None, unverified=True)
            turn.throws.append(throw)
        elif self.pending is None:
            throw = Throw(dice=None, total=sum(chosen))
            turn.throws.append(throw)
        else:
            throw = self.pending
        throw.tiles = chosen
        self.pending = None
        if uncovering:
            self.board = tuple(sorted(set(self.board) | set(chosen)))
        else:
            self.board = tuple(t for t in self.board if t not in chosen)
        turn.open_tiles = self.board
        if uncovering and len(self.board) == self.rules.tiles:
            turn.uncovered_box = True
            self._end_turn(turn)
        elif not self.board:
            turn.shut_box = True
            self._end_turn(turn)

    def _tiles_in_play(self, tiles: list[int], verb: str, state_word: str) -> tuple[int, ...]:
        chosen = parse_tiles(self.rules, tiles)
        if not chosen:
            raise IllegalMove(f"name at least one tile to {verb}")
        for t in chosen:
            if t not in self.in_play:
                raise IllegalMove(f"tile {t} is already {state_word}")
        return chosen

    def declared_end_refusal(self) -> str | None:
        """Why the players cannot end the turn now (throws optional), or None: only an entered throw that is
        unused and can still move tiles keeps the turn going."""
        if self.finished:
            return "the game is over"
        if not self.players:
            return "the game has no players yet"
        if self.pending is not None:
            return self.end_refusal(typed=False)
        return None

    def end_refusal(self, typed: bool) -> str | None:
        """Why ``end`` cannot end the turn now, or None when an (unverified) ``end_turn`` is accepted.

        ``typed``: the throws are typed, so a throw that admits no move has already ended the turn by
        itself and ``end`` is always refused with the reason. Otherwise (box-only play, throws not
        entered) ``end`` is accepted when no pending throw can still move tiles and some throw the
        player may make admits no move.
        """
        if self.finished:
            return "the game is over"
        if not self.players:
            return "the game has no players yet"
        in_play, verb = self.in_play, self._verb()
        if self.pending is not None:
            assert self.pending.total is not None
            moves = legal_moves(self.rules, in_play, self.pending.total)
            shown = ", ".join(plus(m) for m in moves[:4]) + (", …" if len(moves) > 4 else "")
            return f"the turn is not over: the throw of {self.pending.total} can still {verb} {shown}"
        if typed:
            return (f"the turn is not over: throw the dice; a throw that can {verb} no tiles ends the turn "
                    "by itself")
        counts = dice_counts(self.rules, in_play)
        ending = {t for c in counts for t in throw_totals(c)}
        if self.format.double_throws_again:  # a dead double does not end the turn
            ending = {t for c in counts for t in throw_totals(c) if c == 1 or not self._double_total(t)}
        if all(legal_moves(self.rules, in_play, t) for t in ending):
            which = "every throw that would end the turn" if self.format.double_throws_again else "every throw"
            return f"the turn is not over: {which} can {verb} tiles now; enter the throw"
        return None

    def _end_turn_reported(self, declared: bool = False) -> None:
        refusal = self.declared_end_refusal() if declared else self.end_refusal(typed=False)
        if refusal:
            raise IllegalMove(refusal)
        turn = self._turn()
        turn.throws.append(Throw(dice=None, total=None, dead=True, unverified=True))
        self._end_turn(turn)

    def _end_turn(self, turn: Turn) -> None:
        self._progress(turn)
        if not self.finished and not self.format.uncovering:
            self.board = self.rules.tile_numbers  # the next turn starts with every tile open

    def _progress(self, turn: Turn) -> None:
        self.pending = None
        turn.ended = True
        turn.open_tiles = self.board
        rules = self.rules
        r = self.rounds[-1]
        turn.left = self._in_play(turn.phase)  # what the turn left undone
        turn.score = points = score(rules, turn.left)
        r.scores[turn.player] = points
        fmt = self.format
        if fmt.ends == BOX_DONE:
            if turn.shut_box or turn.uncovered_box:
                self._settle(r, (turn.player,), shut_by=turn.player if turn.shut_box else None)
                self._finish((turn.player,))
            return
        self.totals[turn.player] += points
        if fmt.limit_applies and self.totals[turn.player] >= (rules.limit or 0):
            if fmt.ends == FIRST_TO_LIMIT:
                self.loser = turn.player
                others = [p for p in self.players if p != turn.player]
                low = min(self.totals[p] for p in others)
                self._settle_round(r, turn)
                self._finish(tuple(p for p in others if self.totals[p] == low))
                return
            self.eliminated.append(turn.player)
            if len(self.active) == 1:
                self._settle_round(r, turn)
                self._finish(self.active)
                return
        played = {t.player for t in r.turns}
        if turn.shut_box or played >= set(r.players):
            self._settle_round(r, turn)
            if fmt.rounds_repeat:
                self._new_round()
            else:
                self._finish(r.winners)

    def _still_in(self, player: str) -> bool:
        return player not in self.eliminated and player != self.loser

    def _settle_round(self, r: Round, last: Turn) -> None:
        """Settle a round that ends: shut box, complete (lowest score still in the match), or cut short."""
        if last.shut_box:
            self._settle(r, (last.player,), shut_by=last.player, double=True)
            return
        played = {t.player for t in r.turns}
        if any(self._still_in(p) and p not in played for p in r.players):
            self._settle(r, ())  # cut short by the end of the match
            return
        eligible = {p: s for p, s in r.scores.items() if self._still_in(p)}
        low = min(eligible.values())
        self._settle(r, tuple(p for p in r.players if eligible.get(p) == low))

    def _settle(self, r: Round, winners: tuple[str, ...], shut_by: str | None = None, double: bool = False) -> None:
        """Pay the round: winners split the pool; ``double``: the shutter also gets a further stake from
        every other player; no winners: the round was cut short and every stake goes back."""
        r.finished = True
        r.winners = winners
        r.shut_box_by = shut_by
        stake = float(self.rules.stake)
        if not winners:
            r.cut_short = True
            r.payouts = dict(r.paid)
        elif double:
            others = [p for p in r.players if p != winners[0]]
            for p in others:
                r.paid[p] += stake
            r.payouts[winners[0]] = r.pool + stake * len(others)
        else:
            for p in winners:
                r.payouts[p] = r.pool / len(winners)
        for p, amount in r.net.items():
            self.balance[p] += amount

    def _finish(self, winners: tuple[str, ...]) -> None:
        self.finished = True
        self.winners = winners
        self.pending = None

    # ----------------------------------------------------------------------------- shortcuts
    def add_players(self, *names: str) -> Game:
        self.apply(ev.players(names))
        return self

    def throw(self, *dice: int, total: int | None = None) -> Game:
        self.apply(ev.throw(*dice, total=total))
        return self

    def shut(self, *tiles: int) -> Game:
        self.apply(ev.shut(*tiles))
        return self

    def uncover(self, *tiles: int) -> Game:
        self.apply(ev.uncover(*tiles))
        return self

    def end_turn(self) -> Game:
        """Report a throw that admitted no move without entering it (an unverified end)."""
        self.apply(ev.end_turn())
        return self

    def undo(self) -> Game:
        self.apply(ev.undo())
        return self
