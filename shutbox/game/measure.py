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
- **Accuracy** (:func:`gains`, :func:`accuracy`): the share of the best decisions' value the player kept,
  0–100%. A decision's value is the chance it leaves (``shut``), or the expected points still to come off
  the score from it (``score``: the score if the turn ended before the decision minus the expected final
  score). Per decision the share is value kept over the best value; per player per game it is the sum of
  the values kept over the sum of the best values, so a decision counts as much as there was at stake
  (a last tile worth a sixth of a point weighs little beside the turn's first move).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from shutbox.game.policy import hint_objective
from shutbox.kit.model import Rules

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


def gains(objective: str, value_played: float, value_best: float, baseline: float) -> tuple[float, float]:
    """(value kept, best value) of a decision, both at least 0 and the first at most the second.

    ``shut``: the chances. ``score``: baseline - the expected score, ``baseline`` being the score if the
    turn ended before the decision.
    """
    if objective == "shut":
        played, best = value_played, value_best
    else:
        played, best = baseline - value_played, baseline - value_best
    best = max(best, 0.0)
    return min(max(played, 0.0), best), best


def share(kept: float, best: float) -> float:
    """A decision's share of the best value kept, 0–1 (1 when nothing was at stake)."""
    return kept / best if best > NOISE else 1.0


def accuracy(decisions: Iterable[tuple[float, float]]) -> float | None:
    """A player's accuracy in a game, 0–100, from each decision's (value kept, best value): the sum kept
    over the sum at stake (100 when nothing was at stake; None without a decision)."""
    pairs = list(decisions)
    if not pairs:
        return None
    best = sum(b for _, b in pairs)
    return 100.0 * sum(k for k, _ in pairs) / best if best > NOISE else 100.0


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
