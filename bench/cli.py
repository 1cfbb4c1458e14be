"""Benchmark: ``shutbox solve --tiles 12`` as a whole process against a plain standalone DP script.

Both are run as fresh processes (warm: after two untimed runs, with the byte-code cache allowed, i.e.
PYTHONDONTWRITEBYTECODE unset); the median of several runs each is printed with their ratio. The
standalone script is pure Python and solves the same question (12 tiles, one die when 7 and up are
shut, maximise the chance to shut the box, ties to the lower expected score); both answers are printed
and must agree. Exit status 1 if they disagree.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 9

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


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    return (time.perf_counter() - start) * 1000, out


def median_ms(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    for _ in range(2):
        timed(cmd, env)
    runs = [timed(cmd, env) for _ in range(RUNS)]
    return statistics.median(ms for ms, _ in runs), runs[-1][1]


def lines_of(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.startswith(("chance", "expected"))}


def main() -> int:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    shutbox = str(Path(sys.executable).with_name("shutbox"))
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "dp.py"
        script.write_text(STANDALONE, encoding="utf-8")
        plain_ms, plain_out = median_ms([sys.executable, str(script)], env)
    cli_ms, cli_out = median_ms([shutbox, "solve", "--tiles", "12"], env)
    print(f"standalone DP script:        {plain_ms:6.1f} ms  ({' · '.join(sorted(lines_of(plain_out)))})")
    print(f"shutbox solve --tiles 12:    {cli_ms:6.1f} ms  ({' · '.join(sorted(lines_of(cli_out)))})")
    print(f"ratio shutbox / standalone:  {cli_ms / plain_ms:6.2f}  (median of {RUNS} warm runs each)")
    if lines_of(plain_out) != lines_of(cli_out):
        print("the two answers differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
