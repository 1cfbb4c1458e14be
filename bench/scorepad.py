"""Benchmark: how long score pads and strategy cards take to make (in-process, and the commands end to end)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shutbox.kit.model import DEFAULT_LIMITS, MATCHES, SCORINGS, Rules
from shutbox.print.blank import write_blank_pads
from shutbox.print.card import write_card
from shutbox.print.sheet import write_game_sheet

REPO = Path(__file__).resolve().parent.parent
GAMES = REPO / "tests" / "golden" / "print" / "games"


def timed(action, runs: int = 5) -> tuple[float, float]:
    """Median and minimum seconds over ``runs`` runs (after one warm-up run)."""
    action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def report(label: str, median: float, low: float, size: int | None = None) -> None:
    extra = f", {size / 1024:.0f} KiB" if size is not None else ""
    print(f"{label:<44} median {median * 1000:6.1f} ms, min {low * 1000:6.1f} ms{extra}")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pad.pdf"
        for match in MATCHES:
            for scoring in SCORINGS:
                limit = 500_000 if scoring == "digits" and match in DEFAULT_LIMITS else None
                rules = Rules(match=match, scoring=scoring, limit=limit)
                median, low = timed(lambda rules=rules: write_blank_pads(rules, out))
                report(f"blank {match}/{scoring}, a4, 1 per page", median, low, out.stat().st_size)
        median, low = timed(lambda: write_blank_pads(Rules(tiles=12), out, players=3, rounds=2, per_page=6,
                                                     pages=20))
        report("blank round 12 tiles, 6 per page × 20 pages", median, low, out.stat().st_size)
        for tiles in (10, 12):
            rules = Rules(match="long-game", tiles=tiles)
            median, low = timed(lambda rules=rules: write_blank_pads(rules, out))
            report(f"blank long-game {tiles} tiles (rows measured, cached)", median, low, out.stat().st_size)
        for tiles in (9, 12):
            median, low = timed(lambda tiles=tiles: write_card(Rules(tiles=tiles), "shut", "a4", out))
            report(f"strategy card {tiles} tiles (solver cached)", median, low, out.stat().st_size)
        for game in sorted(GAMES.glob("*.json")):
            median, low = timed(lambda game=game: write_game_sheet(game, out, "a4"))
            report(f"sheet --from-game {game.name}", median, low, out.stat().st_size)
        exe = Path(sys.executable).with_name("shutbox")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "shutbox"]
        median, low = timed(lambda: subprocess.run([*cmd, "scorepad", "--out", str(out)], check=True,
                                                   capture_output=True), runs=3)
        report("shutbox scorepad (whole command)", median, low, out.stat().st_size)
        median, low = timed(lambda: subprocess.run([*cmd, "card", "--out", str(out)], check=True,
                                                   capture_output=True), runs=3)
        report("shutbox card (whole command)", median, low, out.stat().st_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
