"""A die: rounded cube with conical pips (45-degree walls, so even the face on the bed needs no support).

Western arrangement: opposite faces sum to 7 and 1, 2, 3 run counter-clockwise around their shared
corner. Die frame: centred on the origin, 1 on top (+z), 2 in front (-y), 3 right (+x).
"""

from __future__ import annotations

import cadquery as cq

from shutbox.cad.layout import DIE_FILLET_RATIO, PIP_RATIO
from shutbox.cad.shapes import cut_all

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


def build_die(size: float) -> cq.Shape:
    """One die of edge ``size`` centred on the origin."""
    body = cq.Workplane().box(size, size, size).edges().fillet(size * DIE_FILLET_RATIO).val()
    r = size * PIP_RATIO
    q = pip_spacing(size)
    tools = []
    for value, normal in FACES.items():
        n = cq.Vector(*normal)
        u, v = face_axes(normal)
        for a, b in PIPS[value]:
            centre = n * (size / 2) + u * (a * q) + v * (b * q)
            tools.append(cq.Solid.makeCone(r, 0.0, r, centre + n * 0.01, -n))
    return cut_all(body, tools)


def print_die(die: cq.Shape, size: float) -> cq.Shape:
    """The die as printed: 6 down, resting on z = 0."""
    return die.translate(cq.Vector(size / 2, size / 2, size / 2))
