"""Benchmark: the solver for every box and set size, its exact limit, and the approximate method's shortfall.

1. Sizes: for each (tiles, dice) one exact solve (optimal, shut) in a fresh process, every cache empty:
   wall time, CPU time and peak memory (max RSS), and the (state, move) pairs -- the exact limit
   (``solver.EXACT_MAX_PAIRS``, ``EXACT_MAX_TILES``) keeps every size it takes within 10 s and 2 GB;
   sizes just beyond it are measured to show the margin.
2. Shortfall at the largest exact size (18 tiles, 6 dice): the optimum against the approximate method's
   stand-in policy (``estimate.STAND_IN``), both evaluated exactly, and the Monte Carlo estimate.
   Also the rollout ranking against the exact best move at 18 tiles, 6 dice: in positions a turn reaches
   under optimal play, how often the Monte Carlo ranking picks a best move and the chance it loses.
3. Monte Carlo timings beyond the limit: the start value and the slowest throw to rank.
4. Every rule configuration of the box sizes (9, 10, 12 tiles, two dice), as before: a solve of both
   objectives and the named strategies; budget: one 12-tile solve < 100 ms.

Exit status 1 if a size the solver takes exactly misses 10 s or 2 GB, or a 12-tile solve the budget.
``python bench/solver.py --sizes`` runs parts 1-3 only.
"""

from __future__ import annotations

import itertools
import json
import resource
import statistics
import subprocess
import sys
import time

from shutbox.game import estimate, solver
from shutbox.kit.model import BOX_TILE_COUNTS, MAX_TILES_CHOICES, ONE_DIE_RULES, SCORINGS, Rules

BUDGET_MS = 100.0
LIMIT_S, LIMIT_MB = 10.0, 2048
SIZES = [(9, 2), (10, 2), (12, 2), (12, 3), (14, 3), (16, 3), (16, 4), (17, 6), (18, 3), (18, 6), (19, 4), (19, 5),
         (20, 4), (19, 6)]
POLICIES = [("optimal", "shut"), ("optimal", "score")] + [(s, "shut") for s in solver.STRATEGIES[1:]]


def one_size(tiles: int, dice: int) -> dict[str, float]:
    """Solve one size in this (fresh) process: wall and CPU seconds, peak memory in MB."""
    rules = Rules(tiles=tiles, dice=dice)
    wall, cpu = time.perf_counter(), time.process_time()
    solution = solver._solve(solver.Setup.of(rules), "shut", "optimal")  # past the exact() gate, to measure 19
    p, e = solution.state(rules.tile_numbers)
    return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "p_shut": p, "expected_score": e}


def sizes() -> bool:
    print(f"exact solver, one process per size (limit {LIMIT_S:.0f} s, {LIMIT_MB} MB; at most "
          f"{solver.EXACT_MAX_TILES} tiles and {solver.EXACT_MAX_PAIRS:,} (state, move) pairs)")
    print(f"{'tiles':>5} {'dice':>4} {'pairs':>12} {'wall s':>7} {'cpu s':>7} {'MB':>6} {'P(shut)':>9} "
          f"{'E[score]':>9}  taken")
    ok = True
    for tiles, dice in SIZES:
        proc = subprocess.run([sys.executable, __file__, "--one", str(tiles), str(dice)], capture_output=True,
                              text=True, check=True)
        r = json.loads(proc.stdout)
        taken = solver.exact(Rules(tiles=tiles, dice=dice))
        within = r["cpu_s"] < LIMIT_S and r["rss_mb"] < LIMIT_MB
        ok &= within or not taken
        print(f"{tiles:>5} {dice:>4} {solver.pair_count(tiles, dice, None):>12,} {r['wall_s']:>7.2f} "
              f"{r['cpu_s']:>7.2f} {r['rss_mb']:>6.0f} {r['p_shut']:>9.4%} "
              f"{r['expected_score']:>9.3f}  {'exact' if taken else 'monte-carlo beyond the limit'}")
    return ok


