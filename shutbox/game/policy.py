"""What the solver can optimise: its objectives, its named strategies (and the dice they throw), the objective
a hint uses, and the settings its values depend on.

Kept apart from :mod:`shutbox.game.solver` (numpy) so the command-line parser can offer the
choices without importing it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from shutbox.game.formats import match_format
from shutbox.game.rules import dice_counts
from shutbox.kit.model import Rules

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

    @cached_property
    def rules(self) -> Rules:
        return Rules(**dataclasses.asdict(self))


def strategy_dice(rules: Rules, open_tiles: Iterable[int]) -> int:
    """How many dice the named strategies (and the approximate policy) throw: one die whenever it is allowed."""
    return dice_counts(rules, open_tiles)[0]  # one die comes first where it is allowed
