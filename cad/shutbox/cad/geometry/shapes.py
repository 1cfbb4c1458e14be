"""Small solids every part is made of: the shipped font, engraved text, 45-degree roofs and prisms.

Every overhang the parts have is at most 45 degrees: pockets and channels open at the bottom of
a part get a gabled or conical roof instead of a flat ceiling, so nothing needs support material.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

import cadquery as cq

from shutbox.base.typefaces import BOLD, font_file


@cache
def font_path() -> Path:
    """The bold font the numbers are cut in (shipped with the kit); missing is an error, not a fallback."""
    return font_file(BOLD)


def text_solid(label: str, size: float, depth: float, x: float, y: float, z_top: float) -> cq.Shape:
    """The number ``label`` as a solid ``depth`` deep below ``z_top``, centred on (x, y), read from -y."""
    solid = shape_of(
        cq.Workplane("XY").text(label, size, depth, fontPath=str(font_path()), halign="center", valign="center")
    )
    bb = solid.BoundingBox()
    # CadQuery centres on the font metrics; centre on the glyphs' own box so layout and checks agree.
    return solid.translate(cq.Vector(x - (bb.xmin + bb.xmax) / 2, y - (bb.ymin + bb.ymax) / 2, z_top - bb.zmax))


def shape_of(work: cq.Workplane) -> cq.Shape:
    """The shape a workplane chain made (its first value)."""
    value = work.val()
    if not isinstance(value, cq.Shape):
        raise TypeError(f"expected a shape, got {type(value).__name__}")
    return value


def prism_xy(points: list[tuple[float, float]], z0: float, z1: float) -> cq.Shape:
    """A vertical prism over a closed polygon in plan."""
    return shape_of(cq.Workplane("XY").workplane(offset=z0).polyline(points).close().extrude(z1 - z0))


def gabled_channel_x(x0: float, x1: float, yc: float, width: float, height: float) -> cq.Shape:
    """A channel along x open at z=0: ``height`` straight, then a 45-degree roof."""
    h = width / 2
    profile = [(yc - h, -1.0), (yc + h, -1.0), (yc + h, height), (yc, height + h), (yc - h, height)]
    return shape_of(cq.Workplane("YZ").workplane(offset=x0).polyline(profile).close().extrude(x1 - x0))


def gabled_channel_y(y0: float, y1: float, xc: float, width: float, height: float) -> cq.Shape:
    """A channel along y open at z=0: ``height`` straight, then a 45-degree roof."""
    h = width / 2
    profile = [(xc - h, -1.0), (xc + h, -1.0), (xc + h, height), (xc, height + h), (xc - h, height)]
    # XZ workplane extrudes towards -y.
    return shape_of(cq.Workplane("XZ").workplane(offset=-y1).polyline(profile).close().extrude(y1 - y0))


def coned_hole(x: float, y: float, radius: float, z0: float, z1: float) -> cq.Shape:
    """A vertical hole from ``z0`` up to ``z1`` with a 45-degree conical top above ``z1``."""
    cyl = cq.Solid.makeCylinder(radius, z1 - z0, cq.Vector(x, y, z0))
    cone = cq.Solid.makeCone(radius, 0.0, radius, cq.Vector(x, y, z1 - 1e-3))
    return cyl.fuse(cone).clean()


def boolean(kind: Literal["cut", "common"], shape: cq.Shape, tools: list[cq.Shape]) -> cq.Shape:
    """``shape`` cut by (``"cut"``), or in common with (``"common"``), ``tools``: CadQuery's boolean with OCCT's
    oriented bounding boxes switched on, which rule out far sub-shape pairs before they are intersected (about
    15 % faster on the box's cuts, the same solid)."""
    from OCP.BRepAlgoAPI import BRepAlgoAPI_Common, BRepAlgoAPI_Cut  # pyright: ignore[reportAttributeAccessIssue]
    from OCP.TopTools import TopTools_ListOfShape  # pyright: ignore[reportAttributeAccessIssue]

    op = BRepAlgoAPI_Cut() if kind == "cut" else BRepAlgoAPI_Common()
    args, others = TopTools_ListOfShape(), TopTools_ListOfShape()
    args.Append(shape.wrapped)
    for tool in tools:
        others.Append(tool.wrapped)
    op.SetArguments(args)
    op.SetTools(others)
    op.SetRunParallel(True)
    op.SetUseOBB(True)
    op.Build()
    if not op.IsDone():
        raise RuntimeError(f"OCCT boolean {kind} failed")
    return cq.Shape.cast(op.Shape())


def cut_all(body: cq.Shape, tools: list[cq.Shape]) -> cq.Shape:
    """``body`` minus every tool, in one boolean (much faster and sturdier than one cut per tool)."""
    if not tools:
        return body
    return boolean("cut", body, tools).clean()
