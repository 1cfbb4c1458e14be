"""Exact strategy solver: the value of every set of open tiles under the optimal policy or a named one.

A state is the set of open tiles, a bitmask (bit ``i`` is tile ``i + 1``), so a box of N tiles has
2**N states. Shutting tiles only clears bits, so states are solved layer by layer in order of how
many tiles are open, each layer in one vectorised step over every (state, throw, move) at once.

Before each throw the player picks one or two dice where the one-die rule allows a choice; after
it they pick a move (a set of open tiles adding up to the throw, at most ``max_tiles_per_throw``).
Objectives:

- ``shut``: maximise the probability of shutting the box; ties go to the lower expected score.
- ``score``: minimise the expected final score (``sum`` or ``digits`` scoring); ties go to the
  higher probability of shutting the box.

Remaining ties go to the move with the largest tiles. Named strategies, evaluated exactly:

- ``greedy-largest``: the move whose largest tile is largest (then the next tile, ...).
- ``fewest-tiles``: the move with the fewest tiles, then as greedy-largest.
- ``random``: every legal move equally likely, and one or two dice equally likely when both are allowed.

``greedy-largest`` and ``fewest-tiles`` throw one die whenever it is allowed.

Solutions are cached per (settings, objective, strategy); numpy arrays are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from shutbox.game.policy import OBJECTIVES, STRATEGIES, Setup
from shutbox.game.rules import DIE_FACES, legal_moves, move_preference, one_die_allowed, score, throw_totals
from shutbox.model import Rules

MAX_THROW = throw_totals(2)[-1]  # two dice: the highest throw
#: Probability of each total 1..12 with one die and with two dice.
P_ONE = np.array([sum(a == t for a in DIE_FACES) / 6 for t in range(1, MAX_THROW + 1)])
P_TWO = np.array([sum(a + b == t for a in DIE_FACES for b in DIE_FACES) / 36 for t in range(1, MAX_THROW + 1)])
_TOL = 1e-12


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
class _Tables:
    """Everything about a box size and move limit that does not depend on the policy."""

    layers: tuple[np.ndarray, ...]  # state masks by number of open tiles
    moves: np.ndarray  # every move mask, grouped by throw total, largest tiles first in a group
    throw_of: np.ndarray  # the throw total (1..12) of each move
    starts: np.ndarray  # first index of each throw's group in ``moves``
    totals: np.ndarray  # the throw totals that have a group (those with at least one move)
    greedy_rank: np.ndarray  # higher = preferred, per move
    fewest_rank: np.ndarray


@cache
def _tables(tiles: int, max_tiles: int | None) -> _Tables:
    """Move tables from the rules engine: every move of a full box, grouped by throw total, best first."""
    rules = Rules(tiles=tiles, max_tiles_per_throw=max_tiles)
    masks = np.arange(1 << tiles, dtype=np.int64)
    counts = np.zeros(1 << tiles, dtype=np.int64)
    for t in rules.tile_numbers:
        counts += (masks >> (t - 1)) & 1
    layers = tuple(masks[counts == k] for k in range(tiles + 1))
    moves: list[int] = []
    throw_of: list[int] = []
    starts: list[int] = []
    totals: list[int] = []
    greedy: list[int] = []
    fewest: list[int] = []
    for total in range(1, MAX_THROW + 1):
        group = legal_moves(rules, rules.tile_numbers, total)  # largest tiles first
        if not group:
            continue
        by_count = sorted(group, key=lambda c: (len(c), move_preference(c)))
        starts.append(len(moves))
        totals.append(total)
        for c in group:
            moves.append(mask_of(c))
            throw_of.append(total)
            greedy.append(-group.index(c))
            fewest.append(-by_count.index(c))
    return _Tables(layers, np.array(moves, dtype=np.int64), np.array(throw_of), np.array(starts),
                   np.array(totals), np.array(greedy, dtype=float), np.array(fewest, dtype=float))


@cache
def _tile_sets(tiles: int) -> tuple[tuple[int, ...], ...]:
    """The open tiles of every mask."""
    return tuple(tiles_of(m) for m in range(1 << tiles))


@cache
def scores(tiles: int, scoring: str) -> np.ndarray:
    """The score of every mask, by the rules engine's :func:`score` (float64: exact, below 2**53)."""
    rules = Rules(tiles=tiles, scoring=scoring)
    out = np.array([score(rules, s) for s in _tile_sets(tiles)], dtype=np.float64)
    out.setflags(write=False)
    return out