def shortfall() -> None:
    rules = Rules(tiles=18, dice=6)
    print(f"\nshortfall at 18 tiles, 6 dice: optimal vs {estimate.STAND_IN} (the approximate method's policy)")
    for objective in ("shut", "score"):
        best = solver.solve(rules, objective).state(rules.tile_numbers)
        stand_in = solver.solve(rules, strategy=estimate.STAND_IN).state(rules.tile_numbers)
        mc = estimate.state_value(rules, "optimal", rules.tile_numbers)
        print(f"  objective {objective}: optimal P(shut) {best[0]:.2%}, E[score] {best[1]:.2f}; "
              f"{estimate.STAND_IN} exactly {stand_in[0]:.2%}, {stand_in[1]:.2f}; "
              f"Monte Carlo {mc.p_shut:.2%} ± {mc.p_stderr:.2%}, {mc.expected_score:.2f} ± {mc.score_stderr:.2f}")


def ranking_check(positions: int = 20, seed: int = 5) -> None:
    """The Monte Carlo ranking (as used beyond the limit) against the exact values, at 18 tiles and 6 dice."""
    import random

    rules = Rules(tiles=18, dice=6)
    exact = solver.solve(rules, "shut")
    rng = random.Random(seed)
    same = 0
    losses = []
    start = time.perf_counter()
    while len(losses) < positions:
        board = set(rules.tile_numbers)  # walk a turn under the optimal policy to a position with a choice
        for _ in range(rng.randint(0, 3)):
            throw = sum(rng.randint(1, 6) for _ in range(exact.dice(tuple(sorted(board)))))
            ranked = solver.rank_moves(exact, tuple(sorted(board)), throw)
            if not ranked or len(ranked[0].open_after) == 0:
                break
            board = set(ranked[0].open_after)
        tiles = tuple(sorted(board))
        throw = sum(rng.randint(1, 6) for _ in range(exact.dice(tiles)))
        best = solver.rank_moves(exact, tiles, throw)
        if len(best) < 2:
            continue
        picked = estimate.rank_moves(rules, tiles, throw, "shut")[0][0]
        value = {m.tiles: m.p_shut for m in best}
        same += value[picked] >= best[0].p_shut - 1e-12
        losses.append(best[0].p_shut - value[picked])
    print(f"  rollout ranking at 18 tiles, 6 dice: a best move in {same} of {positions} positions with a choice; "
          f"mean loss {statistics.mean(losses):.3%} (largest {max(losses):.3%}) of the chance to shut the box; "
          f"{time.perf_counter() - start:.0f} s")


def monte_carlo() -> None:
    print("\nMonte Carlo beyond the limit (start value; ranking the throw with the most moves)")
    for tiles, dice in [(24, 4), (36, 6), (54, 9)]:
        rules = Rules(tiles=tiles, dice=dice)
        a = solver.advisor(rules, "score")
        start = time.perf_counter()
        v = a.value(rules.tile_numbers)
        t_value = time.perf_counter() - start
        throw = max(range(dice, 6 * dice + 1), key=lambda t: len(solver.legal_moves(rules, rules.tile_numbers, t)))
        start = time.perf_counter()
        ranked = a.rank_moves(rules.tile_numbers, throw)
        print(f"  {tiles} tiles, {dice} dice: E[score] {v.expected_score:.1f} ± {v.score_stderr:.1f} "
              f"in {t_value:.2f} s; throw {throw}: {len(ranked)} moves ranked in {time.perf_counter() - start:.2f} s")


def timed(rules: Rules, objective: str, strategy: str) -> tuple[float, solver.Solution]:
    solver._solve.cache_clear()
    start = time.perf_counter()
    solution = solver.solve(rules, objective, strategy)
    return (time.perf_counter() - start) * 1000, solution


def box_configurations() -> bool:
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
    return slowest < BUDGET_MS


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print(json.dumps(one_size(int(argv[1]), int(argv[2]))))
        return 0
    ok = sizes()
    shortfall()
    ranking_check()
    monte_carlo()
    if argv[:1] != ["--sizes"]:
        ok &= box_configurations()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
