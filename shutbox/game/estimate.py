"""Values for sets too large for the exact solver: Monte Carlo over a stated heuristic policy.

Method (the ``method`` text every approximate answer carries):

- The value of a state is estimated by playing the rest of the turn ``samples`` times with fair
  dice under a named strategy: ``fewest-tiles`` (the move with the fewest tiles, then the largest;
  one die whenever it is allowed) stands in for ``optimal`` (of the named strategies it comes
  closest to the optimum at 18 tiles and 6 dice), so a chance to shut the box estimated for
  ``optimal`` is that policy's, a lower bound on the optimum. ``greedy-largest`` and ``random`` are
  simulated as defined in :mod:`shutbox.game.solver`.
- A move for a throw is ranked by rollouts: the state it leaves is valued as above, every move
  with the same dice (common random numbers), so the ranking looks one step further than the
  stand-in policy. Every move gets ``SCREEN`` rollouts (fewer when there are many moves: at most
  ``SCREEN_BUDGET`` in all, at least ``MIN_SCREEN`` each); the best ``FINALISTS`` then get
  ``FINAL`` (successive halving), so even a 54-tile throw with 5718 moves is ranked in seconds.
- Each estimate carries its standard error; runs are reproducible (``seed``).

``bench/solver.py`` and docs/scorekeeper.md report the shortfall against the exact solver at the largest
exact size (18 tiles, 6 dice).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from shutbox.game.policy import STRATEGIES
from shutbox.game.rules import dice_counts, legal_moves, score
from shutbox.kit.model import Rules

#: Turns simulated per state value; rollouts per move when screening, finalists and their rollouts.
SAMPLES = 4000
SCREEN = 200
SCREEN_BUDGET = 12000
MIN_SCREEN = 2
FINALISTS = 8
FINAL = 2000
SEED = 12
#: The named strategy that stands in for ``optimal``.
STAND_IN = "fewest-tiles"


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo value: mean chance to shut the box, mean final score, their standard errors."""

    p_shut: float
    expected_score: float
    p_stderr: float
    score_stderr: float
    samples: int


def _greedy_move(open_tiles: tuple[int, ...], throw: int, most: int | None) -> tuple[int, ...] | None:
    """The move with the largest tiles (lexicographically, largest first), found without listing every move."""
    tiles = [t for t in open_tiles if t <= throw]
    below = [0]
    for t in tiles:
        below.append(below[-1] + t)

    def first(limit: int, left: int, count: int) -> list[int] | None:
        if left == 0:
            return []
        if (most is not None and count == most) or below[limit] < left:
            return None
        for i in range(limit - 1, -1, -1):
            if tiles[i] <= left:
                rest = first(i, left - tiles[i], count + 1)
                if rest is not None:
                    return [tiles[i], *rest]
        return None

    found = first(len(tiles), throw, 0)
    return tuple(sorted(found)) if found else None


def _fewest_move(open_tiles: tuple[int, ...], throw: int, most: int | None) -> tuple[int, ...] | None:
    """The move with the fewest tiles, then the largest tiles, found without listing every move."""
    tiles = [t for t in open_tiles if t <= throw]  # ascending
    below = [0]
    for t in tiles:
        below.append(below[-1] + t)

    def pick(limit: int, left: int, k: int) -> list[int] | None:
        """``k`` tiles from tiles[:limit] adding up to ``left``, largest first; None if there are none."""
        if k == 0:
            return [] if left == 0 else None
        if limit < k or not below[k] <= left <= below[limit] - below[limit - k]:
            return None
        for i in range(limit - 1, k - 2, -1):
            if tiles[i] <= left:
                rest = pick(i, left - tiles[i], k - 1)
                if rest is not None:
                    return [tiles[i], *rest]
        return None

    for k in range(1, (len(tiles) if most is None else min(most, len(tiles))) + 1):
        found = pick(len(tiles), throw, k)
        if found is not None:
            return tuple(sorted(found))
    return None


