"""Benchmark: how long ``shutbox --help`` takes (the budget is 0.3 s on the dev machine)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

BUDGET_S = 0.3


def main() -> int:
    exe = Path(sys.executable).with_name("shutbox")
    cmd = [str(exe), "--help"] if exe.exists() else [sys.executable, "-m", "shutbox", "--help"]
    times = []
    for _ in range(10):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"shutbox --help: median {median * 1000:.0f} ms, min {min(times) * 1000:.0f} ms "
          f"over {len(times)} runs (budget {BUDGET_S * 1000:.0f} ms)")
    return 0 if median < BUDGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
