"""Measures every check shares: a shape's exact bounds and fingerprint, the volume two shapes have in common,
the solids near a region, and results remembered in the part cache under what they were measured from."""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.cad.checks.findings import Finding

if TYPE_CHECKING:
    from shutbox.cad.geometry.layout import Layout


def memo(kind: str, identity: Any, compute: Callable[[], Any]) -> Any:
    """A check's JSON result, kept in the cache folder under what it was computed from."""
    import hashlib

    from shutbox.cad.build import cache

    root = cache.cache_root()
    if root is None:
        return compute()
    blob = json.dumps([kind, identity, cache.code_digest()], default=str)
    entry = root / "checks" / (hashlib.sha256(blob.encode()).hexdigest()[:32] + ".json")
    if entry.is_file():
        return json.loads(entry.read_text(encoding="utf-8"))
    value = compute()
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = entry.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(value), encoding="utf-8")
    os.replace(tmp, entry)
    return value


def remembered(kind: str, path: Path, extra: Any, compute: Callable[[], Any]) -> list[Finding]:
    """Findings of a per-file check, remembered by the file's content (same file, same answer)."""
    import hashlib

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    items = memo(kind, [digest, extra], lambda: [f.__dict__ for f in compute()])
    return [Finding(**item) for item in items]


_PRINTS: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()


_BOUNDS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def bounds(shape: Any) -> Any:
    """The shape's (exact) bounding box, worked out once per shape: OCCT takes a while on a box piece, and
    the checks ask for the same pieces' boxes many times."""
    known = _BOUNDS.get(shape)
    if known is None:
        from cadquery.occ_impl.geom import BoundBox
        from OCP.Bnd import Bnd_Box  # pyright: ignore[reportAttributeAccessIssue]  (OCP ships no stubs for these)
        from OCP.BRepBndLib import BRepBndLib  # pyright: ignore[reportAttributeAccessIssue]

        box = Bnd_Box()
        # From the geometry alone: a solid that was meshed (for STL) would otherwise get its mesh's looser box.
        BRepBndLib.AddOptimal_s(shape.wrapped, box, False, False)
        known = _BOUNDS[shape] = BoundBox(box)
    return known


_BANDS: weakref.WeakKeyDictionary[Any, dict[tuple[float, ...], Any]] = weakref.WeakKeyDictionary()


BAND_GRID = 10.0  # mm: a band's y and z limits, on this grid so that neighbouring regions share a band


BAND_FACES = 150  # shapes with fewer faces are cut directly


def part_round(shape: Any, bb: Any) -> Any:
    """A part of ``shape`` that holds all of it inside the bounding box ``bb``, for booleans near ``bb``: the shape
    itself when it is small, else a band of it across its whole length (x), cut once and kept for every later
    region inside the same band. A boolean costs with the faces of the whole shape; a box piece has hundreds
    (the engraved numbers), a band round a row of tiles a fraction of them."""
    import math

    import cadquery as cq

    from shutbox.cad.geometry.shapes import boolean

    sb, g = bounds(shape), BAND_GRID
    if sb.xlen < 3 * bb.xlen or len(shape.Faces()) < BAND_FACES:
        return shape
    y0, y1 = math.floor((bb.ymin - 1.0) / g) * g, math.ceil((bb.ymax + 1.0) / g) * g
    z0, z1 = math.floor((bb.zmin - 1.0) / g) * g, math.ceil((bb.zmax + 1.0) / g) * g
    bands = _BANDS.setdefault(shape, {})
    if (y0, y1, z0, z1) not in bands:
        box = cq.Solid.makeBox(sb.xlen + 2.0, y1 - y0, z1 - z0, cq.Vector(sb.xmin - 1.0, y0, z0))
        bands[(y0, y1, z0, z1)] = boolean("common", shape, [box])
    return bands[(y0, y1, z0, z1)]


def fingerprint(shape: Any) -> list[Any]:
    """What identifies a solid for remembering results: a hash of its exact geometry and topology (worked out
    once per shape: the same solid is asked for by many checks)."""
    known = _PRINTS.get(shape)
    if known is None:
        known = _PRINTS[shape] = _measure_print(shape)
    return list(known)


def _measure_print(shape: Any) -> list[Any]:
    """The SHA-256 of the solid in OCCT's binary form, without any mesh it may carry: the same solid (as built,
    read from the cache or handed to another process) hashes the same, and it costs a small fraction of its mass
    properties."""
    import hashlib
    import io

    # OCP ships no stubs for these two names.
    from OCP.BinTools import BinTools, BinTools_FormatVersion  # pyright: ignore[reportAttributeAccessIssue]

    data = io.BytesIO()
    BinTools.Write_s(shape.wrapped, data, False, False, BinTools_FormatVersion.BinTools_FormatVersion_CURRENT)
    return [hashlib.sha256(data.getvalue()).hexdigest()]


def common_volume(a, b) -> float:
    """Volume of the OCCT boolean common of two shapes (0 when either is empty)."""
    from shutbox.cad.geometry.shapes import boolean

    if not a.Solids() or not b.Solids():
        return 0.0
    return boolean("common", a, [b]).Volume()


def common_solid(shapes: list[Any], tool: Any) -> Any | None:
    """The part of ``shapes`` inside ``tool`` (a compound), or None when nothing is."""
    import cadquery as cq

    from shutbox.cad.checks.measure import bounds, part_round
    from shutbox.cad.geometry.shapes import boolean

    bb = tool.BoundingBox()
    parts = []
    for shape in shapes:
        sb = bounds(shape)
        if sb.xmax < bb.xmin or bb.xmax < sb.xmin or sb.ymax < bb.ymin or bb.ymax < sb.ymin:
            continue
        common = boolean("common", part_round(shape, bb), [tool])
        if common.Solids():
            parts.append(common)
    return cq.Compound.makeCompound(parts) if parts else None


def volume_in(shapes: list[Any], tool: Any) -> float:
    common = common_solid(shapes, tool)
    return common.Volume() if common is not None else 0.0


def overlaps(a: Any, b: Any) -> bool:
    return not (a.xmax < b.xmin or b.xmax < a.xmin or a.ymax < b.ymin or b.ymax < a.ymin
                or a.zmax < b.zmin or b.zmax < a.zmin)


def clash(shapes: list[Any], part: Any) -> float:
    """Common volume of ``part`` with ``shapes`` (small ones: crop big pieces first, see :func:`slim`)."""
    from shutbox.cad.checks.measure import bounds, common_volume

    bb = bounds(part)
    return sum(common_volume(shape, part) for shape in shapes if overlaps(bounds(shape), bb))


Corner = tuple[float, float, float]


def slim(shapes: list[Any], regions: list[tuple[Corner, Corner]]) -> list[Any]:
    """The solids of ``shapes`` inside the boxes ``regions`` (each from its low to its high corner): one boolean per
    big piece, so that every part measured afterwards meets only the small solids round it (a boolean costs with
    the faces of both)."""
    import cadquery as cq

    from shutbox.cad.checks.measure import bounds

    boxes = [cq.Solid.makeBox(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], cq.Vector(*lo)) for lo, hi in regions]
    region = cq.Compound.makeCompound(boxes)  # type: ignore[arg-type]
    out = []
    for shape in shapes:
        if overlaps(bounds(shape), region.BoundingBox()):
            out += shape.intersect(region).Solids()
    return out


def is_open(lay: Layout, tile: Any) -> bool:
    """Whether the assembly has ``tile`` at its open end (else shut)."""
    from shutbox.cad.checks.measure import bounds

    return bool(bounds(tile).ymin > lay.tile_y(True) + lay.travel / 2)
