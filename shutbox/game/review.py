"""Game review: every decision of a recorded game measured against the exact solver.

A *decision* is a choice the rules left to the player:

- ``move``: which tiles to shut (or, uncovering, to reopen) for a throw with two or more legal moves;
- ``dice``: one die or two, before a throw, where the one-die rule allowed both (not when one die is
  forced). The choice is read from the recorded dice; a throw recorded by its total alone tells it only
  when the total fits one number of dice (7 or more: two; 1: one), otherwise that decision is skipped.

Values (under the game's own settings, by the solver's optimal policy for the objective):

- ``shut``: the probability of finishing the turn's job (shutting the box) from the position the
  choice leaves; larger is better, ``loss = value_best - value_played``;
- ``score``: the expected final score of the turn from that position; smaller is better,
  ``loss = value_played - value_best``. For a dice choice the value is that of the position *before*
  the throw, had that many dice been thrown and the best moves followed.

``loss`` is at least 0 and exactly 0 for a best move (ties included: the move played is then the best
one shown). A *mistake* gives up at least :data:`MISTAKE_SHUT` of the chance to shut (``shut``), or
raises the expected score by at least :data:`MISTAKE_SCORE` points and at least
:data:`MISTAKE_SCORE_SHARE` of the best value (``score``).

Match formats: each turn is measured on its own, from the tiles in play when it began: the objective
defaults to what the match rewards (:func:`~shutbox.game.policy.hint_objective`: the long game is won
by finishing, the other formats by low scores). The long game's uncovering turns are reviewed the way
the replay plays them: the tiles still shut are the tiles in play (they play the part the open tiles
play when shutting), so the solver's one-turn values apply to them unchanged; ``value`` is then the
chance of uncovering every tile in that turn. The long game's extra throw after a dead double is not
part of the solver's model, so long-game values slightly undervalue positions (said in the notes).

Nothing here does I/O; the solver is passed in (``solve(rules, objective)``), so callers may cache it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from shutbox.game.formats import match_format
from shutbox.game.policy import OBJECTIVES, hint_objective
from shutbox.game.replay import PHASE_WORDS, UNCOVER, Game, Throw, Turn, tiles_in_play
from shutbox.game.rules import dice_counts, legal_moves, plus, score, throw_distribution, throw_totals
from shutbox.model import Rules

#: A ``shut`` mistake: the chance to shut the box drops by at least this (0.5 percentage points).
MISTAKE_SHUT = 0.005
#: A ``score`` mistake: the expected score rises by at least this many points ...
MISTAKE_SCORE = 0.5
#: ... and by at least this share of the best expected score (so digit scores need a proportionate loss).
MISTAKE_SCORE_SHARE = 0.05
#: Losses below this are float noise: the move is a best move.
_NOISE = 1e-9


class Values(Protocol):
    """What the review needs of a solver solution (see :class:`shutbox.game.solver.Solution`)."""

    def state(self, open_tiles: tuple[int, ...] | list[int]) -> tuple[float, float]:
        """(p_shut, expected_score) with these tiles in play, before the next throw."""
        ...


Solve = Callable[[Rules, str], Values]


def mistake_rule(objective: str) -> str:
    """The mistake threshold in words."""
    if objective == "shut":
        return f"a mistake gives up at least {MISTAKE_SHUT * 100:g} percentage points of the chance to shut the box"
    return (f"a mistake raises the expected score by at least {MISTAKE_SCORE:g} and by at least "
            f"{MISTAKE_SCORE_SHARE:.0%} of the best")


def is_mistake(objective: str, loss: float, value_best: float) -> bool:
    if objective == "shut":
        return loss >= MISTAKE_SHUT - _NOISE
    return loss >= max(MISTAKE_SCORE, MISTAKE_SCORE_SHARE * abs(value_best)) - _NOISE


@dataclass(frozen=True)
class Decision:
    """One choice a player made and how it compares with the best one."""

    player: str
    turn: int  #: the turn's number across the game (1-based)
    round: int
    phase: str  #: shut / uncover
    kind: str  #: move / dice
    open: tuple[int, ...]  #: tiles open on the board before the choice
    in_play: tuple[int, ...]  #: the tiles the player works on (the open ones; uncovering: the shut ones)
    throw: int | None  #: the throw's total (for a dice choice: the throw that followed, if known)
    dice: tuple[int, ...] | None  #: the pips, when recorded
    played: tuple[int, ...] | int  #: tiles moved, or the number of dice thrown
    best: tuple[int, ...] | int  #: the best choice (the one played when it is a best one)
    value_played: float
    value_best: float
    loss: float
    options: int  #: how many legal choices there were
    mistake: bool

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "player": self.player, "turn": self.turn, "round": self.round, "phase": self.phase,
            "kind": self.kind, "open": list(self.open), "in_play": list(self.in_play), "throw": self.throw,
            "dice": list(self.dice) if self.dice is not None else None,
        }
        for key in ("played", "best"):
            value = getattr(self, key)
            out[key] = list(value) if isinstance(value, tuple) else value
        out.update(value_played=self.value_played, value_best=self.value_best, loss=self.loss,
                   options=self.options, mistake=self.mistake)
        return out


@dataclass(frozen=True)
class Point:
    """One step of a turn's chance to shut (the chart): after a throw, as played and with the best move."""

    label: str  #: ``start`` or the throw (``8``)
    played: float  #: chance to shut the box (finish the turn's job) after the move played
    best: float  #: the same after the best move for that throw
    mistake: bool = False  #: a decision at this throw (dice or move) was a mistake


