"""Strategy solver: the value of every set of open tiles under the optimal policy or a named one.

A state is the set of open tiles, a bitmask (bit ``i`` is tile ``i + 1``), so a box of N tiles has
2**N states. Shutting tiles only clears bits, so states are solved layer by layer in order of how
many tiles are open. Within a layer every (state, move) pair is generated at once, vectorised per
move size: the states of a layer holding a move ``m`` are ``m`` plus every way of choosing the rest
of the layer's tiles from the tiles outside ``m``; the best (or chosen) move per (state, throw) is
then a grouped reduction (``np.maximum.at``, ``np.bincount``).

Before each throw the player picks one die or all ``rules.dice`` dice where the one-die rule allows a
choice; after it they pick a move (a set of open tiles adding up to the throw, at most
``max_tiles_per_throw``). The chance of each total of D dice is the rules engine's
(:func:`~shutbox.game.rules.throw_distribution`: independent fair dice; a domino or card drawn instead of a
throw is assumed to fall the same way).

Objectives:

- ``shut``: maximise the probability of shutting the box; ties go to the lower expected score.
- ``score``: minimise the expected final score (``sum`` or ``digits`` scoring); ties go to the
  higher probability of shutting the box.

Remaining ties go to the move with the largest tiles. Named strategies, evaluated exactly:

- ``greedy-largest``: the move whose largest tile is largest (then the next tile, ...).
- ``fewest-tiles``: the move with the fewest tiles, then as greedy-largest.
- ``random``: every legal move equally likely, and one die or all dice equally likely when both are allowed.

``greedy-largest`` and ``fewest-tiles`` throw one die whenever it is allowed.

The exact solver takes a setting when its work, the number of (state, move) pairs, is at most
:data:`EXACT_MAX_PAIRS` -- that of 18 tiles with 6 dice, measured by ``bench/solver.py`` at 3.3 s of CPU
and 0.6 GB -- and it has at most :data:`EXACT_MAX_TILES` tiles: every setting up to 18 tiles, 19 tiles
with up to 4 dice, 19 or 20 tiles with at most 2 tiles per throw. Larger sets are
valued by :mod:`shutbox.game.estimate` (Monte Carlo); :func:`advisor` picks the method.

Solutions are cached per (settings, objective, strategy); numpy arrays are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.game.policy import OBJECTIVES, STRATEGIES, Setup
from shutbox.game.rules import (
    legal_moves,
    move_preference,
    one_die_allowed,
    score,
    throw_distribution,
    throw_totals,
)
from shutbox.game.solution import (  # noqa: F401 - the values' classes live there (numpy-free), re-exported here
    TIE,
    Advisor,
    MoveValue,
    Solution,
    mask_of,
    rank_moves,
    tiles_of,
)
from shutbox.kit.model import Rules, least_dice

#: The most tiles the exact solver takes (every allowed dice count); see bench/solver.py.
EXACT_MAX_TILES = 20
#: The most (state, move) pairs the exact solver takes: 18 tiles with 6 dice has 68,609,024.
EXACT_MAX_PAIRS = 70_000_000
_TOL = TIE  #: the solution's tolerance (:func:`~shutbox.game.solution.better`)
_CHUNK = 1 << 22  #: most (state, move) pairs handled in one vectorised block


def throw_chances(count: int, highest: int | None = None) -> np.ndarray:
    """The chance of each total 1..``highest`` (default 6 x count) with ``count`` fair dice (index 0 = total 1),
    from the rules engine's :func:`~shutbox.game.rules.throw_distribution`."""
    top = highest if highest is not None else throw_totals(count)[-1]
    out = np.zeros(top)
    for total, chance in throw_distribution(count):
        if total <= top:
            out[total - 1] = chance
    return out


class TooLarge(ShutboxError):
    """The exact solver does not take this many tiles (use :func:`advisor`)."""


@cache
def _byte_tiles(byte: int) -> tuple[tuple[int, ...], ...]:
    """The tiles of every 8-bit pattern at byte ``byte`` of a mask."""
    return tuple(tuple(8 * byte + i + 1 for i in range(8) if v >> i & 1) for v in range(256))


