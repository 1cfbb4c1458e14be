"""Benchmark: the least any box of the kit's size can cost to print at PrusaSlicer's defaults.

Builds the plainest box that still has what the kit's box must have, with the default kit's dimensions
(from the kit model): outer walls of ``--wall``, the tray floor, and a deck at the lanes' height (a plate
as thin as the walls, carried by the tray's back wall and a spine, open to the bed below). There are no
lanes, numbers, tubes, bay, keys or gates. It cuts that box where the default kit is cut for the mk4,
slices each piece like ``bench/print_cost.py`` (0.2 mm layers, 15% infill, built-in speeds, PLA 1.24 g/cm3)
and prints grams and hours. Whatever the design, the kit's box cannot print faster or lighter than this.

    .venv/bin/python bench/print_floor.py [--bed mk4]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from pathlib import Path

import trimesh

from shutbox.cad.build.export import plan
from shutbox.cad.geometry.layout import FLOOR, HOLLOW_RIB
from shutbox.cad.slicer.slicing import DEFAULT_ARGS, hours_by_type, slice_part
from shutbox.kit.model import build_kit


def block(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> trimesh.Trimesh:
    b = trimesh.creation.box((x1 - x0, y1 - y0, z1 - z0))
    b.apply_translation(((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2))
    return b


def plain_box(bed: str) -> tuple[list[trimesh.Trimesh], str]:
    """The plainest box's pieces for the default kit on ``bed``, and a line describing it."""
    kit = build_kit({"printer.bed": bed})
    lay, split, _ = plan(kit)
    length, width, height, w = lay.length, lay.width, lay.height, lay.wall
    tray_back = lay.tray[3]
    deck = lay.lane_floor
    spine = lay.switch_y
    body = block(0, length, 0, width, 0, height)
    holes = [
        block(w, length - w, w, tray_back, FLOOR, height + 1),  # the tray over its floor
        block(w, length - w, tray_back + w, spine - HOLLOW_RIB / 2, -1, deck - w),  # front of the spine
        block(w, length - w, spine + HOLLOW_RIB / 2, width - w, -1, deck - w),  # behind it
        block(w, length - w, tray_back, width - w, deck, height + 1),  # one pocket where the lanes are
    ]
    box = trimesh.boolean.difference([body, *holes])
    xs = (0.0, *split.xs, length)
    ys = (0.0, *split.ys, width)
    pieces = [trimesh.boolean.intersection([box, block(x0, x1, y0, y1, -1, height + 1)])
              for (x0, x1), (y0, y1) in itertools.product(itertools.pairwise(xs), itertools.pairwise(ys))]
    what = (f"{length:g} x {width:g} x {height:g} mm, walls {w:g} mm, tray floor {FLOOR:g} mm, deck plate and spine "
            f"{w:g} and {HOLLOW_RIB:g} mm, {len(pieces)} piece(s) for bed {bed}")
    return pieces, what


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The least a box of the kit's size costs to print (PrusaSlicer).")
    parser.add_argument("--bed", default="mk4", help="bed preset (default: mk4)")
    args = parser.parse_args(argv)
    pieces, what = plain_box(args.bed)
    bed_mm = build_kit({"printer.bed": args.bed}).printer.bed_mm
    print(f"plainest box: {what}; PrusaSlicer {' '.join(DEFAULT_ARGS)}, PLA 1.24 g/cm3")
    grams = hours = 0.0
    with tempfile.TemporaryDirectory(prefix="shutbox-print-floor-") as tmp:
        for i, piece in enumerate(pieces, 1):
            stl = Path(tmp) / f"piece-{i}.stl"
            piece.export(stl)
            sliced = slice_part(stl, stl.with_suffix(".gcode"), DEFAULT_ARGS, bed_mm)
            split = hours_by_type(sliced.gcode)
            top = ", ".join(f"{kind} {h:.2f} h" for kind, h in sorted(split.items(), key=lambda kv: -kv[1])
                            if h >= 0.05)
            print(f"  piece {i}: {sliced.grams:6.1f} g {sliced.hours:6.2f} h  ({top})")
            grams += sliced.grams
            hours += sliced.hours
    print(f"  box:     {grams:6.1f} g {hours:6.2f} h")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
