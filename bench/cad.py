"""Benchmark: cold build of the default CAD kit (all parts, STL + 3MF + STEP), then a rebuild after
changing only the dice size (every other part comes from the cache), then an unchanged rebuild.
Each runs ``shutbox cad`` as a user would, with a fresh temporary cache; the build phase is read from
the command's own progress lines, the rest of the time is the check it runs at the end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(total seconds, build-phase seconds, parts built rather than taken from the cache)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "shutbox", "cad", *args], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        raise SystemExit(f"shutbox cad {' '.join(args)} failed ({proc.returncode})")
    steps = re.findall(r"\[(\d+)/(\d+)\]\s+([\d.]+)s", proc.stderr)
    build = float(steps[-1][2]) if steps else float("nan")
    return elapsed, build, proc.stderr.count("built in")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-") as tmp:
        root = Path(tmp)
        env = {**os.environ, "SHUTBOX_CACHE_DIR": str(root / "cache")}
        runs = [
            ("cold build, default kit", ["--out", str(root / "cold")]),
            ("rebuild after --dice-size 18", ["--dice-size", "18", "--out", str(root / "dice")]),
            ("rebuild, nothing changed", ["--out", str(root / "same")]),
        ]
        print("shutbox cad, default kit (9 tiles, mk4 bed: 2 box pieces), stl + 3mf + step:")
        for label, args in runs:
            total, build, built = timed(args, env)
            print(f"  {label:<30} {total:6.1f} s total, {build:5.1f} s building ({built} parts built), "
                  f"{total - build:5.1f} s start-up and check")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
