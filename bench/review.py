"""Benchmark: `shutbox review` of a 30-turn game as a whole process (budget: 1 s once the settings were solved).

Plays a seeded drop-out game of at least 30 turns (four players, limit 150) for each of a few settings,
writes it as a game file, and times `python -m shutbox review FILE --json` in fresh processes with an
empty solver cache (the first run solves and stores the tables) and then with the tables on disk.
Exit status 1 when a warm review of the 9-tile game takes longer than the budget.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shutbox.game.gamefile import save_game  # noqa: E402
from shutbox.kit.model import Rules  # noqa: E402
from tests.review_support import long_enough  # noqa: E402

BUDGET_S = 1.0
RUNS = 5
SETTINGS = [
    ("9 tiles (default)", Rules(match="drop-out", limit=150)),
    ("12 tiles", Rules(tiles=12, match="drop-out", limit=300)),
    ("16 tiles, 3 dice", Rules(tiles=16, dice=3, match="drop-out", limit=600)),
]


#: CPU seconds (user + system) of each timed process: a figure the other load on the machine barely changes.
CPU: list[float] = []


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_review(path: Path, cache: Path) -> float:
    start = time.perf_counter()
    cpu = _children_cpu()
    proc = subprocess.run([sys.executable, "-m", "shutbox", "review", str(path), "--json"], capture_output=True,
                          text=True, env={**os.environ, "SHUTBOX_CACHE_DIR": str(cache)})
    elapsed = time.perf_counter() - start
    CPU.append(_children_cpu() - cpu)
    if proc.returncode != 0:
        raise SystemExit(f"review failed: {proc.stderr.strip()}")
    return elapsed


def main() -> int:
    worst_default = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for label, rules in SETTINGS:
            game = long_enough(rules, ["Ann", "Bob", "Cy", "Di"], 30)
            path = save_game(game, Path(tmp) / f"{label.split()[0]}.json")
            cache = Path(tmp) / f"cache-{label.split()[0]}"
            CPU.clear()
            cold = timed_review(path, cache)
            warm = [timed_review(path, cache) for _ in range(RUNS)]
            throws = sum(len(t.throws) for t in game.turns)
            print(f"{label:<18} {len(game.turns)} turns, {throws} throws: first run (solves, stores the tables) "
                  f"{cold:.2f} s (CPU {CPU[0]:.2f} s); then median {statistics.median(warm):.2f} s, slowest "
                  f"{max(warm):.2f} s (CPU median {statistics.median(CPU[1:]):.2f} s)")
            if rules.tiles == 9:
                worst_default = max(warm)
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"budget: a 30-turn game on the default settings reviewed in under {BUDGET_S:.1f} s once solved")
    return 0 if worst_default <= BUDGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
