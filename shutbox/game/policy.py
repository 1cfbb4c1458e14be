"""What the solver can optimise: its objectives, its named strategies, the objective a hint uses, and
the settings its values depend on.

Kept apart from :mod:`shutbox.game.solver` (numpy) so the command-line parser can offer the
choices without importing it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from shutbox.game.formats import match_format
from shutbox.model import Rules

OBJECTIVES = ("shut", "score")
STRATEGIES = ("optimal", "greedy-largest", "fewest-tiles", "random")


def hint_objective(rules: Rules) -> str:
    """The objective a best-move hint follows: the long game is won by finishing, other matches by low scores."""
    return match_format(rules).objective


@dataclass(frozen=True)
class Setup:
    """The settings that change a single player's odds (everything but match, limit and stake)."""

    tiles: int
    dice: int
    one_die: str
    one_die_forced: bool
    max_tiles_per_throw: int | None
    scoring: str

    @classmethod
    def of(cls, rules: Rules) -> Setup:
        return cls(**{f.name: getattr(rules, f.name) for f in dataclasses.fields(cls)})

    @property
    def rules(self) -> Rules:
        return Rules(**dataclasses.asdict(self))
