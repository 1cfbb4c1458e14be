"""An exact-fractions reference for the solver: plain recursion over the rules engine's legal moves, with the
dice counted one by one (independent of the solver's tables and its convolution)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

from shutbox.game.rules import dice_counts, legal_moves, move_preference, score
from shutbox.kit.model import Rules

Value = tuple[Fraction, Fraction]


def close(value: float, exact: Fraction) -> bool:
    return abs(value - float(exact)) <= 1e-12 * max(1.0, abs(float(exact)))


@cache
def dice_fractions(count: int) -> dict[int, Fraction]:
    """Every way ``count`` dice fall, counted one by one."""
    out: dict[int, Fraction] = {}
    for faces in product(range(1, 7), repeat=count):
        out[sum(faces)] = out.get(sum(faces), Fraction(0)) + Fraction(1, 6 ** count)
    return out


@cache
def reference(rules: Rules, objective: str, strategy: str, open_tiles: frozenset[int]) -> Value:
    """(p_shut, expected score) of ``open_tiles`` under ``strategy`` (``optimal`` for ``objective``)."""
    if not open_tiles:
        return Fraction(1), Fraction(0)

    def key(v: Value) -> Value:
        return (v[0], -v[1]) if objective == "shut" else (-v[1], v[0])

    options = []
    for count in dice_counts(rules, open_tiles):
        p = e = Fraction(0)
        for total, w in dice_fractions(count).items():
            moves = legal_moves(rules, open_tiles, total)
            values = [reference(rules, objective, strategy, open_tiles - set(m)) for m in moves]
            v = _chosen(strategy, moves, values, key) if moves else (Fraction(0), Fraction(score(rules, open_tiles)))
            p += w * v[0]
            e += w * v[1]
        options.append((count, (p, e)))
    if strategy == "optimal":
        return max((v for _, v in options), key=key)
    if strategy == "random":
        return (sum((v[0] for _, v in options), Fraction(0)) / len(options),
                sum((v[1] for _, v in options), Fraction(0)) / len(options))
    return dict(options).get(1, options[0][1])  # the simple strategies throw one die when allowed


def _chosen(strategy: str, moves, values, key):  # noqa: ANN001 - test helper
    """The value of the move the strategy picks (the mean for ``random``)."""
    if strategy == "optimal":
        return max(values, key=key)
    if strategy == "greedy-largest":
        return values[[move_preference(m) for m in moves].index(min(move_preference(m) for m in moves))]
    if strategy == "fewest-tiles":
        ranks = [(len(m), move_preference(m)) for m in moves]
        return values[ranks.index(min(ranks))]
    return (sum(x[0] for x in values) / len(values), sum(x[1] for x in values) / len(values))
