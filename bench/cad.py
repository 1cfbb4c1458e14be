"""Benchmark: the CAD build's cost against a bare ``import cadquery`` measured in the same run.

Runs, each as a user would and with a fresh temporary cache:
1. ``python -c "import cadquery"`` (the yardstick, best of three);
2. a cold default ``shutbox kit`` (every part built, exported, previewed and checked);
3. ``shutbox cad`` after changing only the dice size (every other part from the cache);
4. an unchanged ``shutbox kit`` rebuild.
Ratios are given for wall-clock time and for CPU time (user + system of the child process), the latter
being steadier on a shared machine. Targets (issue 24): cold kit <= 8x, one setting changed <= 4x,
unchanged rebuild <= 1.5x (figures: docs/architecture.md).

    .venv/bin/python bench/cad.py
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode})")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-") as tmp:
        root = Path(tmp)
        env = {**os.environ, "SHUTBOX_CACHE_DIR": str(root / "cache")}
        base = min((timed(["-c", "import cadquery"], env) for _ in range(3)), key=lambda t: t[1])
        runs = [
            ("cold shutbox kit, default", ["-m", "shutbox", "kit", "--out", str(root / "cold")], 8.0),
            ("shutbox cad --dice-size 18", ["-m", "shutbox", "cad", "--dice-size", "18", "--out", str(root / "dice"),
                                            "--quiet"], 4.0),
            ("shutbox kit, unchanged", ["-m", "shutbox", "kit", "--out", str(root / "same")], 1.5),
        ]
        print(f"import cadquery: {base[0]:.2f} s wall, {base[1]:.2f} s CPU; load average {os.getloadavg()[0]:.1f}")
        for label, args, target in runs:
            wall, cpu = timed(args, env)
            goal = f"  (target <= {target:g}x)" if target else ""
            print(f"  {label:<28} {wall:6.1f} s wall = {wall / base[0]:4.1f}x, {cpu:6.1f} s CPU = "
                  f"{cpu / base[1]:4.1f}x{goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
