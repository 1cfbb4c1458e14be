"""Benchmark: ``shutbox solve --tiles 12`` as a whole process against a plain standalone DP script.

Three whole processes, run in turn (so a change in the machine's load hits all three alike), RUNS
times each after two untimed runs, with the byte-code cache allowed (PYTHONDONTWRITEBYTECODE unset):

- ``standalone``: a pure-Python DP script solving the same question (12 tiles, one die when 7 and up
  are shut, maximise the chance to shut the box, ties to the lower expected score);
- ``shutbox cold``: the first solve of these settings, the solver cache empty (a new temporary
  SHUTBOX_CACHE_DIR each run): numpy is imported, every state solved and the values stored;
- ``shutbox warm``: the same command once the values are stored (the usual case: any setting solved
  once before on this machine); the values are read back without importing numpy.

Printed: the median wall time and the median CPU time (user + system, of the child) of each, and the
ratios against the standalone script; the claim "no slower than the standalone script" is about the
warm run (ratio <= 1). All three answers are printed and must agree. Exit status 1 if they disagree.
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

RUNS = 21

STANDALONE = r'''
from itertools import combinations
N = 12
P2 = {t: (6 - abs(t - 7)) / 36 for t in range(2, 13)}
P1 = {t: 1 / 6 for t in range(1, 7)}
MOVES = {t: [sum(1 << (x - 1) for x in c) for k in range(1, N + 1) for c in combinations(range(1, N + 1), k)
             if sum(c) == t] for t in range(1, 13)}
HIGH = sum(1 << (x - 1) for x in range(7, N + 1))
value = {0: (1.0, 0.0)}
for m in sorted(range(1, 1 << N), key=lambda m: bin(m).count("1")):
    score = sum(i + 1 for i in range(N) if m >> i & 1)
    def throw(probs):
        p = e = 0.0
        for t, w in probs.items():
            best = None
            for mv in MOVES[t]:
                if m & mv == mv:
                    v = value[m ^ mv]
                    if best is None or (v[0], -v[1]) > (best[0], -best[1]):
                        best = v
            bp, be = best if best else (0.0, score)
            p += w * bp
            e += w * be
        return p, e
    two = throw(P2)
    if m & HIGH == 0:
        one = throw(P1)
        two = max(one, two, key=lambda v: (v[0], -v[1]))
    value[m] = two
p, e = value[(1 << N) - 1]
print(f"chance to shut box:   {100 * p:.4f}%")
print(f"expected final score: {e:.4f}")
'''


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall ms, CPU ms (user + system of the child) and stdout of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return wall, cpu, out


def lines_of(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.startswith(("chance", "expected"))}


def main() -> int:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    shutbox = str(Path(sys.executable).with_name("shutbox"))
    solve = [shutbox, "solve", "--tiles", "12"]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "dp.py"
        script.write_text(STANDALONE, encoding="utf-8")
        warm_env = {**base, "SHUTBOX_CACHE_DIR": str(Path(tmp) / "warm")}
        fresh = iter(range(10**6))

        def cold_env() -> dict[str, str]:
            return {**base, "SHUTBOX_CACHE_DIR": str(Path(tmp) / f"cold{next(fresh)}")}

        runs: dict[str, list[tuple[float, float, str]]] = {"standalone": [], "cold": [], "warm": []}
        for i in range(RUNS + 2):
            for name, cmd, env in (("standalone", [sys.executable, str(script)], base),
                                   ("cold", solve, cold_env()), ("warm", solve, warm_env)):
                result = timed(cmd, env)
                if i >= 2:
                    runs[name].append(result)
    wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
    cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
    answers = {k: lines_of(v[-1][2]) for k, v in runs.items()}
    labels = {"standalone": "standalone DP script", "cold": "shutbox solve, cold (first)",
              "warm": "shutbox solve, warm (stored)"}
    print(f"median of {RUNS} whole processes each, interleaved; load average {os.getloadavg()[0]:.1f}")
    print(f"{'':30} {'wall ms':>8} {'cpu ms':>8} {'wall ratio':>11} {'cpu ratio':>10}")
    for k, label in labels.items():
        print(f"{label:30} {wall[k]:8.1f} {cpu[k]:8.1f} {wall[k] / wall['standalone']:11.2f} "
              f"{cpu[k] / cpu['standalone']:10.2f}   ({' · '.join(sorted(answers[k]))})")
    print(f"claim (warm: no slower than the standalone script): wall ratio {wall['warm'] / wall['standalone']:.2f}, "
          f"cpu ratio {cpu['warm'] / cpu['standalone']:.2f}")
    if not answers["standalone"] or len({frozenset(a) for a in answers.values()}) != 1:
        print("the answers differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