@dataclass(frozen=True)
class TurnTrace:
    """A turn's chance to shut the box, throw by throw (always by the ``shut`` solution)."""

    player: str
    turn: int
    round: int
    phase: str
    points: tuple[Point, ...]
    result: str  #: ``shut the box``, ``uncovered the box``, ``score N``, ``in progress``


@dataclass(frozen=True)
class PlayerReview:
    """One player's totals."""

    name: str
    decisions: int
    best: int  #: decisions where a best choice was made
    mistakes: int
    loss: float  #: total loss
    worst: Decision | None  #: the costliest decision (None when nothing was lost)

    def as_dict(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "best": self.best, "mistakes": self.mistakes, "loss": self.loss,
                "mean_loss": self.loss / self.decisions if self.decisions else 0.0,
                "worst": self.worst.as_dict() if self.worst else None}


@dataclass(frozen=True)
class Review:
    """A whole game's review."""

    objective: str
    exact: bool  #: False when the solver's values are approximate (a size the exact solver does not reach)
    decisions: tuple[Decision, ...]
    traces: tuple[TurnTrace, ...]
    players: dict[str, PlayerReview]
    notes: tuple[str, ...] = field(default=())
    skipped: int = 0  #: dice choices that could not be read from the record

    @property
    def threshold(self) -> str:
        return mistake_rule(self.objective)

    def as_dict(self) -> dict[str, Any]:
        return {
            "objective": self.objective,
            "exact": self.exact,
            "mistake_rule": self.threshold,
            "notes": list(self.notes),
            "decisions": [d.as_dict() for d in self.decisions],
            "players": {name: p.as_dict() for name, p in self.players.items()},
            "skipped_dice_choices": self.skipped,
            "turns": [{"player": t.player, "turn": t.turn, "round": t.round, "phase": t.phase, "result": t.result,
                       "chance": [{"after": p.label, "played": p.played, "best": p.best, "mistake": p.mistake}
                                  for p in t.points]}
                      for t in self.traces],
        }


def is_exact(values: Values) -> bool:
    """Are a solution's values exact? (an approximate solution says ``exact = False``)"""
    return bool(getattr(values, "exact", True))


