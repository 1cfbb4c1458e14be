"""Benchmark: grams and hours per part on the two sets of settings the build guide gives, sliced with PrusaSlicer.

- recommended: each part's own settings (``shutbox.cad.geometry.parts``: nozzle, layer height, perimeters, infill) on
the kit's
  plate configuration for its nozzle (``cad/shutbox/cad/slicer/printprofile.py``), as the project 3MFs carry them; with
  ``--projects`` every plate's project file is also sliced as it is (``prusa-slicer --export-gcode PLATE.3mf``):
  the kit's time is the plates' sum;
- speed: Prusa's own "0.20mm SPEED @MK3" print preset, "Prusament PLA" and the MK3S printer, resolved from
  PrusaSlicer's vendor bundle (``shutbox.cad.slicer.vendorprofile``), with each part's own layer height, perimeters
  and infill
  (what the projects keep as per-object settings when that preset is chosen): the preset's nozzle and speeds.

Targets: the recommended kit <= 14 h; the speed preset <= 20 h and <= 300 g. Each part is sliced once: the G-code
is kept in ``--cache DIR`` under the hash of the mesh and the settings, so a second run slices only what changed.

    .venv/bin/python bench/print_profiles.py [--kit BUILT_DIR] [--bed mk4] [--cache DIR] [--projects] [--where]

``--where`` splits each box piece's grams on the speed preset by ``;TYPE:`` and by 5 mm height band.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from shutbox.cad.build.export import build_cad, plan
from shutbox.cad.slicer.printprofile import SPEED_PROFILE, plate_config
from shutbox.cad.slicer.sliced import extrusions, filament_grams
from shutbox.cad.slicer.slicing import PLA_DENSITY, read_summary, slicer_path
from shutbox.cad.slicer.vendorprofile import flat_profile
from shutbox.kit.model import build_kit

TARGET_HOURS = 14.0
SPEED_HOURS, SPEED_GRAMS = 20.0, 300.0


def _ini(settings: dict[str, str]) -> str:
    return "".join(f"{k} = {v}\n" for k, v in sorted(settings.items()))


def sliced(mesh: Path, settings: dict[str, str] | None, cache: Path) -> Path:
    """The G-code of ``mesh`` at ``settings`` centred on the bed, or of a project file as it is (``settings``
    None), from ``cache`` when sliced before; under nice."""
    ini = _ini(settings) if settings is not None else "project as written"
    key = hashlib.sha256(mesh.read_bytes() + ini.encode()).hexdigest()[:24]
    gcode = cache / f"{mesh.stem}-{key}.gcode"
    if gcode.is_file():
        return gcode
    partial = gcode.with_suffix(".partial.gcode")
    cmd = ["nice", slicer_path(), "--export-gcode"]
    if settings is None:
        cmd.append("--dont-arrange")
    else:
        config = cache / f"{key}.ini"
        config.write_text(ini, encoding="utf-8")
        w, h = (float(v) for v in settings["bed_shape"].split(",")[2].split("x"))
        cmd += ["--load", str(config), "--center", f"{w / 2:g},{h / 2:g}"]
    proc = subprocess.run([*cmd, "-o", str(partial), str(mesh)], capture_output=True, text=True)
    if proc.returncode != 0 or not partial.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:]
        raise SystemExit(f"{mesh.name}: PrusaSlicer failed ({' '.join(tail)})")
    os.replace(partial, gcode)
    return gcode


def where(gcode: Path, band: float = 5.0) -> list[str]:
    """Grams by ``;TYPE:`` and by height band, largest first."""
    by_type: dict[str, float] = defaultdict(float)
    by_band: dict[float, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for m in extrusions(gcode):
        grams = filament_grams(m.filament, PLA_DENSITY)
        by_type[m.kind] += grams
        by_band[int((m.z - 1e-6) // band) * band][m.kind] += grams
    lines = ["      by type: " + ", ".join(f"{k} {v:.1f} g" for k, v in sorted(by_type.items(), key=lambda kv: -kv[1])
                                         if v >= 0.05)]
    for z in sorted(by_band):
        kinds = by_band[z]
        top = sorted(kinds.items(), key=lambda kv: -kv[1])[:3]
        lines.append(f"      z {z:4.0f}-{z + band:<4.0f} {sum(kinds.values()):6.1f} g: "
                     + ", ".join(f"{k} {v:.1f}" for k, v in top))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Grams and hours per part: the kit's recommended settings and "
                                     "Prusa's 0.20mm SPEED @MK3 preset (PrusaSlicer).")
    parser.add_argument("--kit", type=Path, help="a folder `shutbox cad` built (default: build the default kit)")
    parser.add_argument("--bed", default="mk4")
    parser.add_argument("--cache", type=Path, help="keep G-code here between runs (default: a temporary folder)")
    parser.add_argument("--projects", action="store_true", help="also slice every plate's project 3MF as it is")
    parser.add_argument("--where", action="store_true", help="where the box pieces' grams go on the speed preset")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="shutbox-print-profiles-") as tmp:
        cache = args.cache or Path(tmp) / "gcode"
        cache.mkdir(parents=True, exist_ok=True)
        folder = args.kit
        if folder is None:
            folder = Path(tmp) / "kit"
            folder.mkdir()
            build_cad(build_kit({"printer.bed": args.bed}), folder, ("stl", "3mf"), progress=False)
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        kit = build_kit({"printer.bed": manifest["settings"]["printer"]["bed"]})
        bed = kit.printer.bed_mm
        specs = {s.name: s for s in plan(kit)[2]}
        speed = {**flat_profile(*SPEED_PROFILE), "bed_shape": plate_config(0.4, bed)["bed_shape"]}
        print(f"{kit.rules.tiles} tiles, bed {kit.printer.bed}; recommended: printprofile + each part's own "
              f"settings; speed: {' / '.join(SPEED_PROFILE)} (vendor bundle) + each part's own layers and infill")
        print(f"  {'part':<20}{'copies':>6}  {'recommended':<26}{'g':>7}{'h':>7}   {'speed g':>8}{'h':>7}")
        totals = [0.0, 0.0, 0.0, 0.0]
        for part in manifest["parts"]:
            spec = specs[part["name"]]
            ps = spec.print_settings
            stl = folder / part["files"]["stl"]
            rec = read_summary(sliced(stl, {**plate_config(ps.nozzle_mm, bed), **ps.object_config()}, cache))
            fast_gcode = sliced(stl, {**speed, **ps.object_config()}, cache)
            fast = read_summary(fast_gcode)
            q = part["quantity"]
            for i, v in enumerate((rec.grams, rec.hours, fast.grams, fast.hours)):
                totals[i] += q * v
            label = f"{ps.nozzle_mm:g} nozzle, {ps.layer_height_mm:g} mm, {ps.perimeters}p, {ps.infill_percent}%"
            print(f"  {part['name']:<20}{q:>6}  {label:<26}{rec.grams:>7.1f}{rec.hours:>7.2f}   "
                  f"{fast.grams:>8.1f}{fast.hours:>7.2f}")
            if args.where and spec.kind == "box":
                print("\n".join(where(fast_gcode)))
        print(f"  {'kit (parts one by one)':<52}{totals[0]:>7.1f}{totals[1]:>7.2f}   "
              f"{totals[2]:>8.1f}{totals[3]:>7.2f}")
        plate_hours = None
        if args.projects:
            plate_grams = plate_hours = 0.0
            for plate in manifest.get("plates", []):
                path = folder / plate["file"]
                gcode = sliced(path, None, cache)
                s = read_summary(gcode)
                plate_grams += s.grams
                plate_hours += s.hours
                print(f"  {plate['file']:<20} {plate['nozzle_mm']:g} nozzle: {s.grams:7.1f} g {s.hours:6.2f} h  "
                      f"({', '.join(plate['parts'])})")
            print(f"  {'kit (plates as written)':<52}{plate_grams:>7.1f}{plate_hours:>7.2f}")
        hours = plate_hours if plate_hours is not None else totals[1]
        met = {True: "met", False: "NOT met"}
        print(f"targets: recommended {hours:.2f} h <= {TARGET_HOURS:g} h: {met[hours <= TARGET_HOURS]}; "
              f"speed preset {totals[3]:.2f} h <= {SPEED_HOURS:g} h: {met[totals[3] <= SPEED_HOURS]}, "
              f"{totals[2]:.1f} g <= {SPEED_GRAMS:g} g: {met[totals[2] <= SPEED_GRAMS]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