def _all_tile_sets(tiles: int):  # noqa: ANN202 - generator of tuples
    """The open tiles of every mask 0 .. 2**tiles - 1, in order (fast: per-byte tables)."""
    tables = [_byte_tiles(b) for b in range((tiles + 7) // 8)]
    for m in range(1 << tiles):
        out: tuple[int, ...] = ()
        for b, table in enumerate(tables):
            out += table[(m >> (8 * b)) & 255]
        yield out


@dataclass(frozen=True)
class _MoveGroup:
    """The moves of one size (number of tiles): masks, throw totals, strategy ranks, expansion tables."""

    size: int
    masks: np.ndarray  # int64
    throws: np.ndarray  # 1-based totals
    greedy: np.ndarray  # higher = preferred within its throw
    fewest: np.ndarray
    expand: tuple[np.ndarray, ...]  # per byte of a pattern over the move's complement: (moves, 256) masks


@dataclass(frozen=True)
class _Tables:
    """Everything about a box size, dice count and move limit that does not depend on the policy."""

    tiles: int
    top: int  # the highest throw
    order: np.ndarray  # every mask, sorted by the number of open tiles
    offsets: np.ndarray  # layer k is order[offsets[k]:offsets[k + 1]]
    index: np.ndarray  # a mask's position within its layer
    groups: tuple[_MoveGroup, ...]


@cache
def _popcount_order(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ``bits``-bit pattern sorted by its number of set bits, and where each count starts."""
    patterns = np.arange(1 << bits, dtype=np.int64)
    counts = np.zeros(1 << bits, dtype=np.int64)
    for b in range(bits):
        counts += (patterns >> b) & 1
    order = np.argsort(counts, kind="stable").astype(np.int64)
    offsets = np.searchsorted(counts[order], np.arange(bits + 2))
    return order, offsets


def _expansion(masks: np.ndarray, tiles: int) -> tuple[np.ndarray, ...]:
    """Byte tables placing bit ``j`` of a pattern on the ``j``-th tile outside each move (moves of one size)."""
    bits = np.arange(tiles)
    outside = np.array([bits[((int(m) >> bits) & 1) == 0] for m in masks], dtype=np.int64).reshape(len(masks), -1)
    values = np.arange(256, dtype=np.int64)
    tables = []
    for start in range(0, max(outside.shape[1], 1), 8):
        table = np.zeros((len(masks), 256), dtype=np.int64)
        for j in range(start, min(start + 8, outside.shape[1])):
            table |= ((values >> (j - start)) & 1)[None, :] << outside[:, j][:, None]
        tables.append(table)
    return tuple(tables)


@cache
def _tables(tiles: int, dice: int, max_tiles: int | None) -> _Tables:
    """Move tables from the rules engine: every move of a full box for every throw, grouped by size."""
    rules = Rules(tiles=tiles, dice=dice, max_tiles_per_throw=max_tiles)
    top = throw_totals(dice)[-1]
    order, offsets = _popcount_order(tiles)
    index = np.zeros(1 << tiles, dtype=np.int64)
    for k in range(tiles + 1):
        layer = order[offsets[k]:offsets[k + 1]]
        index[layer] = np.arange(len(layer))
    by_size: dict[int, list[tuple[int, int, int, int]]] = {}
    for total in range(1, top + 1):
        group = legal_moves(rules, rules.tile_numbers, total)  # largest tiles first
        by_count = sorted(group, key=lambda c: (len(c), move_preference(c)))
        for rank, c in enumerate(group):
            by_size.setdefault(len(c), []).append((mask_of(c), total, -rank, -by_count.index(c)))
    groups = []
    for size in sorted(by_size):
        rows = by_size[size]
        masks = np.array([r[0] for r in rows], dtype=np.int64)
        groups.append(_MoveGroup(size, masks, np.array([r[1] for r in rows]), np.array([r[2] for r in rows], float),
                                 np.array([r[3] for r in rows], float), _expansion(masks, tiles)))
    return _Tables(tiles, top, order, offsets, index, tuple(groups))


def _pairs(tab: _Tables, k: int):  # noqa: ANN202 - generator of array tuples
    """Every (state in layer k, move it holds) in blocks, as 2-D arrays (moves x states):
    (key = state index in the layer x top + throw - 1, next state, the moves' group, their rows)."""
    for g in tab.groups:
        if g.size > k:
            continue
        patterns, starts = _popcount_order(tab.tiles - g.size)
        chosen = patterns[starts[k - g.size]:starts[k - g.size + 1]]
        step = max(1, _CHUNK // max(1, len(chosen)))
        for lo in range(0, len(g.masks), step):
            rows = np.arange(lo, min(lo + step, len(g.masks)))
            nxt = g.expand[0][rows][:, chosen & 255]
            for byte in range(1, len(g.expand)):
                nxt |= g.expand[byte][rows][:, (chosen >> (8 * byte)) & 255]
            key = tab.index[nxt | g.masks[rows][:, None]]
            key *= tab.top
            key += (g.throws[rows] - 1)[:, None]
            yield key, nxt, g, rows


@cache
def scores(tiles: int, scoring: str) -> np.ndarray:
    """The score of every mask, by the rules engine's :func:`score` (float64: exact, below 2**53)."""
    rules = Rules(tiles=tiles, dice=least_dice(tiles), scoring=scoring)  # scores do not depend on the dice
    if scoring == "sum":  # the engine's score of each single tile, added up bit by bit
        masks = np.arange(1 << tiles, dtype=np.int64)
        out = np.zeros(1 << tiles, dtype=np.float64)
        for t in rules.tile_numbers:
            out += ((masks >> (t - 1)) & 1) * score(rules, (t,))
        out.setflags(write=False)
        return out
    out = np.array([score(rules, s) for s in _all_tile_sets(tiles)], dtype=np.float64)
    out.setflags(write=False)
    return out


@cache
def _one_die(tiles: int, dice: int, one_die: str) -> np.ndarray:
    rules = Rules(tiles=tiles, dice=dice, one_die=one_die)
    out = np.fromiter((one_die_allowed(rules, s) for s in _all_tile_sets(tiles)), dtype=bool, count=1 << tiles)
    out.setflags(write=False)
    return out


def one_die_mask(setup: Setup) -> np.ndarray:
    """Per mask: may one die be thrown? (the rules engine's :func:`one_die_allowed`, cached)"""
    return _one_die(setup.tiles, setup.dice, setup.one_die)


def _better(a: np.ndarray, b: np.ndarray, than_a: np.ndarray, than_b: np.ndarray) -> np.ndarray:
    """Lexicographic (a, b) > (than_a, than_b), with a tolerance for float noise: :func:`solution.better`
    for whole arrays."""
    tol = _TOL * (1.0 + np.abs(than_a))
    return (a > than_a + tol) | ((a >= than_a - tol) & (b > than_b + _TOL * (1.0 + np.abs(than_b))))


def _layer_values(tab: _Tables, k: int, strategy: str, A: np.ndarray, B: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (state of layer k, throw): the value (A, B) of the move the policy makes, and whether one exists."""
    size = int(tab.offsets[k + 1] - tab.offsets[k]) * tab.top
    best_a = np.full(size, -np.inf)
    best_b = np.full(size, -np.inf)
    if strategy == "optimal":
        kept = []
        for key, nxt, _g, _rows in _pairs(tab, k):
            key, nxt = key.ravel(), nxt.ravel()
            a = A[nxt]
            np.maximum.at(best_a, key, a)
            kept.append((key, a, nxt))
        for key, a, nxt in kept:
            near = a >= best_a[key] - _TOL * (1.0 + np.abs(best_a[key]))
            np.maximum.at(best_b, key[near], B[nxt[near]])
        return best_a, best_b, np.isfinite(best_a)
    sum_a, sum_b, count = np.zeros(size), np.zeros(size), np.zeros(size)
    if strategy == "random":
        for key, nxt, _g, _rows in _pairs(tab, k):
            key, nxt = key.ravel(), nxt.ravel()
            sum_a += np.bincount(key, A[nxt], size)
            sum_b += np.bincount(key, B[nxt], size)
            count += np.bincount(key, None, size)
        legal = count > 0
        safe = np.where(legal, count, 1.0)
        return sum_a / safe, sum_b / safe, legal
    top_rank = np.full(size, -np.inf)
    kept = []
    for key, nxt, g, rows in _pairs(tab, k):
        rank = np.broadcast_to((g.greedy if strategy == "greedy-largest" else g.fewest)[rows][:, None], key.shape)
        key, nxt, rank = key.ravel(), nxt.ravel(), rank.ravel()
        np.maximum.at(top_rank, key, rank)
        kept.append((key, rank, nxt))
    for key, rank, nxt in kept:
        chosen = rank == top_rank[key]
        sum_a += np.bincount(key[chosen], A[nxt[chosen]], size)
        sum_b += np.bincount(key[chosen], B[nxt[chosen]], size)
    return sum_a, sum_b, np.isfinite(top_rank)


@lru_cache(maxsize=64)
def _solve(setup: Setup, objective: str, strategy: str) -> Solution:
    tab = _tables(setup.tiles, setup.dice, setup.max_tiles_per_throw)
    n = 1 << setup.tiles
    score_of = scores(setup.tiles, setup.scoring)
    one_ok = one_die_mask(setup)
    p_all = throw_chances(setup.dice, tab.top)
    p_one = throw_chances(1, tab.top)
    # The solver maximises the pair (A, B) lexicographically; p and e are recovered from it.
    A, B = np.zeros(n), np.zeros(n)
    if strategy == "optimal" and objective == "score":
        term_a, term_b = -score_of, np.zeros(n)  # A = -e, B = p
        A[0], B[0] = 0.0, 1.0
    else:
        term_a, term_b = np.zeros(n), -score_of  # A = p, B = -e (strategies as well)
        A[0], B[0] = 1.0, 0.0
    one_die = np.zeros(n, dtype=bool)
    for k in range(1, setup.tiles + 1):
        layer = tab.order[tab.offsets[k]:tab.offsets[k + 1]]
        best_a, best_b, legal = _layer_values(tab, k, strategy, A, B)
        va = np.where(legal, best_a, np.repeat(term_a[layer], tab.top)).reshape(len(layer), tab.top)
        vb = np.where(legal, best_b, np.repeat(term_b[layer], tab.top)).reshape(len(layer), tab.top)
        a2, b2 = va @ p_all, vb @ p_all
        a1, b1 = va @ p_one, vb @ p_one
        ok = one_ok[layer]
        if setup.one_die_forced or strategy != "optimal":
            use_one = ok
        else:
            use_one = ok & _better(a1, b1, a2, b2)
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


@cache
def pair_count(tiles: int, dice: int, max_tiles: int | None) -> int:
    """The (state, move) pairs of a solve: every move m of a full box (a tile set adding up to a throw of
    one die or ``dice`` dice) is held by 2**(tiles - |m|) states. Counted by tile sum and size."""
    top = throw_totals(dice)[-1]
    ways = {(0, 0): 1}  # (sum, size) -> number of tile sets
    for t in range(1, tiles + 1):
        for (total, size), n in list(ways.items()):
            if total + t <= top and (max_tiles is None or size < max_tiles):
                ways[(total + t, size + 1)] = ways.get((total + t, size + 1), 0) + n
    return sum(n << (tiles - size) for (total, size), n in ways.items() if total)


def exact(rules: Rules) -> bool:
    """Does the exact solver take these settings? (see the module docstring)"""
    return (rules.tiles <= EXACT_MAX_TILES
            and pair_count(rules.tiles, rules.dice, rules.max_tiles_per_throw) <= EXACT_MAX_PAIRS)


def solve(rules: Rules, objective: str = "shut", strategy: str = "optimal") -> Solution:
    """Solve every state exactly for these settings (cached); TooLarge where :func:`exact` says no.

    ``rules.tiles`` may be any 1..EXACT_MAX_TILES here (small boxes serve the tests).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}; allowed: {', '.join(STRATEGIES)}")
    if not exact(rules):
        raise TooLarge(f"the exact solver takes up to {EXACT_MAX_TILES} tiles and {EXACT_MAX_PAIRS:,} (state, move) "
                       f"pairs (18 tiles with 6 dice); {rules.tiles} tiles with {rules.dice} dice is beyond it")
    if strategy != "optimal":
        objective = "shut"  # a named strategy's values do not depend on the objective
    return _solve(Setup.of(rules), objective, strategy)


def advisor(rules: Rules, objective: str = "shut", strategy: str = "optimal") -> Advisor:
    """The exact solution where the solver takes the size, else the stated Monte Carlo method."""
    if exact(rules):
        return Advisor(rules, objective, strategy, solve(rules, objective, strategy))
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}; allowed: {', '.join(STRATEGIES)}")
    return Advisor(rules, objective, strategy, None)