class _Judge:
    """Values of positions under one objective (larger ``better`` key is better)."""

    def __init__(self, rules: Rules, values: Values, objective: str) -> None:
        self.rules, self.values, self.objective = rules, values, objective

    def value(self, tiles: tuple[int, ...]) -> float:
        p, e = self.values.state(tiles)
        return p if self.objective == "shut" else e

    def better(self, a: float, b: float) -> bool:
        return a > b if self.objective == "shut" else a < b

    def loss(self, played: float, best: float) -> float:
        lost = best - played if self.objective == "shut" else played - best
        return lost if lost > _NOISE * (1.0 + abs(best)) else 0.0

    def end_value(self, tiles: tuple[int, ...]) -> float:
        """The value when the turn ends with these tiles in play."""
        if self.objective == "shut":
            return 0.0 if tiles else 1.0
        return float(score(self.rules, tiles))

    def moves(self, tiles: tuple[int, ...], throw: int) -> list[tuple[tuple[int, ...], float]]:
        """Every legal move and the value it leaves, best first (ties: the rules engine's order)."""
        ranked = [(m, self.value(tuple(t for t in tiles if t not in m))) for m in legal_moves(self.rules, tiles, throw)]
        ranked.sort(key=lambda mv: -mv[1] if self.objective == "shut" else mv[1])
        return ranked

    def after_throw(self, tiles: tuple[int, ...], throw: int) -> float:
        ranked = self.moves(tiles, throw)
        return ranked[0][1] if ranked else self.end_value(tiles)

    def with_dice(self, tiles: tuple[int, ...], count: int) -> float:
        """The value before a throw of ``count`` dice, best moves after it."""
        return sum(p * self.after_throw(tiles, t) for t, p in throw_distribution(count))


def dice_thrown(rules: Rules, in_play: tuple[int, ...], throw: Throw) -> int | None:
    """How many dice a recorded throw used, or None when the record does not say."""
    if throw.dice is not None:
        return len(throw.dice)
    if throw.total is None:
        return None
    fits = [c for c in dice_counts(rules, in_play) if throw.total in throw_totals(c)]
    return fits[0] if len(fits) == 1 else None


def _turn_in_play(rules: Rules, turn: Turn) -> tuple[int, ...]:
    return tiles_in_play(rules, turn.phase, turn.start_open)


def _board(rules: Rules, phase: str, in_play: tuple[int, ...]) -> tuple[int, ...]:
    """The open tiles on the board when ``in_play`` are the tiles in play."""
    return tiles_in_play(rules, phase, in_play)


def _turn_result(turn: Turn) -> str:
    if not turn.ended:
        return "in progress"
    if turn.shut_box:
        return "shut the box"
    if turn.uncovered_box:
        return "uncovered the box"
    return f"score {turn.score}"


