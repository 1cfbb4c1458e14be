"""Benchmark: how fair the printed die is. Reports the solid model's centre of mass and, for each face
on the bed, the centre of mass of the die as PrusaSlicer slices it (every extrusion move weighted by its
filament at its midpoint, half a layer under the nozzle) with the guide's die settings and with sparse
15% infill, as the distance from the cube's centre.

    .venv/bin/python bench/dice_balance.py [--size 19]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import cadquery as cq
import numpy as np
import trimesh

from shutbox.cad.build.export import plan
from shutbox.cad.geometry.dice import BED_FACE, FACES, build_die
from shutbox.cad.geometry.mesh import tessellate
from shutbox.cad.geometry.parts import DieSpec
from shutbox.cad.slicer.slicing import DEFAULT_ARGS, extrusion_centre, slice_part
from shutbox.kit.model import build_kit

BED = (250.0, 210.0, 220.0)


def sliced_offset(mesh: trimesh.Trimesh, down: int, args: list[str], work: Path) -> np.ndarray:
    """Sliced centre of mass minus the cube's centre, with face ``down`` on the bed."""
    m = mesh.copy()
    m.apply_transform(trimesh.geometry.align_vectors(np.array(FACES[down], dtype=float), [0, 0, -1]))
    m.apply_translation(-m.bounds[0])
    stl = work / f"die-{down}.stl"
    m.export(str(stl))
    sliced = slice_part(stl, work / f"die-{down}.gcode", args, BED)
    centre, _ = extrusion_centre(sliced.gcode)
    size = float(m.bounds[1][2])
    return centre - np.array([BED[0] / 2, BED[1] / 2, size / 2])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="How far a printed die's centre of mass is from its centre.")
    parser.add_argument("--size", type=float, default=None, help="die size, mm (default: the kit's)")
    args = parser.parse_args(argv)
    kit = build_kit({} if args.size is None else {"dice.size_mm": args.size})
    die = next(s for s in plan(kit)[2] if isinstance(s, DieSpec))
    size = kit.dice.size_mm
    solid = build_die(size)
    c = cq.Shape.centerOfMass(solid)
    print(f"die {size:g} mm, solid model: centre of mass {np.linalg.norm([c.x, c.y, c.z]):.4f} mm from the "
          f"cube's centre (x {c.x:+.4f}, y {c.y:+.4f}, z {c.z:+.4f})")
    mesh = tessellate(solid, kit.cad.chord_tolerance_mm, kit.cad.angular_tolerance_deg)
    guide = die.print_settings
    runs = [(f"guide ({guide.layer_height_mm:g} mm, {guide.infill})", guide.slicer_args()),
            ("defaults (0.2 mm, 15%)", list(DEFAULT_ARGS))]
    print(f"sliced (PrusaSlicer), distance of the extruded plastic's centre of mass from the cube's centre; "
          f"the guide prints face {BED_FACE} on the bed:")
    with tempfile.TemporaryDirectory(prefix="shutbox-dice-") as tmp:
        for label, slicer_args in runs:
            for down in FACES:
                off = sliced_offset(mesh, down, slicer_args, Path(tmp))
                print(f"  {label:<28} face {down} down: {np.linalg.norm(off):.4f} mm "
                      f"(x {off[0]:+.4f}, y {off[1]:+.4f}, z {off[2]:+.4f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
