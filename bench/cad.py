"""Benchmark: cold build of the default CAD kit (all parts, STL + 3MF + STEP), then a rebuild after
changing only the dice size (every other part comes from the cache). Uses a fresh temporary cache."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "shutbox", "cad", "--quiet", *args], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        raise SystemExit(f"shutbox cad {' '.join(args)} failed ({proc.returncode})")
    return elapsed


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="shutbox-bench-") as tmp:
        root = Path(tmp)
        env = {**os.environ, "SHUTBOX_CACHE_DIR": str(root / "cache")}
        cold = timed(["--out", str(root / "cold")], env)
        dice = timed(["--dice-size", "18", "--out", str(root / "dice")], env)
        warm = timed(["--out", str(root / "warm")], env)
    print(f"shutbox cad (default kit, stl+3mf+step, build + check): cold {cold:.1f} s, "
          f"after --dice-size 18 {dice:.1f} s, unchanged rebuild {warm:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