@cache
def _one_die(tiles: int, one_die: str) -> np.ndarray:
    rules = Rules(tiles=tiles, one_die=one_die)
    out = np.array([one_die_allowed(rules, s) for s in _tile_sets(tiles)], dtype=bool)
    out.setflags(write=False)
    return out


def one_die_mask(setup: Setup) -> np.ndarray:
    """Per mask: may one die be thrown? (the rules engine's :func:`one_die_allowed`, cached)"""
    return _one_die(setup.tiles, setup.one_die)


@dataclass(frozen=True)
class Solution:
    """Values of every state under one policy; index the arrays by the mask of open tiles."""

    setup: Setup
    objective: str
    strategy: str
    p_shut: np.ndarray  #: probability of shutting the box from each state
    expected_score: np.ndarray  #: expected final score from each state
    one_die: np.ndarray  #: the policy throws one die in this state (where it has the choice)

    def state(self, open_tiles: tuple[int, ...] | list[int]) -> tuple[float, float]:
        """(p_shut, expected_score) with these tiles open, before the next throw."""
        m = mask_of(tuple(open_tiles))
        return float(self.p_shut[m]), float(self.expected_score[m])

    def key(self, mask: int) -> tuple[float, float]:
        """The objective's ranking key of a state (larger is better): primary, then tie-break."""
        p, e = float(self.p_shut[mask]), float(self.expected_score[mask])
        return (p, -e) if self.objective == "shut" else (-e, p)


def _better(a: np.ndarray, b: np.ndarray, than_a: np.ndarray, than_b: np.ndarray) -> np.ndarray:
    """Lexicographic (a, b) > (than_a, than_b), with a tolerance for float noise."""
    tol = _TOL * (1.0 + np.abs(than_a))
    return (a > than_a + tol) | ((a >= than_a - tol) & (b > than_b + _TOL * (1.0 + np.abs(than_b))))


