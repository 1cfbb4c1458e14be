"""Solved values, read by the mask of open tiles: what the solver returns and what hints, advise and reviews read.

Kept apart from the dynamic programme (:mod:`shutbox.game.solver`, numpy) so that values already on disk
(:mod:`shutbox.game.solvercache`) are read without importing numpy. A :class:`Solution`'s arrays are only ever
indexed by a mask here: numpy arrays from the solver, or memoryviews of the bytes read back from the cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cmp_to_key

from shutbox.game.policy import Setup, strategy_dice
from shutbox.game.rules import legal_moves
from shutbox.kit.model import Rules

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any


#: Values this close (relative to their size, at least 1) are tied: the solver's tolerance for float noise.
TIE = 1e-12


def better(a: float, b: float, than_a: float, than_b: float) -> bool:
    """Is (a, b) better than (than_a, than_b): ``a`` larger beyond the tolerance, or tied and ``b`` larger beyond
    it. The one comparison of the policy's choices (:mod:`shutbox.game.solver` applies it to whole layers)."""
    if a > than_a + TIE * (1.0 + abs(than_a)):
        return True
    return a >= than_a - TIE * (1.0 + abs(than_a)) and b > than_b + TIE * (1.0 + abs(than_b))


def mask_of(tiles: tuple[int, ...] | list[int] | set[int]) -> int:
    """The bitmask of a set of tile numbers."""
    m = 0
    for t in tiles:
        m |= 1 << (t - 1)
    return m


def tiles_of(mask: int) -> tuple[int, ...]:
    """The tile numbers of a bitmask, ascending."""
    return tuple(i + 1 for i in range(mask.bit_length()) if mask >> i & 1)


@dataclass(frozen=True)
class Solution:
    """Values of every state under one policy; index the arrays by the mask of open tiles."""

    setup: Setup
    objective: str
    strategy: str
    # One value per mask of open tiles: numpy arrays from the solver, memoryviews from the disk cache.
    p_shut: Any  #: probability of shutting the box from each state
    expected_score: Any  #: expected final score from each state
    one_die: Any  #: the policy throws one die in this state (where it has the choice)

    def state(self, open_tiles: tuple[int, ...] | list[int]) -> tuple[float, float]:
        """(p_shut, expected_score) with these tiles open, before the next throw."""
        m = mask_of(tuple(open_tiles))
        return float(self.p_shut[m]), float(self.expected_score[m])

    def key(self, mask: int) -> tuple[float, float]:
        """The objective's ranking key of a state (larger is better): primary, then tie-break."""
        p, e = float(self.p_shut[mask]), float(self.expected_score[mask])
        return (p, -e) if self.objective == "shut" else (-e, p)

    def dice(self, open_tiles: tuple[int, ...] | list[int]) -> int:
        """How many dice the policy throws next with these tiles open."""
        return 1 if self.one_die[mask_of(tuple(open_tiles))] else self.setup.dice


@dataclass(frozen=True)
class MoveValue:
    """One legal move for a throw and the value of the state it leaves."""

    tiles: tuple[int, ...]
    open_after: tuple[int, ...]
    p_shut: float
    expected_score: float
    p_stderr: float = 0.0  #: standard errors: 0 for exact values, else Monte Carlo's
    score_stderr: float = 0.0


def ranked_moves(solution: Solution, open_tiles: tuple[int, ...], throw: int) -> list[tuple[int, ...]]:
    """Every legal move for ``throw`` with ``open_tiles`` open, best first under the solution's policy; ties keep
    the rules engine's order (largest tiles first). The one move choice of hints, advice and the card's walks."""
    moves = legal_moves(solution.setup.rules, open_tiles, throw)  # largest tiles first: the final tie-break
    start = mask_of(open_tiles)
    keys = {m: solution.key(start & ~mask_of(m)) for m in moves}

    def order(x: tuple[int, ...], y: tuple[int, ...]) -> int:
        return -1 if better(*keys[x], *keys[y]) else 1 if better(*keys[y], *keys[x]) else 0

    return sorted(moves, key=cmp_to_key(order))


def rank_moves(solution: Solution, open_tiles: tuple[int, ...], throw: int) -> list[MoveValue]:
    """Every legal move for ``throw`` with ``open_tiles`` open and its value, best first (:func:`ranked_moves`)."""
    start = mask_of(open_tiles)
    out = []
    for m in ranked_moves(solution, open_tiles, throw):
        after = start & ~mask_of(m)
        out.append(MoveValue(m, tiles_of(after), float(solution.p_shut[after]),
                             float(solution.expected_score[after])))
    return out


@dataclass(frozen=True)
class Advisor:
    """Values and move rankings for any size: the exact solution, or Monte Carlo beyond the exact solver's reach
    (:data:`shutbox.game.solver.EXACT_MAX_TILES`; :mod:`shutbox.game.estimate`, imported only then).

    Use this rather than :func:`shutbox.game.solver.solve` wherever a set may be large (hints, advise, reviews).
    """

    rules: Rules
    objective: str
    strategy: str
    solution: Solution | None  #: None: approximate (see :mod:`shutbox.game.estimate`)

    @property
    def exact(self) -> bool:
        return self.solution is not None

    @property
    def method(self) -> str:
        if self.solution is not None:
            return "exact: dynamic programming over every set of open tiles"
        from shutbox.game import estimate

        return estimate.method(self.strategy, estimate.SAMPLES)

    def value(self, open_tiles: tuple[int, ...] | list[int]) -> MoveValue:
        """The value of ``open_tiles`` before the next throw (``tiles`` empty), with its standard errors."""
        tiles = tuple(sorted(open_tiles))
        if self.solution is not None:
            p, e = self.solution.state(tiles)
            return MoveValue((), tiles, p, e)
        from shutbox.game import estimate

        est = estimate.state_value(self.rules, self.strategy, tiles)
        return MoveValue((), tiles, est.p_shut, est.expected_score, est.p_stderr, est.score_stderr)

    def state(self, open_tiles: tuple[int, ...] | list[int]) -> tuple[float, float]:
        """(p_shut, expected_score) with these tiles open, before the next throw."""
        v = self.value(open_tiles)
        return v.p_shut, v.expected_score

    def dice(self, open_tiles: tuple[int, ...] | list[int]) -> int:
        """How many dice the policy throws next (the approximate policy: one die whenever allowed)."""
        if self.solution is not None:
            return self.solution.dice(open_tiles)
        return strategy_dice(self.rules, tuple(open_tiles))

    def rank_moves(self, open_tiles: tuple[int, ...], throw: int) -> list[MoveValue]:
        """Every legal move for ``throw``, best first under the objective."""
        if self.solution is not None:
            return rank_moves(self.solution, open_tiles, throw)
        from shutbox.game import estimate

        start = set(open_tiles)
        return [MoveValue(m, tuple(sorted(start - set(m))), e.p_shut, e.expected_score, e.p_stderr, e.score_stderr)
                for m, e in estimate.rank_moves(self.rules, tuple(sorted(open_tiles)), throw, self.objective)]