class _TurnReviewer:
    """Walks one turn's throws, collecting decisions and the chart's points."""

    def __init__(self, rules: Rules, judge: _Judge, chance: _Judge, turn: Turn) -> None:
        self.rules, self.judge, self.chance, self.turn = rules, judge, chance, turn
        self.decisions: list[Decision] = []
        self.skipped = 0

    def _decision(self, kind: str, in_play: tuple[int, ...], throw: Throw, played: tuple[int, ...] | int,
                  best: tuple[int, ...] | int, value_played: float, value_best: float, options: int) -> Decision:
        loss = self.judge.loss(value_played, value_best)
        objective = self.judge.objective
        return Decision(
            player=self.turn.player, turn=self.turn.number, round=self.turn.round, phase=self.turn.phase, kind=kind,
            open=_board(self.rules, self.turn.phase, in_play), in_play=in_play, throw=throw.total,
            dice=throw.dice, played=played, best=played if loss == 0.0 else best,
            value_played=value_played, value_best=value_best, loss=loss, options=options,
            mistake=loss > 0 and is_mistake(objective, loss, value_best))

    def dice_choice(self, in_play: tuple[int, ...], throw: Throw) -> None:
        counts = dice_counts(self.rules, in_play)
        if len(counts) < 2:
            return
        used = dice_thrown(self.rules, in_play, throw)
        if used is None:
            self.skipped += 1
            return
        values = {c: self.judge.with_dice(in_play, c) for c in counts}
        best = used
        for c in counts:
            if self.judge.better(values[c], values[best]):
                best = c
        self.decisions.append(self._decision("dice", in_play, throw, used, best, values[used], values[best],
                                             len(counts)))

    def move_choice(self, in_play: tuple[int, ...], throw: Throw) -> None:
        assert throw.total is not None and throw.tiles is not None
        ranked = self.judge.moves(in_play, throw.total)
        if len(ranked) < 2:
            return
        played = dict(ranked)[throw.tiles]
        self.decisions.append(self._decision("move", in_play, throw, throw.tiles, ranked[0][0], played,
                                             ranked[0][1], len(ranked)))

    def _mistake_since(self, index: int) -> bool:
        return any(d.mistake for d in self.decisions[index:])

    def run(self) -> TurnTrace:
        in_play = _turn_in_play(self.rules, self.turn)
        start = self.chance.value(in_play)
        points = [Point("start", start, start)]
        for throw in self.turn.throws:
            if throw.total is None:  # a dead throw reported without its dice
                points.append(Point("end", 0.0, 0.0))
                continue
            before = len(self.decisions)
            self.dice_choice(in_play, throw)
            if throw.tiles is None:
                if throw.dead and not throw.extra:
                    points.append(Point(str(throw.total), 0.0, 0.0, self._mistake_since(before)))
                continue  # a dead double's extra throw, or a throw still waiting for its tiles
            self.move_choice(in_play, throw)
            best = self.chance.after_throw(in_play, throw.total)
            in_play = tuple(t for t in in_play if t not in throw.tiles)
            points.append(Point(str(throw.total), self.chance.value(in_play), best, self._mistake_since(before)))
        t = self.turn
        return TurnTrace(t.player, t.number, t.round, t.phase, tuple(points), _turn_result(t))


def _player_totals(players: Sequence[str], decisions: Sequence[Decision]) -> dict[str, PlayerReview]:
    out = {}
    for name in players:
        mine = [d for d in decisions if d.player == name]
        worst = max(mine, key=lambda d: d.loss, default=None)
        out[name] = PlayerReview(
            name=name, decisions=len(mine), best=sum(d.loss == 0.0 for d in mine),
            mistakes=sum(d.mistake for d in mine), loss=sum(d.loss for d in mine),
            worst=worst if worst is not None and worst.loss > 0 else None)
    return out


def review_game(game: Game, solve: Solve, objective: str | None = None) -> Review:
    """Review every decision of ``game`` (finished or not) with ``solve(rules, objective)``."""
    rules = game.rules
    objective = objective or hint_objective(rules)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
    values = solve(rules, objective)
    chance_values = values if objective == "shut" else solve(rules, "shut")
    judge, chance = _Judge(rules, values, objective), _Judge(rules, chance_values, "shut")
    decisions: list[Decision] = []
    traces: list[TurnTrace] = []
    skipped = 0
    for turn in game.turns:
        walker = _TurnReviewer(rules, judge, chance, turn)
        traces.append(walker.run())
        decisions.extend(walker.decisions)
        skipped += walker.skipped
    exact = is_exact(values) and is_exact(chance_values)
    return Review(objective, exact, tuple(decisions), tuple(traces), _player_totals(game.players, decisions),
                  _notes(rules, objective, exact, skipped), skipped)


def _notes(rules: Rules, objective: str, exact: bool, skipped: int) -> tuple[str, ...]:
    notes = []
    if not exact:
        notes.append(f"values are approximate: the exact solver does not reach {rules.tiles} tiles; "
                     "losses and mistakes are estimates")
    fmt = match_format(rules)
    if fmt.uncovering:
        notes.append("long game: each turn is measured by its chance to finish the job in that turn (uncovering "
                     "turns: the shut tiles are the tiles in play); the extra throw after a dead double is not "
                     "in the solver's model")
    elif objective == "score" and fmt.rounds_repeat:
        notes.append(f"{rules.match}: each turn is measured on its own (its expected score), not by the match "
                     "standing")
    if skipped:
        notes.append(f"{skipped} one-or-two-dice choice{'s' if skipped != 1 else ''} not reviewed: the throw was "
                     "recorded by a total that one die and two dice can both show")
    return tuple(notes)


