"""Game review: every decision of a recorded game measured against the solver.

A *decision* is a choice the rules left to the player:

- ``move``: which tiles to shut (or, uncovering, to reopen) for a throw with two or more legal moves;
- ``dice``: one die or two, before a throw, where the one-die rule allowed both (not when one die is
  forced). The choice is read from the recorded dice; a throw recorded by its total alone tells it only
  when the total fits one number of dice (7 or more: two; 1: one), otherwise that decision is skipped.

A throw not entered (an unverified end, reported without its dice) is no decision and is not graded.

Values (under the game's own settings, by the solver's optimal policy for the objective):

- ``shut``: the probability of finishing the turn's job (shutting the box) from the position the
  choice leaves; larger is better, ``loss = value_best - value_played``;
- ``score``: the expected final score of the turn from that position; smaller is better,
  ``loss = value_played - value_best``. For a dice choice the value is that of the position *before*
  the throw, had that many dice been thrown and the best moves followed.

``loss`` is at least 0 and exactly 0 for a best move (ties included: the move played is then the best
one shown). Each decision gets a grade and the share of the best value it kept, each player an accuracy:
the one measure of play, defined in :mod:`shutbox.game.measure`.

Match formats: each turn is measured on its own, from the tiles in play when it began: the objective
defaults to what the match rewards (:func:`~shutbox.game.measure.default_objective`: the long game is won
by finishing, the other formats by low scores). The long game's uncovering turns are reviewed the way
the replay plays them: the tiles still shut are the tiles in play (they play the part the open tiles
play when shutting), so the solver's one-turn values apply to them unchanged; ``value`` is then the
chance of uncovering every tile in that turn. The long game's extra throw after a dead double is not
part of the solver's model, so long-game values slightly undervalue positions (said in the notes).

Beyond the exact solver's reach the values are Monte Carlo estimates. By default every legal move is
valued with :data:`~shutbox.game.estimate.SAMPLES` simulated turns (careful, and slow for large sets:
:func:`full_work` counts the turns a game needs); ``estimate=True`` ranks the moves by the advisor's
rollouts instead (:func:`shutbox.game.estimate.rank_moves`: seconds a decision) and values states with
its :data:`~shutbox.game.estimate.FINAL` turns.

Unverified turns (throws optional: tiles moved, or the turn ended, with no throw entered) are not graded:
there is no throw to measure a move against. The notes count them.

Nothing here does I/O; the solver is passed in (``solve(rules, objective)``), so callers may cache it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from shutbox.game import measure
from shutbox.game.formats import match_format
from shutbox.game.policy import OBJECTIVES
from shutbox.game.replay import PHASE_WORDS, UNCOVER, Game, Throw, Turn, tiles_in_play
from shutbox.game.rules import dice_counts, legal_moves, plus, score, throw_distribution, throw_totals
from shutbox.kit.model import Rules

_NOISE = measure.NOISE


class Values(Protocol):
    """What the review needs of a solver solution (see :class:`shutbox.game.solver.Solution`)."""

    def state(self, open_tiles: tuple[int, ...] | list[int]) -> tuple[float, float]:
        """(p_shut, expected_score) with these tiles in play, before the next throw."""
        ...


Solve = Callable[[Rules, str], Values]
#: ``progress(done, total)``: the game's throws reviewed so far, of all of them.
Progress = Callable[[int, int], None]


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
    grade: str  #: best / good / inaccuracy / mistake / blunder (:mod:`shutbox.game.measure`)
    kept: float  #: the share of the best choice's value the choice played kept, 0-1
    stake: float  #: the best choice's value (:func:`shutbox.game.measure.gains`): what the accuracy weighs it by

    @property
    def mistake(self) -> bool:
        """A mistake or a blunder (what the chart circles and the text stars)."""
        return measure.is_costly(self.grade)

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
                   options=self.options, grade=self.grade, accuracy=100.0 * self.kept, mistake=self.mistake)
        return out


@dataclass(frozen=True)
class Point:
    """One step of a turn's value by the review's objective (the chart): after a throw, as played and with
    the best move for it (``shut``: the chance to finish the turn's job; ``score``: the expected final score)."""

    label: str  #: ``start`` or the throw (``8``)
    played: float  #: the value after the move played
    best: float  #: the same after the best move for that throw
    mistake: bool = False  #: a decision at this throw (dice or move) was a mistake or a blunder


@dataclass(frozen=True)
class TurnTrace:
    """A turn's value by the review's objective, throw by throw."""

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
    inaccuracies: int
    mistakes: int
    blunders: int
    loss: float  #: total loss
    accuracy: float | None  #: 0-100, the mean share of the best value kept (None without a decision)
    worst: Decision | None  #: the costliest decision (None when nothing was lost)

    def counts(self) -> dict[str, int]:
        """``inaccuracies``, ``mistakes``, ``blunders`` (disjoint)."""
        return {"inaccuracies": self.inaccuracies, "mistakes": self.mistakes, "blunders": self.blunders}

    def as_dict(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "best": self.best, **self.counts(), "accuracy": self.accuracy,
                "loss": self.loss, "mean_loss": self.loss / self.decisions if self.decisions else 0.0,
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
    estimate: bool = False  #: moves ranked by the advisor's rollouts (``review_game(..., estimate=True)``)

    @property
    def threshold(self) -> str:
        return measure.threshold_text(self.objective)

    def as_dict(self) -> dict[str, Any]:
        return {
            "objective": self.objective,
            "exact": self.exact,
            "estimate": self.estimate,
            "grades": self.threshold,
            "notes": list(self.notes),
            "decisions": [d.as_dict() for d in self.decisions],
            "players": {name: p.as_dict() for name, p in self.players.items()},
            "skipped_dice_choices": self.skipped,
            "turns": [{"player": t.player, "turn": t.turn, "round": t.round, "phase": t.phase, "result": t.result,
                       "values": [{"after": p.label, "played": p.played, "best": p.best, "mistake": p.mistake}
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


class _EstimateJudge(_Judge):
    """Monte Carlo values where the exact solver does not reach: moves ranked by the advisor's rollouts, states
    valued with the finalists' number of simulated turns (the same dice for every state)."""

    def value(self, tiles: tuple[int, ...]) -> float:
        from shutbox.game import estimate

        e = estimate.state_value(self.rules, "optimal", tuple(sorted(tiles)), estimate.FINAL)
        return e.p_shut if self.objective == "shut" else e.expected_score

    def moves(self, tiles: tuple[int, ...], throw: int) -> list[tuple[tuple[int, ...], float]]:
        from shutbox.game import estimate

        ranked = estimate.rank_moves(self.rules, tuple(sorted(tiles)), throw, self.objective)
        return [(m, e.p_shut if self.objective == "shut" else e.expected_score) for m, e in ranked]


def full_work(game: Game) -> list[int]:
    """Per reviewed throw, the legal moves a full review values one by one (the slow part beyond the exact
    solver: each move a state of :data:`~shutbox.game.estimate.SAMPLES` simulated turns)."""
    rules = game.rules
    out = []
    for turn in game.turns:
        if turn.unverified:  # not reviewed (see review_game)
            continue
        in_play = _turn_in_play(rules, turn)
        for throw in turn.throws:
            if throw.total is None or throw.tiles is None:
                continue
            n = len(legal_moves(rules, in_play, throw.total))
            if n >= 2:
                out.append(n)
            in_play = tuple(t for t in in_play if t not in throw.tiles)
    return out


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

    def __init__(self, rules: Rules, judge: _Judge, turn: Turn, tick: Callable[[], None]) -> None:
        self.rules, self.judge, self.turn, self.tick = rules, judge, turn, tick
        self.decisions: list[Decision] = []
        self.skipped = 0

    def _decision(self, kind: str, in_play: tuple[int, ...], throw: Throw, played: tuple[int, ...] | int,
                  best: tuple[int, ...] | int, value_played: float, value_best: float, options: int) -> Decision:
        loss = self.judge.loss(value_played, value_best)
        objective = self.judge.objective
        kept, stake = measure.gains(objective, value_played, value_best, float(score(self.rules, in_play)))
        if loss == 0.0:
            kept = stake
        return Decision(
            player=self.turn.player, turn=self.turn.number, round=self.turn.round, phase=self.turn.phase, kind=kind,
            open=_board(self.rules, self.turn.phase, in_play), in_play=in_play, throw=throw.total,
            dice=throw.dice, played=played, best=played if loss == 0.0 else best,
            value_played=value_played, value_best=value_best, loss=loss, options=options,
            grade=measure.grade(objective, loss, value_best), kept=measure.share(kept, stake), stake=stake)

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

    def move_choice(self, in_play: tuple[int, ...], throw: Throw) -> float:
        """Review the move for ``throw`` (when there was a choice); the value the best move leaves."""
        assert throw.total is not None and throw.tiles is not None
        ranked = self.judge.moves(in_play, throw.total)
        if not ranked:
            return self.judge.end_value(in_play)
        if len(ranked) >= 2:
            played = self.judge.value(tuple(t for t in in_play if t not in throw.tiles))
            self.decisions.append(self._decision("move", in_play, throw, throw.tiles, ranked[0][0], played,
                                                 ranked[0][1], len(ranked)))
        return ranked[0][1]

    def _mistake_since(self, index: int) -> bool:
        return any(d.mistake for d in self.decisions[index:])

    def run(self) -> TurnTrace:
        judge = self.judge
        in_play = _turn_in_play(self.rules, self.turn)
        start = judge.value(in_play)
        points = [Point("start", start, start)]
        for throw in self.turn.throws:
            if throw.total is None:  # a dead throw reported without its dice: not entered, not graded
                end = judge.end_value(in_play)
                points.append(Point("end", end, end))
                continue
            before = len(self.decisions)
            self.dice_choice(in_play, throw)
            if throw.tiles is None:
                if throw.dead and not throw.extra:
                    end = judge.end_value(in_play)
                    points.append(Point(str(throw.total), end, end, self._mistake_since(before)))
                continue  # a dead double's extra throw, or a throw still waiting for its tiles
            best = self.move_choice(in_play, throw)
            in_play = tuple(t for t in in_play if t not in throw.tiles)
            points.append(Point(str(throw.total), judge.value(in_play), best, self._mistake_since(before)))
            self.tick()
        t = self.turn
        return TurnTrace(t.player, t.number, t.round, t.phase, tuple(points), _turn_result(t))


def _player_totals(players: Sequence[str], decisions: Sequence[Decision]) -> dict[str, PlayerReview]:
    out = {}
    for name in players:
        mine = [d for d in decisions if d.player == name]
        worst = max(mine, key=lambda d: d.loss, default=None)
        grades = [d.grade for d in mine]
        out[name] = PlayerReview(
            name=name, decisions=len(mine), best=grades.count("best"), inaccuracies=grades.count("inaccuracy"),
            mistakes=grades.count("mistake"), blunders=grades.count("blunder"), loss=sum(d.loss for d in mine),
            accuracy=measure.accuracy((d.kept * d.stake, d.stake) for d in mine),
            worst=worst if worst is not None and worst.loss > 0 else None)
    return out


def review_game(game: Game, solve: Solve, objective: str | None = None, *, estimate: bool = False,
                progress: Progress | None = None) -> Review:
    """Review every decision of ``game`` (finished or not) with ``solve(rules, objective)``.

    ``estimate``: where the values are approximate, rank moves by the advisor's rollouts (fast) rather than
    valuing every move in full. ``progress(done, total)`` is called after each throw with tiles moved.
    """
    rules = game.rules
    objective = objective or measure.default_objective(rules)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
    values = solve(rules, objective)
    exact = is_exact(values)
    estimated = estimate and not exact
    judge = _EstimateJudge(rules, values, objective) if estimated else _Judge(rules, values, objective)
    total = sum(1 for turn in game.turns for throw in turn.throws if throw.tiles is not None)
    done = 0
    if progress is not None:
        progress(0, total)

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    decisions: list[Decision] = []
    traces: list[TurnTrace] = []
    skipped = unverified = 0
    for turn in game.turns:
        if turn.unverified:  # tiles moved or the turn ended with no throw entered: nothing to grade against
            unverified += 1
            continue
        walker = _TurnReviewer(rules, judge, turn, tick)
        traces.append(walker.run())
        decisions.extend(walker.decisions)
        skipped += walker.skipped
    return Review(objective, exact, tuple(decisions), tuple(traces), _player_totals(game.players, decisions),
                  _notes(rules, objective, exact, estimated, skipped, unverified), skipped, estimated)


def _notes(rules: Rules, objective: str, exact: bool, estimated: bool, skipped: int,
           unverified: int = 0) -> tuple[str, ...]:
    notes = []
    if unverified:
        notes.append(f"{unverified} unverified turn{'s' if unverified != 1 else ''} not reviewed: "
                     f"{'they were' if unverified != 1 else 'it was'} played with no throw entered (throws optional)")
    if estimated:
        notes.append(f"values are Monte Carlo estimates: the exact solver does not reach {rules.tiles} tiles; moves "
                     "ranked by rollouts (every move screened, the best few refined); losses and grades are estimates")
    elif not exact:
        notes.append(f"values are approximate: the exact solver does not reach {rules.tiles} tiles; every move "
                     "valued by simulated turns; losses and grades are estimates")
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
    mark = decision.grade.upper() if decision.mistake else decision.grade
    return (head + f" — {mark}: best {choice_text(decision, 'best')} ({value_text(objective, decision.value_best)}),"
            f" {loss_text(objective, decision.loss)}; kept {decision.kept:.0%}")


def counts_text(counts: dict[str, int]) -> str:
    """``1 inaccuracy, 2 mistakes, 0 blunders``."""
    return ", ".join(f"{n} {plural if n != 1 else grade}"
                     for grade, plural in measure.PLURAL.items() for n in [counts[plural]])


def player_line(player: PlayerReview, objective: str) -> str:
    """A player's summary in one line."""
    if not player.decisions:
        return f"{player.name}: no decisions to review (no turn with a choice)"
    total = f"total loss {loss_text(objective, player.loss)}" if player.loss else "nothing lost"
    text = (f"{player.name}: accuracy {measure.accuracy_text(player.accuracy)}; {player.best} of "
            f"{player.decisions} decisions best, {counts_text(player.counts())}; {total}")
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
    lines += [note for note in review.notes if "unverified turn" in note]  # why a turn was not graded
    return lines


def review_payload(review: Review) -> dict[str, Any]:
    """The review summary for a page (JSON-ready): objective, exactness, one entry per player, the lines."""
    return {
        "objective": review.objective,
        "exact": review.exact,
        "grades": review.threshold,
        "notes": list(review.notes),
        "players": [{"name": p.name, "decisions": p.decisions, "best": p.best, **p.counts(), "accuracy": p.accuracy,
                     "loss": p.loss, "loss_text": loss_text(review.objective, p.loss) if p.loss else "nothing lost",
                     "line": player_line(p, review.objective)} for p in review.players.values()],
        "lines": review_summary(review),
    }