def _choose(rules: Rules, strategy: str, open_tiles: tuple[int, ...], throw: int,
            rng: random.Random) -> tuple[int, ...] | None:
    if strategy == "greedy-largest":
        return _greedy_move(open_tiles, throw, rules.max_tiles_per_throw)
    if strategy in ("fewest-tiles", "optimal"):
        return _fewest_move(open_tiles, throw, rules.max_tiles_per_throw)
    moves = legal_moves(rules, open_tiles, throw)
    return rng.choice(moves) if moves else None


def play_out(rules: Rules, strategy: str, open_tiles: tuple[int, ...], rng: random.Random) -> tuple[bool, int]:
    """One simulated rest of a turn from ``open_tiles``: (shut the box, final score)."""
    board = set(open_tiles)
    while board:
        tiles = tuple(sorted(board))
        counts = dice_counts(rules, tiles)
        count = counts[0] if strategy != "random" or len(counts) == 1 else rng.choice(counts)
        throw = sum(rng.randint(1, 6) for _ in range(count))
        move = _choose(rules, strategy, tiles, throw, rng)
        if move is None:
            return False, score(rules, tiles)
        board.difference_update(move)
    return True, 0


def _estimate(outcomes: list[tuple[bool, int]]) -> Estimate:
    n = len(outcomes)
    p = sum(s for s, _ in outcomes) / n
    mean = sum(v for _, v in outcomes) / n
    var = sum((v - mean) ** 2 for _, v in outcomes) / max(1, n - 1)
    return Estimate(p, mean, (p * (1 - p) / n) ** 0.5, (var / n) ** 0.5, n)


@lru_cache(maxsize=4096)
def state_value(rules: Rules, strategy: str, open_tiles: tuple[int, ...], samples: int = SAMPLES,
                seed: int = SEED) -> Estimate:
    """The estimated value of ``open_tiles`` (before the next throw) under ``strategy`` (``optimal``: the stand-in)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}; allowed: {', '.join(STRATEGIES)}")
    rng = random.Random(seed)  # the same dice from every state: common random numbers across moves
    return _estimate([play_out(rules, strategy, open_tiles, rng) for _ in range(samples)])


def method(strategy: str, samples: int) -> str:
    """The method an approximate value was found by, in words."""
    policy = f"{STAND_IN}, standing in for optimal" if strategy == "optimal" else strategy
    return f"monte-carlo: {samples} simulated turns per state under {policy}, seed {SEED}"


def screen_turns(moves: int) -> int:
    """Rollouts per move when screening ``moves`` moves."""
    return max(MIN_SCREEN, min(SCREEN, SCREEN_BUDGET // max(1, moves)))


def ranking_turns(moves: int) -> int:
    """Simulated turns :func:`rank_moves` plays for a throw with ``moves`` legal moves."""
    return moves * screen_turns(moves) + min(moves, FINALISTS) * FINAL


def rank_moves(rules: Rules, open_tiles: tuple[int, ...], throw: int, objective: str
               ) -> list[tuple[tuple[int, ...], Estimate]]:
    """Every legal move for ``throw`` with its rollout estimate, best first (see the module docstring)."""
    moves = legal_moves(rules, open_tiles, throw)
    start = set(open_tiles)

    def valued(move: tuple[int, ...], samples: int) -> tuple[tuple[int, ...], Estimate]:
        return move, state_value(rules, "optimal", tuple(sorted(start - set(move))), samples)

    def key(item: tuple[tuple[int, ...], Estimate]) -> tuple[float, float]:
        e = item[1]
        return (e.p_shut, -e.expected_score) if objective == "shut" else (-e.expected_score, e.p_shut)

    screen = screen_turns(len(moves))
    screened = sorted((valued(m, screen) for m in moves), key=key, reverse=True)  # stable: largest tiles first
    final = sorted((valued(m, FINAL) for m, _ in screened[:FINALISTS]), key=key, reverse=True)
    return final + screened[FINALISTS:]
