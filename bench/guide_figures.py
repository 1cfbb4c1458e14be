"""Benchmark: what the build guide's plan drawings (cad/shutbox/cad/guide/figures.py) add to a kit build, against a bare
``import cadquery`` in the same run (the yardstick of bench/cad.py): CPU time of drawing every figure of the
default kit and of a 12-tile 74HC165 kit, best of five, in this process after one warm-up.

    .venv/bin/python bench/guide_figures.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    from shutbox.cad.geometry.layout import layout
    from shutbox.cad.guide.figures import draw_figures
    from shutbox.kit.model import build_kit

    yard = min(_child_cpu() for _ in range(3))
    kits = {"default": {}, "12 tiles, 74HC165": {"rules.tiles": 12, "firmware.tile_input": "74hc165"}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, settings in kits.items():
            lay = layout(build_kit(settings))
            names = draw_figures(lay, Path(tmp))  # fonts and modules loaded once, as in a build
            times = []
            for _ in range(5):
                t0 = time.process_time()
                names = draw_figures(lay, Path(tmp))
                times.append(time.process_time() - t0)
            best = min(times)
            print(f"{name}: {len(names)} figures in {best * 1000:.0f} ms CPU = {best / yard:.3f}x import cadquery "
                  f"({yard:.2f} s CPU)")
    return 0


def _child_cpu() -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import cadquery"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    raise SystemExit(main())
