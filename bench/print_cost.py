"""Benchmark: what the kit costs to print. Builds the default kit's parts (from the CAD cache when it
can), slices every part with PrusaSlicer and reports grams and hours per part and for the whole kit.

Two beds: mk4 (250 x 210 mm, the box in pieces) and a 256 mm bed. Two sets of settings:
- defaults: PrusaSlicer's built-in defaults with 0.2 mm layers and 15% infill (``DEFAULT_ARGS``),
  with support on (auto, 40-degree threshold): the support column weighs the ``;TYPE:Support material``
  extrusions and must be 0, the bridge column is the longest bridge line over air in mm (``shutbox.cad.slicer.sliced``);
- guide: each part sliced with the settings the build guide gives for it (each part's ``print_settings``).

    .venv/bin/python bench/print_cost.py [--bed mk4 --bed bambu] [--sensors reed] [--tiles 9] [--by-type]

PLA at 1.24 g/cm3. Exit status 1 when a part needs support.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from shutbox.cad.build.export import build_cad, plan
from shutbox.cad.slicer.sliced import slice_with_support
from shutbox.cad.slicer.slicing import DEFAULT_ARGS, SUPPORT_CHECK_ARGS, hours_by_type, read_summary, slice_part
from shutbox.kit.model import build_kit


def cost(bed: str, tiles: int | None, sensors: str | None, work: Path, by_type: bool = False) -> bool:
    """Print one bed's table; True when no part needs support."""
    settings: dict[str, object] = {"printer.bed": bed}
    if tiles is not None:
        settings["rules.tiles"] = tiles
    if sensors is not None:
        settings["sensors.kind"] = sensors
    kit = build_kit(settings)
    folder = work / bed
    folder.mkdir()
    manifest = build_cad(kit, folder, ("stl",), progress=False)
    bed_mm = kit.printer.bed_mm
    specs = {spec.name: spec for spec in plan(kit)[2]}
    print(f"\n{kit.rules.tiles} tiles, bed {bed} ({bed_mm[0]:g} x {bed_mm[1]:g} mm), sensors {kit.sensors.kind}:")
    print(f"  {'part':<22}{'copies':>6}  {'defaults g':>10} {'h':>6} {'support g':>9} {'bridge':>7}  {'guide g':>8} "
          f"{'h':>6}  guide")
    totals = [0.0, 0.0, 0.0, 0.0]
    support_free = True
    for part in manifest["parts"]:
        stl = folder / part["files"]["stl"]
        q = part["quantity"]
        measured = slice_with_support(stl, work / f"{bed}-{part['name']}.gcode", bed_mm)
        base = read_summary(work / f"{bed}-{part['name']}.gcode")
        ps = specs[part["name"]].print_settings
        guide = slice_part(stl, work / f"{bed}-{part['name']}-guide.gcode", ps.slicer_args(), bed_mm)
        support_free &= measured.support_grams == 0
        for i, v in enumerate((base.grams, base.hours, guide.grams, guide.hours)):
            totals[i] += q * v
        print(f"  {part['name']:<22}{q:>6}  {base.grams:>10.1f} {base.hours:>6.2f} {measured.support_grams:>9.2f} "
              f"{measured.longest:>7.1f}  "
              f"{guide.grams:>8.1f} {guide.hours:>6.2f}  {ps.layer_height_mm:g} mm, {ps.infill}")
    print(f"  {'kit':<22}{'':>6}  {totals[0]:>10.1f} {totals[1]:>6.2f} {'':>8}  {totals[2]:>8.1f} {totals[3]:>6.2f}")
    if by_type:
        print("  where the time goes (defaults; feed rates only, no acceleration), box pieces:")
        for part in manifest["parts"]:
            if part["kind"] == "box":
                split = hours_by_type(work / f"{bed}-{part['name']}.gcode")
                top = sorted(split.items(), key=lambda kv: -kv[1])
                print(f"    {part['name']}: " + ", ".join(f"{kind} {h:.2f} h" for kind, h in top if h >= 0.05))
    return support_free


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="What the kit costs to print: grams and hours per part (PrusaSlicer).")
    parser.add_argument("--bed", action="append", help="bed preset or WxHxZ (repeatable; default: mk4 and bambu)")
    parser.add_argument("--tiles", type=int, default=None)
    parser.add_argument("--sensors", default=None)
    parser.add_argument("--by-type", action="store_true", help="also split the box pieces' time by kind of move")
    args = parser.parse_args(argv)
    beds = args.bed or ["mk4", "bambu"]
    print(f"PrusaSlicer defaults: {' '.join(DEFAULT_ARGS)} (+ {' '.join(SUPPORT_CHECK_ARGS)} for the support "
          "column); guide: each part's settings from the build guide. PLA 1.24 g/cm3; times are PrusaSlicer's "
          "estimates.")
    with tempfile.TemporaryDirectory(prefix="shutbox-print-cost-") as tmp:
        ok = all([cost(bed, args.tiles, args.sensors, Path(tmp), args.by_type) for bed in beds])
    if not ok:
        print("a part needs support material (see the support column)", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
