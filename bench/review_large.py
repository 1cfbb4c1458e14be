"""Benchmark: reviewing a 54-tile game (9 dice), beyond the exact solver — the full review's predicted time per
decision against the Monte Carlo estimate's measured time (issue 29 fault 7: ~231 s a decision, silently).

Builds a seeded 54-tile round game, times a few simulated turns as `shutbox review` does to predict the full
review, then reviews the first decisions with ``estimate=True`` and reports CPU seconds per decision.
Exit status 1 when the estimate takes longer than the budget per decision.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shutbox.cli.commands.review import seconds_per_turn  # noqa: E402
from shutbox.game import estimate  # noqa: E402
from shutbox.game.replay import Game  # noqa: E402
from shutbox.game.review import full_work, review_game  # noqa: E402
from shutbox.game.solvercache import cached_solve  # noqa: E402
from shutbox.kit.model import Rules  # noqa: E402

BUDGET_S = 10.0  #: CPU seconds per decision for the estimate
THROWS = 6


def big_game(throws: int) -> Game:
    rng = random.Random(3)
    game = Game(Rules(tiles=54, dice=9)).add_players("Ann", "Bob")
    while not game.finished and throws > 0:
        game.throw(*(rng.randint(1, 6) for _ in range(game.dice_counts()[0])))
        throws -= 1
        if game.pending is not None and game.pending.total is not None:
            game.shut(*rng.choice(game.legal_moves()[:5]))
    return game


def main() -> int:
    game = big_game(THROWS)
    work = full_work(game)
    turn = seconds_per_turn(game)
    full = turn * estimate.SAMPLES * sum(work) / len(work)
    start = time.process_time()
    review = review_game(game, cached_solve, estimate=True)
    cpu = (time.process_time() - start) / max(1, len(review.decisions))
    print(f"54 tiles, 9 dice: {len(work)} decisions, {sum(work) / len(work):.0f} legal moves each on average")
    print(f"full review (every move valued by {estimate.SAMPLES} turns), predicted: {full:.0f} s CPU a decision")
    print(f"Monte Carlo estimate (rollout ranking), measured: {cpu:.1f} s CPU a decision (budget {BUDGET_S:.0f} s)")
    return 0 if cpu <= BUDGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
