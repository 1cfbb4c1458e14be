"""A die: rounded cube with conical pips (45-degree walls, so even the face on the bed needs no support).

Western arrangement: opposite faces sum to 7 and 1, 2, 3 run counter-clockwise around their shared
corner. Die frame: centred on the origin, 1 on top (+z), 2 in front (-y), 3 right (+x).

Balance: each face's pips together remove as much plastic as the opposite face's (the face with
fewer pips has wider ones, all 45-degree cones), so the solid's centre of mass is the cube's centre.
With equal pips, the 6 face would be 5 pips lighter than the 1 face (0.04 mm off centre on 19 mm).
"""

from __future__ import annotations

from pathlib import Path

import cadquery as cq

from shutbox.cad.geometry.layout import BED_FACE, DIE_FILLET_RATIO, PIP_RATIO
from shutbox.cad.geometry.shapes import cut_all

#: Face value -> outward normal. 1, 2, 3 meet at (+x, -y, +z) and run counter-clockwise seen from outside.
FACES: dict[int, tuple[int, int, int]] = {1: (0, 0, 1), 2: (0, -1, 0), 3: (1, 0, 0), 4: (-1, 0, 0), 5: (0, 1, 0),
                                          6: (0, 0, -1)}

#: Pip positions on a face in units of the pip spacing, in the face's own (u, v) axes.
PIPS: dict[int, list[tuple[int, int]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def face_axes(normal: tuple[int, int, int]) -> tuple[cq.Vector, cq.Vector]:
    """Two unit vectors spanning the face with this normal."""
    n = cq.Vector(*normal)
    u = cq.Vector(0, 0, 1) if abs(n.z) < 0.5 else cq.Vector(1, 0, 0)
    v = n.cross(u)
    return u, v


def pip_spacing(size: float) -> float:
    return size * 0.25


def pip_radius(size: float, value: int) -> float:
    """Rim radius (= depth, 45-degree cone) of the pips on face ``value``.

    The face with more pips of an opposite pair has the standard pip; the other face's pips are
    scaled so both faces remove the same volume (a cone's volume grows with the cube of its radius).
    """
    most = max(len(PIPS[value]), len(PIPS[7 - value]))
    return size * PIP_RATIO * (most / len(PIPS[value])) ** (1 / 3)


def _envelope(size: float) -> cq.Shape:
    """The die without its pips: a cube of edge ``size`` with rounded edges, centred on the origin."""
    cube = cq.Solid.makeBox(size, size, size, cq.Vector(-size / 2, -size / 2, -size / 2))
    return cube.fillet(size * DIE_FILLET_RATIO, cube.Edges())


def _pip_tools(size: float) -> list[cq.Shape]:
    """One cone per pip (rim on the face, apex inside), a hair proud of the face so the cut is clean."""
    q = pip_spacing(size)
    tools = []
    for value, normal in FACES.items():
        n = cq.Vector(*normal)
        u, v = face_axes(normal)
        r = pip_radius(size, value)
        for a, b in PIPS[value]:
            centre = n * (size / 2) + u * (a * q) + v * (b * q)
            tools.append(cq.Solid.makeCone(r, 0.0, r, centre + n * 0.01, -n))
    return tools


def build_die(size: float) -> cq.Shape:
    """One die of edge ``size`` centred on the origin."""
    return cut_all(_envelope(size), _pip_tools(size))


def build_pips(size: float) -> cq.Shape:
    """The pips as one body that fills ``build_die``'s holes flush with its faces: the second colour of a
    two-colour print (a pip in a colour that contrasts with the body reads from any angle, lit or not)."""
    return _envelope(size).intersect(cq.Compound.makeCompound(_pip_tools(size)))




def print_die(die: cq.Shape, size: float) -> cq.Shape:
    """The die as printed: ``BED_FACE`` down (turned over about x), resting on z = 0, corner at the origin."""
    down = cq.Vector(*FACES[BED_FACE])
    turned = die if down.z < 0 else die.rotate(cq.Vector(0, 0, 0), cq.Vector(1, 0, 0), 180)
    return turned.translate(cq.Vector(size / 2, size / 2, size / 2))


def write_two_colour_3mf(size: float, path: Path, chord_mm: float = 0.02, angle_deg: float = 10.0) -> None:
    """A 3MF of the die as printed with two objects, ``die`` (the body) and ``pips`` (the second colour), placed
    together: a slicer loads them as one part of two objects, each given its own filament or extruder."""
    import trimesh

    from shutbox.cad.geometry.mesh import tessellate

    scene = trimesh.Scene()
    for name, shape in (("die", build_die(size)), ("pips", build_pips(size))):
        scene.add_geometry(tessellate(print_die(shape, size), chord_mm, angle_deg), node_name=name, geom_name=name)
    scene.export(str(path), file_type="3mf")
