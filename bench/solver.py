"""Benchmark: the exact solver under every rule configuration (budget: one 12-tile solve < 100 ms).

For each box size, one-die rule, forced or not, tile limit and scoring, times a solve of both
objectives and the three named strategies (move tables cached, as in a running program, but the
solution itself not) and prints the start state's chance of shutting the box and expected score.
Also times the first solve of each box size with every cache empty. Exit status 1 if any 12-tile
solve takes longer than the budget.
"""

from __future__ import annotations

import itertools
import statistics
import time

from shutbox.game import solver
from shutbox.model import MAX_TILES_CHOICES, ONE_DIE_RULES, SCORINGS, BOX_TILE_COUNTS, Rules

BUDGET_MS = 100.0
POLICIES = [("optimal", "shut"), ("optimal", "score")] + [(s, "shut") for s in solver.STRATEGIES[1:]]


def timed(rules: Rules, objective: str, strategy: str) -> tuple[float, solver.Solution]:
    solver._solve.cache_clear()
    start = time.perf_counter()
    solution = solver.solve(rules, objective, strategy)
    return (time.perf_counter() - start) * 1000, solution


def main() -> int:
    for tiles in BOX_TILE_COUNTS:
        solver.clear_cache()
        ms, _ = timed(Rules(tiles=tiles), "shut", "optimal")
        print(f"{tiles} tiles, every cache empty: {ms:.1f} ms")
    print()
    header = f"{'tiles':>5} {'one die':<9} {'forced':<6} {'max':<4} {'scoring':<7}  {'policy':<16} " \
             f"{'ms':>6} {'P(shut)':>9} {'E[score]':>16}"
    print(header)
    print("-" * len(header))
    times: dict[int, list[float]] = {}
    for tiles, one_die, forced, most, scoring in itertools.product(
        BOX_TILE_COUNTS, ONE_DIE_RULES, (False, True), MAX_TILES_CHOICES, SCORINGS
    ):
        rules = Rules(tiles=tiles, one_die=one_die, one_die_forced=forced, max_tiles_per_throw=most, scoring=scoring)
        for strategy, objective in POLICIES:
            ms, solution = timed(rules, objective, strategy)
            times.setdefault(tiles, []).append(ms)
            p, e = solution.state(rules.tile_numbers)
            policy = f"optimal {objective}" if strategy == "optimal" else strategy
            print(f"{tiles:>5} {one_die:<9} {'on' if forced else 'off':<6} {most or '-':<4} {scoring:<7}  "
                  f"{policy:<16} {ms:>6.1f} {p:>9.4%} {e:>16.4f}")
    print()
    for tiles, ms in times.items():
        print(f"{tiles} tiles: {len(ms)} solves, median {statistics.median(ms):.1f} ms, slowest {max(ms):.1f} ms")
    slowest = max(times[max(BOX_TILE_COUNTS)])
    print(f"budget: every {max(BOX_TILE_COUNTS)}-tile solve under {BUDGET_MS:.0f} ms")
    return 0 if slowest < BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
