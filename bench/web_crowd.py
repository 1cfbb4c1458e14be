"""Benchmark: the web scoreboard under a crowd — 1,000 idle connections plus 100 server-sent-event spectators while
a game is played through the API (issue 29).

A real ``shutbox play --port none --web`` process (its file limit as the system gives it, or ``--files N`` to
set it, e.g. 1024 as on many desktops); the idle connections are kept open (reopened whenever the scoreboard
closes one); the spectators connect first and time every state they receive. Printed: the connections, every move
accepted and recorded, the delay from a move's POST to each spectator's copy of its state (median, 99th
percentile, worst), what the terminal said, and tracebacks (must be 0). Exit status 1 if a move is lost, a
spectator missed a state, the worst delay is over 1 s, or there is a traceback.

    .venv/bin/python bench/web_crowd.py [--idle 1000] [--spectators 100] [--files N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.crowd_support import Crowd, play_game, quit_play, recorded_moves, start_play, update_delays  # noqa: E402


def _files_of(pid: int) -> int | str:
    try:
        return len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except OSError:
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--files", type=int, default=None, help="the scorekeeper's RLIMIT_NOFILE")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between two moves")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "g.sqlite3"
        proc, port, _ = start_play(db, files=args.files)
        started = time.monotonic()
        try:
            with Crowd(port, args.idle, args.spectators) as crowd:
                ready = time.monotonic() - started
                opened, connected = crowd.idle_made, crowd.spectators_connected
                server_files = _files_of(proc.pid)
                played = play_game(port, seed=args.seed, pause_s=args.pause)
                time.sleep(1.5)
                delays = update_delays(played, crowd)
                closed, refused = crowd.idle_closed_by_server, crowd.refused_503
        finally:
            err = quit_play(proc, db)
        moves = recorded_moves(db)
    finite = sorted(d for d in delays if d != float("inf"))
    missed = len(delays) - len(finite)
    tracebacks = err.count("Traceback")
    web_lines = [line for line in err.splitlines() if line.startswith("web:")]
    print(f"crowd: {opened} idle connections and {connected} of {args.spectators} spectators connected in "
          f"{ready:.1f} s (file limit {args.files or 'as given'})")
    print(f"the scorekeeper's open files with the crowd there: {server_files}")
    print(f"idle connections closed by the scoreboard: {closed}; answered 503: {refused}")
    print(f"moves accepted: {len(played.accepted)}, recorded: {len(moves)}; answers {played.statuses}")
    if finite:
        p99 = finite[min(len(finite) - 1, int(0.99 * len(finite)))]
        print(f"page updates: {len(delays)} (moves x spectators), missed {missed}; delay median "
              f"{statistics.median(finite) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, worst {finite[-1] * 1000:.0f} ms")
    print(f"terminal: {len(err.splitlines())} lines ({len(web_lines)} from the web guard), tracebacks: {tracebacks}")
    for line in web_lines:
        print(f"  {line}")
    ok = (len(moves) == len(played.accepted) and not missed and tracebacks == 0
          and (not finite or finite[-1] <= 1.0))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
