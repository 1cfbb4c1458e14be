"""What the solver can optimise: its objectives, its named strategies, and the objective a hint uses.

Kept apart from :mod:`shutbox.companion.solver` (numpy) so the command-line parser can offer the
choices without importing it.
"""

from __future__ import annotations

from shutbox.model import Rules

OBJECTIVES = ("shut", "score")
STRATEGIES = ("optimal", "greedy-largest", "fewest-tiles", "random")


def hint_objective(rules: Rules) -> str:
    """The objective a best-move hint follows: the long game is won by finishing, other matches by low scores."""
    return "shut" if rules.match == "long-game" else "score"
