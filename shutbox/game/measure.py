"""The one measure of play that ``review``, ``stats``, the review PDF and the web page all use.

- **Objective** (:func:`default_objective`): what the match rewards — the long game is won by finishing,
  so a decision is measured by the chance to shut (uncovering: uncover) the box in the turn; every other
  format by low scores, so by the turn's expected final score. The live hint follows the same objective,
  so the move the hint names is the move the review calls best. ``--objective`` may choose the other.
- **Loss**: how much of the objective the move played gives up against the best move for the same throw
  (0 for a best move): percentage points of the chance, or points of expected score.
- **Grades** (:func:`grade`): ``best`` (nothing lost), ``good`` (less than an inaccuracy), ``inaccuracy``,
  ``mistake``, ``blunder`` by the loss (:data:`THRESHOLDS`; for the score a share of the best value too,
  so digit scores need a proportionate loss). Counts per player are disjoint, as on a chess site.
- **Accuracy** (:func:`kept`, :func:`accuracy`): per decision the share of the best decision's value the
  move played kept — the chance it left over the best chance; for the score, the expected points still
  to come off the score (the score if the turn ended now minus the expected final score) over the
  best's — and per player per game the mean of those shares, 0–100%.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from shutbox.game.policy import hint_objective
from shutbox.model import Rules

#: Grades from no loss to the worst, in order.
GRADES = ("best", "good", "inaccuracy", "mistake", "blunder")
#: The grades a player's summary counts (plural words for them follow).
COUNTED = ("inaccuracy", "mistake", "blunder")
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
#: Losses below this are float noise: the move is a best move.
NOISE = 1e-9


@dataclass(frozen=True)
class Threshold:
    """A grade's least loss: ``points`` of the objective and (score only) ``share`` of the best value."""

    points: float
    share: float = 0.0

    def met(self, loss: float, value_best: float) -> bool:
        return loss >= max(self.points, self.share * abs(value_best)) - NOISE


#: objective -> grade -> its least loss. ``shut``: a chance (0.005 = 0.5 percentage points).
THRESHOLDS: dict[str, dict[str, Threshold]] = {
    "shut": {"inaccuracy": Threshold(0.001), "mistake": Threshold(0.005), "blunder": Threshold(0.02)},
    "score": {"inaccuracy": Threshold(0.2, 0.02), "mistake": Threshold(0.5, 0.05),
              "blunder": Threshold(1.5, 0.15)},
}


def default_objective(rules: Rules) -> str:
    """The objective a game is measured by unless told otherwise: what its match rewards."""
    return hint_objective(rules)


def grade(objective: str, loss: float, value_best: float) -> str:
    """``best``, ``good``, ``inaccuracy``, ``mistake`` or ``blunder`` for a decision's loss."""
    if loss <= 0.0:
        return "best"
    worst = "good"
    for name, threshold in THRESHOLDS[objective].items():
        if threshold.met(loss, value_best):
            worst = name
    return worst


def is_costly(name: str) -> bool:
    """A mistake or a blunder (what the chart circles)."""
    return GRADES.index(name) >= GRADES.index("mistake")


def kept(objective: str, value_played: float, value_best: float, baseline: float) -> float:
    """The share (0–1) of the best decision's value the played one kept.

    ``shut``: value_played / value_best (chances). ``score``: (baseline - value_played) / (baseline - value_best),
    ``baseline`` being the score if the turn ended before the decision. Nothing to gain: 1.
    """
    if objective == "shut":
        gain_played, gain_best = value_played, value_best
    else:
        gain_played, gain_best = baseline - value_played, baseline - value_best
    if gain_best <= NOISE * (1.0 + abs(baseline)):
        return 1.0
    return min(1.0, max(0.0, gain_played / gain_best))


def accuracy(shares: Iterable[float]) -> float | None:
    """A player's accuracy in a game, 0–100: the mean kept share of their decisions (None without one)."""
    values = list(shares)
    return 100.0 * sum(values) / len(values) if values else None


def threshold_text(objective: str) -> str:
    """The grades in words."""
    t = THRESHOLDS[objective]
    if objective == "shut":
        return ("loss of the chance to shut the box: inaccuracy from {:g}, mistake from {:g}, blunder from {:g} "
                "percentage points").format(*(t[g].points * 100 for g in COUNTED))
    parts = ", ".join(f"{g} from {t[g].points:g} and {t[g].share:.0%} of the best" for g in COUNTED)
    return f"expected score raised by the move: {parts}"


def accuracy_text(value: float | None) -> str:
    """``87.5%`` or ``–`` (no decision)."""
    return "–" if value is None else f"{value:.1f}%"