@lru_cache(maxsize=512)
def _solve(setup: Setup, objective: str, strategy: str) -> Solution:
    tab = _tables(setup.tiles, setup.max_tiles_per_throw)
    n = 1 << setup.tiles
    score_of = scores(setup.tiles, setup.scoring)
    one_ok = one_die_mask(setup)
    # The solver maximises the pair (A, B) lexicographically; p and e are recovered from it.
    if strategy == "optimal" and objective == "score":
        A, B = np.zeros(n), np.zeros(n)  # A = -e, B = p
        term_a, term_b = -score_of, np.zeros(n)
        A[0], B[0] = 0.0, 1.0
    else:
        A, B = np.zeros(n), np.zeros(n)  # A = p, B = -e   (strategies: A = p, B = -e as well)
        term_a, term_b = np.zeros(n), -score_of
        A[0], B[0] = 1.0, 0.0
    one_die = np.zeros(n, dtype=bool)
    moves, starts, cols = tab.moves, tab.starts, tab.totals - 1
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(moves))))
    rank = {"greedy-largest": tab.greedy_rank, "fewest-tiles": tab.fewest_rank}.get(strategy)
    for layer in tab.layers[1:]:
        S = layer[:, None]
        legal = (S & moves) == moves
        nxt = S ^ moves
        va = np.full((len(layer), MAX_THROW), 0.0)
        vb = np.full((len(layer), MAX_THROW), 0.0)
        va[:] = term_a[layer, None]
        vb[:] = term_b[layer, None]
        if strategy == "optimal":
            a = np.where(legal, A[nxt], -np.inf)
            best_a = np.maximum.reduceat(a, starts, axis=1)
            tol = _TOL * (1.0 + np.abs(best_a[:, group]))
            near = legal & (a >= best_a[:, group] - tol)
            best_b = np.maximum.reduceat(np.where(near, B[nxt], -np.inf), starts, axis=1)
            any_legal = np.isfinite(best_a)
        elif strategy == "random":
            count = np.add.reduceat(legal.astype(float), starts, axis=1)
            any_legal = count > 0
            safe = np.where(any_legal, count, 1.0)
            best_a = np.add.reduceat(np.where(legal, A[nxt], 0.0), starts, axis=1) / safe
            best_b = np.add.reduceat(np.where(legal, B[nxt], 0.0), starts, axis=1) / safe
        else:
            assert rank is not None
            r = np.where(legal, rank, -np.inf)
            top = np.maximum.reduceat(r, starts, axis=1)
            chosen = legal & (r == top[:, group])
            best_a = np.add.reduceat(np.where(chosen, A[nxt], 0.0), starts, axis=1)
            best_b = np.add.reduceat(np.where(chosen, B[nxt], 0.0), starts, axis=1)
            any_legal = np.isfinite(top)
        va[:, cols] = np.where(any_legal, best_a, va[:, cols])
        vb[:, cols] = np.where(any_legal, best_b, vb[:, cols])
        a2, b2 = va @ P_TWO, vb @ P_TWO
        a1, b1 = va @ P_ONE, vb @ P_ONE
        ok = one_ok[layer]
        if setup.one_die_forced:
            use_one = ok
        elif strategy == "optimal":
            use_one = ok & _better(a1, b1, a2, b2)
        else:
            use_one = ok
        if strategy == "random" and not setup.one_die_forced:
            A[layer] = np.where(ok, (a1 + a2) / 2, a2)
            B[layer] = np.where(ok, (b1 + b2) / 2, b2)
        else:
            A[layer] = np.where(use_one, a1, a2)
            B[layer] = np.where(use_one, b1, b2)
        one_die[layer] = use_one
    if strategy == "optimal" and objective == "score":
        p, e = B, -A
    else:
        p, e = A, -B
    for arr in (p, e, one_die):
        arr.setflags(write=False)
    return Solution(setup, objective, strategy, p, e, one_die)


def solve(rules: Rules, objective: str = "shut", strategy: str = "optimal") -> Solution:
    """Solve every state for these settings (cached). ``rules.tiles`` may be any 1..12 here."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}; allowed: {', '.join(STRATEGIES)}")
    if not 1 <= rules.tiles <= MAX_THROW:
        raise ValueError(f"the solver handles 1 to {MAX_THROW} tiles, not {rules.tiles}")
    if strategy != "optimal":
        objective = "shut"  # a named strategy's values do not depend on the objective
    return _solve(Setup.of(rules), objective, strategy)


def clear_cache() -> None:
    """Forget solved tables (for benchmarks)."""
    _solve.cache_clear()
    _tables.cache_clear()
    scores.cache_clear()
    _one_die.cache_clear()
    _tile_sets.cache_clear()


@dataclass(frozen=True)
class MoveValue:
    """One legal move for a throw and the value of the state it leaves."""

    tiles: tuple[int, ...]
    open_after: tuple[int, ...]
    p_shut: float
    expected_score: float


def rank_moves(solution: Solution, open_tiles: tuple[int, ...], throw: int) -> list[MoveValue]:
    """Every legal move for ``throw`` with ``open_tiles`` open, best first under the solution's objective."""
    rules = solution.setup.rules
    moves = legal_moves(rules, open_tiles, throw)  # largest tiles first: the final tie-break
    start = mask_of(open_tiles)
    ranked = sorted(moves, key=lambda m: solution.key(start & ~mask_of(m)), reverse=True)
    out = []
    for m in ranked:
        after = start & ~mask_of(m)
        out.append(MoveValue(m, tiles_of(after), float(solution.p_shut[after]),
                             float(solution.expected_score[after])))
    return out

