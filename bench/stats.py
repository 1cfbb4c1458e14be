"""Benchmark: `shutbox stats` over 10,000 saved games as a whole process (budget: 2 s with the reviews cached).

Plays 10,000 seeded games (rounds of 2–4 players, drop-out to 60, long games; 12 players in all) through
the rules engine, stores them in a fresh game database (the store's schema, one bulk transaction), and
times `python -m shutbox stats --db FILE --json` in fresh processes: first with an empty review cache
(every game is reviewed and its summary cached), then with the cache filled. Exit status 1 when a
cached run takes longer than the budget.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shutbox.companion.store.database import GameStore  # noqa: E402
from shutbox.game.events import PlayersEvent  # noqa: E402
from shutbox.game.formats import match_format  # noqa: E402
from shutbox.game.gamefile import settings_of  # noqa: E402
from shutbox.kit.model import Rules  # noqa: E402
from tests.review_support import play_game  # noqa: E402

GAMES = int(os.environ.get("BENCH_GAMES", "10000"))
BUDGET_S = 2.0
RUNS = 3
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "ann"]
FORMATS = [Rules(), Rules(), Rules(match="drop-out", limit=60), Rules(match="long-game")]


def fill(db: Path) -> int:
    """Store GAMES seeded games; return how many events were written.

    The first game goes through the store (which makes the schema); the rest are added in one transaction.
    """
    rng = random.Random(14)
    games, events = [], []
    for gid in range(1, GAMES + 1):
        rules = rng.choice(FORMATS)
        count = match_format(rules).fixed_players or rng.randint(2, 4)
        names = rng.sample(PLAYERS, count)
        if "Ann" in names and "ann" in names:  # names are unique within a game, whatever their case
            names[names.index("ann")] = next(p for p in PLAYERS if p not in names and p != "ann")
        game = play_game(rules, names, seed=gid, skill=rng.random(), max_turns=60)
        record = game.to_events()
        if gid == 1:
            with GameStore(db) as store:
                first = record[0]
                assert isinstance(first, PlayersEvent) and store.new_game(settings_of(rules), first) == 1
        else:
            games.append((gid, 1.7e9 + gid, json.dumps(settings_of(rules), sort_keys=True), json.dumps(names),
                          1.7e9 + gid if game.finished else None))
        events += [(gid, seq, json.dumps(e, sort_keys=True)) for seq, e in enumerate(record) if (gid, seq) != (1, 0)]
    with sqlite3.connect(db) as conn:
        conn.executemany("INSERT INTO games (id, created, settings, players, finished) VALUES (?, ?, ?, ?, ?)", games)
        conn.executemany("INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)", events)
    return len(events) + 1


#: CPU seconds (user + system) of each timed process: a figure the other load on the machine barely changes.
CPU: list[float] = []


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_stats(db: Path, cache: Path) -> float:
    start = time.perf_counter()
    cpu = _children_cpu()
    proc = subprocess.run([sys.executable, "-m", "shutbox", "stats", "--db", str(db), "--json"], capture_output=True,
                          text=True, env={**os.environ, "SHUTBOX_CACHE_DIR": str(cache)})
    elapsed = time.perf_counter() - start
    CPU.append(_children_cpu() - cpu)
    if proc.returncode != 0:
        raise SystemExit(f"stats failed: {proc.stderr.strip()}")
    data = json.loads(proc.stdout)
    assert data["games"] + data["unfinished"] + len(data["unreadable"]) == GAMES, data["games"]
    return elapsed


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        db, cache = Path(tmp) / "games.sqlite3", Path(tmp) / "cache"
        start = time.perf_counter()
        n_events = fill(db)
        print(f"{GAMES} games, {n_events} events stored in {time.perf_counter() - start:.1f} s "
              f"({sum(p.stat().st_size for p in db.parent.glob(db.name + '*')) / 1e6:.1f} MB)")
        cold = timed_stats(db, cache)
        warm = [timed_stats(db, cache) for _ in range(RUNS)]
    print(f"stats, every game reviewed and cached: {cold:.1f} s ({cold / GAMES * 1000:.2f} ms a game; "
          f"CPU {CPU[0]:.1f} s)")
    print(f"stats, reviews cached: median {statistics.median(warm):.2f} s, slowest {max(warm):.2f} s "
          f"(CPU median {statistics.median(CPU[1:]):.2f} s; budget {BUDGET_S:.1f} s)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0 if max(warm) <= BUDGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
