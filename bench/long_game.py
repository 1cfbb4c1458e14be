"""Benchmark and measurement: how many turns long games last (the long-game pad's turn rows).

For each box size, prints the exact distribution's mean, median, 90th and 99th percentile of the
number of turns under the two policies of :mod:`shutbox.game.turns` (the solver's best play and
shutting the largest tiles), the rows the pad prints (:func:`long_game_turn_rows`: the larger 99th
percentile) and how long the exact walk takes. Then plays long games out with the rules engine
(seeded dice, the same policies) and prints the simulated figures beside the exact ones, as a
cross-check of the walk.

Run: ``.venv/bin/python bench/long_game.py [--games N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from shutbox.game import solver, turns
from shutbox.game.replay import UNCOVER, Game
from shutbox.kit.model import BOX_TILE_COUNTS, Rules


def simulate(rules: Rules, policy: str, games: int, seed: int = 1) -> list[int]:
    """Turn counts of ``games`` long games played by the rules engine, both players following ``policy``."""
    solution = solver.solve(rules, "shut")
    rng = random.Random(seed)
    counts = []
    for _ in range(games):
        game = Game(rules).add_players("A", "B")
        while not game.finished:
            in_play = game.in_play
            choice = game.dice_counts()
            if len(choice) > 1:
                dice = 1 if policy == "greedy-largest" else solution.dice(in_play)
            else:
                dice = next(iter(choice))
            game.throw(*(rng.randint(1, 6) for _ in range(dice)))
            moves = game.legal_moves()
            if moves:
                move = moves[0] if policy == "greedy-largest" else solver.rank_moves(
                    solution, in_play, game.pending.total)[0].tiles  # type: ignore[union-attr]
                (game.uncover if game.phase == UNCOVER else game.shut)(*move)
        counts.append(len(game.turns))
    return counts


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games simulated per setting [default 2000]")
    args = parser.parse_args()
    print(f"{'tiles':>5} {'policy':<15} {'mean':>6} {'p50':>4} {'p90':>4} {'p99':>4} {'walk ms':>8}")
    for tiles in BOX_TILE_COUNTS:
        rules = Rules(tiles=tiles, match="long-game")
        for policy in turns.POLICIES:
            turns.turn_map.cache_clear()
            turns.long_game_lengths.cache_clear()
            start = time.perf_counter()
            length = turns.long_game_lengths(rules, policy)
            ms = (time.perf_counter() - start) * 1000
            print(f"{tiles:>5} {policy:<15} {length.mean:6.2f} {length.quantile(0.5):4d} {length.quantile(0.9):4d} "
                  f"{length.quantile(0.99):4d} {ms:8.0f}")
        print(f"{tiles:>5} pad rows per game: {turns.long_game_turn_rows(rules)}")
    print(f"\nrules-engine simulation, {args.games} games each (9 tiles):")
    rules = Rules(match="long-game")
    for policy in turns.POLICIES:
        played = simulate(rules, policy, args.games)
        exact = turns.long_game_lengths(rules, policy)
        print(f"  {policy:<15} simulated mean {statistics.mean(played):6.2f} p90 {percentile(played, 0.9):4d} "
              f"p99 {percentile(played, 0.99):4d} | exact mean {exact.mean:6.2f} p90 {exact.quantile(0.9):4d} "
              f"p99 {exact.quantile(0.99):4d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