# ---------------------------------------------------------------------------------------------- words
def value_text(objective: str, value: float) -> str:
    """``11.88%`` (shut) or ``9.09`` (score)."""
    return f"{value:.2%}" if objective == "shut" else f"{value:.2f}"


def loss_text(objective: str, loss: float) -> str:
    """``6.11 pp`` (shut: percentage points of the chance to shut) or ``+1.25`` (score: expected points)."""
    if objective == "shut":
        return f"{loss * 100:.2f} pp"
    return f"+{loss:.2f}"


def choice_text(decision: Decision, which: str) -> str:
    """The played or best choice in words: ``8``, ``5 + 3``, ``one die``, ``two dice``."""
    value = getattr(decision, which)
    if decision.kind == "dice":
        return "one die" if value == 1 else f"{'two' if value == 2 else value} dice"
    return plus(value)


def in_play_text(decision: Decision) -> str:
    """``open 1 2 9`` (shutting) or ``shut 3 4`` (uncovering): the tiles the player worked on."""
    state = "shut" if decision.phase == UNCOVER else "open"
    return f"{state} {' '.join(map(str, decision.in_play))}"


def decision_line(decision: Decision, objective: str) -> str:
    """One decision in a line: the tiles in play, what was played, the best, the values, the loss."""
    verb = PHASE_WORDS[decision.phase].verb
    if decision.kind == "dice":
        what = f"threw {choice_text(decision, 'played')}"
    else:
        what = f"throw {decision.throw}: {verb} {choice_text(decision, 'played')}"
    head = (f"turn {decision.turn}, {decision.player}: {in_play_text(decision)}; {what} "
            f"({value_text(objective, decision.value_played)})")
    if decision.loss == 0.0:
        return head + " — best"
    mark = "MISTAKE" if decision.mistake else "inaccuracy"
    return (head + f" — {mark}: best {choice_text(decision, 'best')} ({value_text(objective, decision.value_best)}),"
            f" {loss_text(objective, decision.loss)}")


def player_line(player: PlayerReview, objective: str) -> str:
    """A player's summary in one line."""
    if not player.decisions:
        return f"{player.name}: no decisions to review (no turn with a choice)"
    mistakes = f"{player.mistakes} mistake{'s' if player.mistakes != 1 else ''}"
    total = f"total loss {loss_text(objective, player.loss)}" if player.loss else "nothing lost"
    text = f"{player.name}: {player.best} of {player.decisions} decisions best, {mistakes}; {total}"
    if player.worst is not None:
        w = player.worst
        where = f"throw {w.throw}" if w.kind == "move" else "dice"
        text += (f"; worst: turn {w.turn}, {where}: {choice_text(w, 'played')} instead of {choice_text(w, 'best')} "
                 f"({loss_text(objective, w.loss)})")
    return text


def objective_text(objective: str) -> str:
    if objective == "shut":
        return "the chance to shut the box (uncovering: to uncover it) in the turn"
    return "the expected score of the turn (lower is better)"


def review_summary(review: Review) -> list[str]:
    """A few lines for the end of a game: the objective and one line per player."""
    lines = [f"review ({'approximate, ' if not review.exact else ''}measured by {objective_text(review.objective)}):"]
    lines += [player_line(p, review.objective) for p in review.players.values()]
    return lines


def review_payload(review: Review) -> dict[str, Any]:
    """The review summary for a page (JSON-ready): objective, exactness, one entry per player, the lines."""
    return {
        "objective": review.objective,
        "exact": review.exact,
        "mistake_rule": review.threshold,
        "notes": list(review.notes),
        "players": [{"name": p.name, "decisions": p.decisions, "best": p.best, "mistakes": p.mistakes,
                     "loss": p.loss, "loss_text": loss_text(review.objective, p.loss) if p.loss else "nothing lost",
                     "line": player_line(p, review.objective)} for p in review.players.values()],
        "lines": review_summary(review),
    }
