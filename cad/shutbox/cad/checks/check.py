"""``shutbox cad check DIR``: verify a built CAD folder against the settings recorded in its manifest.

Checks: each mesh file is one closed, consistently wound body without degenerate faces and without
overhangs that need support (the two-colour die's 3MF: its two objects, each closed, touching at most);
each part fits the bed as exported; the assembly's solids do not
intersect (OCCT boolean common, volume zero) and stay inside the box (but the camera mount, which clips
onto its front wall); each tile's distance to the box
equals the sliding clearance; there are N tiles numbered 1..N, and the engraved numbers on the tiles
and in the lanes read as those numbers with strokes at least 0.6 mm wide; and the checks each kind
of part carries (``PartSpec.checks``): the tiles' finger scoop is cut, the dice are balanced.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.cad.checks.findings import Finding
from shutbox.cad.checks.measure import bounds, common_volume, fingerprint, memo, part_round, remembered

OVERHANG_NZ = -0.72  # facet normals steeper than about 46 degrees past vertical need support ...
FIRST_LAYERS = 0.6  # ... unless they sit in the first layers (a rounded bottom edge)
OVERHANG_AREA = 1.0  # mm^2 of such facets tolerated (mesh noise)
BRIDGE_NZ = -0.9999  # a flat ceiling (facet facing straight down) is a bridge, no overhang, when every
# sample of it (its centroid and corners) lies on a straight span, along x or along y, at most BRIDGE_SPAN
# long between the part's plastic just below the ceiling on both sides: PrusaSlicer bridges it without
# support (bench/print_cost.py and tests/test_cad_holding.py also count the support PrusaSlicer adds).
IOU_MIN = 0.85
#: Parts fitted on the outside of the box (the camera mount stands over it): not held to the box's size, but
#: still checked against every other solid for interference (so the mount is proved to fit the wall it clips on).
OUTSIDE_KINDS = ("camera-mount",)
STROKE_KEEP = 0.95
TOL = 1e-3


def _manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ShutboxError(f"{folder}: no manifest.json; allowed: a folder written by `shutbox cad --out`") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ShutboxError(f"{path}: cannot read ({exc})") from None


def _kit(manifest: dict[str, Any]):
    from shutbox.kit.model import build_kit

    flat = {f"{s}.{k}": v for s, vals in manifest["settings"].items() for k, v in vals.items()}
    return build_kit(flat)


def check_mesh(path: Path, bed: tuple[float, float, float]) -> Iterator[Finding]:
    """Closed single body, no degenerate faces, fits the bed, no unsupported overhang."""
    from shutbox.cad.geometry.mesh import load_mesh

    mesh = load_mesh(path)
    name = path.name
    degenerate = int(np.sum(mesh.area_faces < 1e-10))
    bodies = mesh.body_count
    closed = mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    yield Finding("manifold", name, bool(closed and bodies == 1 and degenerate == 0),
                  f"watertight={mesh.is_watertight}, bodies={bodies}, degenerate faces={degenerate}, "
                  f"volume={mesh.volume:.0f} mm3")
    lo, hi = mesh.bounds
    size = hi - lo
    fits = all(size[i] <= bed[i] + TOL for i in range(3))
    yield Finding("bed", name, bool(fits), f"{size[0]:.1f} x {size[1]:.1f} x {size[2]:.1f} mm on "
                  f"{bed[0]:g} x {bed[1]:g} x {bed[2]:g}")
    nz = mesh.face_normals[:, 2]
    centre_z = mesh.triangles_center[:, 2] - lo[2]
    steep = (nz < OVERHANG_NZ) & (centre_z > FIRST_LAYERS)
    bridged = _bridged(mesh, steep & (nz < BRIDGE_NZ))
    area = float(mesh.area_faces[steep & ~bridged].sum())
    spans = float(mesh.area_faces[bridged].sum())
    yield Finding("overhang", name, area <= OVERHANG_AREA, f"{area:.2f} mm2 facing down steeper than 45 degrees "
                  f"({spans:.0f} mm2 of bridges)")


#: Overlap allowed between the two objects of the two-colour die, mm3 (touching faces, tessellated apart).
TWO_COLOUR_OVERLAP = 0.05


def check_two_colour(path: Path, objects: list[str], bed: tuple[float, float, float]) -> Iterator[Finding]:
    """The two-colour die's 3MF: just the objects named, each closed (the body one piece), on the bed, and the
    objects touching at most (the pips fill the body's holes, not the body)."""
    import trimesh

    name = path.name
    try:
        scene = trimesh.load(str(path), file_type="3mf", force="scene")
    except Exception as exc:  # noqa: BLE001  (trimesh raises whatever its readers raise on a damaged file)
        yield Finding("objects", name, False, f"cannot read ({type(exc).__name__}: {exc})")
        return
    meshes = dict(scene.geometry.items()) if isinstance(scene, trimesh.Scene) else {}
    yield Finding("objects", name, sorted(meshes) == sorted(objects),
                  f"objects {', '.join(sorted(meshes)) or 'none'}; wanted {', '.join(objects)}")
    if sorted(meshes) != sorted(objects):
        return
    for label in objects:
        mesh = meshes[label]
        degenerate = int(np.sum(mesh.area_faces < 1e-10))
        closed = mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
        one = mesh.body_count == 1 or label != objects[0]  # the body is one piece; the pips are many
        yield Finding("manifold", f"{name}:{label}", bool(closed and one and degenerate == 0),
                      f"watertight={mesh.is_watertight}, bodies={mesh.body_count}, degenerate faces={degenerate}, "
                      f"volume={mesh.volume:.1f} mm3")
    both = trimesh.util.concatenate(list(meshes.values()))
    lo, hi = both.bounds
    size = hi - lo
    yield Finding("bed", name, bool(all(size[i] <= bed[i] + TOL for i in range(3)) and lo[2] > -TOL),
                  f"{size[0]:.1f} x {size[1]:.1f} x {size[2]:.1f} mm on {bed[0]:g} x {bed[1]:g} x {bed[2]:g}")
    first, second = (meshes[label] for label in objects[:2])
    common = first.intersection(second) if len(objects) == 2 else None
    shared = float(common.volume) if common is not None and not common.is_empty else 0.0
    yield Finding("overlap", name, shared <= TWO_COLOUR_OVERLAP,
                  f"{shared:.3f} mm3 in both {objects[0]} and {objects[1]} (at most {TWO_COLOUR_OVERLAP:g})")


def _bridged(mesh: Any, flat: Any) -> Any:
    """Which of the ``flat`` downward facets are bridges (see ``BRIDGE_NZ``)."""
    from trimesh.intersections import mesh_plane

    from shutbox.cad.geometry.layout import BRIDGE_SPAN

    out = np.zeros(len(mesh.faces), dtype=bool)
    index = np.flatnonzero(flat)
    levels = np.round(mesh.triangles_center[index, 2], 2)
    for z in np.unique(levels):
        # The outline of the plastic just under the ceiling: a ray from a sample that meets it has support.
        edges = np.asarray(mesh_plane(mesh, (0.0, 0.0, 1.0), (0.0, 0.0, float(z) - 0.05)))[:, :, :2]
        for f in index[levels == z]:
            samples = np.vstack([mesh.triangles[f][:, :2], mesh.triangles_center[f][:2]])
            out[f] = all(_spanned(edges, p, BRIDGE_SPAN) for p in samples)
    return out


def _reach(edges: Any, p: Any, axis: int) -> tuple[float, float]:
    """Distances from ``p`` along +axis and -axis to the nearest crossing of ``edges`` (inf if none)."""
    other = 1 - axis
    a, b = edges[:, 0], edges[:, 1]
    lo, hi = np.minimum(a[:, other], b[:, other]), np.maximum(a[:, other], b[:, other])
    hit = (lo <= p[other] + TOL) & (hi >= p[other] - TOL)
    a, b = a[hit], b[hit]
    d = b[:, other] - a[:, other]
    t = np.where(np.abs(d) > 1e-9, (p[other] - a[:, other]) / np.where(np.abs(d) > 1e-9, d, 1.0), 0.0)
    at = a[:, axis] + np.clip(t, 0.0, 1.0) * (b[:, axis] - a[:, axis]) - p[axis]
    flat = np.abs(d) <= 1e-9  # an edge along the ray: its nearer end
    at = np.where(flat, np.where(np.abs(a[:, axis] - p[axis]) < np.abs(b[:, axis] - p[axis]),
                                 a[:, axis], b[:, axis]) - p[axis], at)
    ahead, back = at[at >= -TOL], -at[at <= TOL]
    return (float(ahead.min()) if len(ahead) else np.inf, float(back.min()) if len(back) else np.inf)


def _spanned(edges: Any, p: Any, span: float) -> bool:
    """``p`` on a span at most ``span`` long between plastic on both sides, along x or along y."""
    return any(sum(_reach(edges, p, axis)) <= span for axis in (0, 1))


def read_assembly(folder: Path, manifest: dict[str, Any]) -> list[tuple[str, str, Any]]:
    import cadquery as cq

    path = folder / manifest["assembly"]["file"]
    try:
        assy = cq.Assembly.importStep(str(path))
    except (ValueError, OSError, RuntimeError) as exc:
        raise ShutboxError(f"{path}: cannot read the assembly ({exc}); allowed: a folder written by "
                           "`shutbox cad --out`") from None
    kinds = {s["name"]: s["kind"] for s in manifest["assembly"]["solids"]}
    out = []
    for child in assy.children:
        obj = child.obj
        shape = obj.moved(child.loc) if isinstance(obj, cq.Shape) else None
        if shape is not None:
            out.append((child.name, kinds.get(child.name, "?"), shape))
    return out


def check_assembly(solids: list[tuple[str, str, Any]], manifest: dict[str, Any], kit, lay) -> Iterator[Finding]:
    """No interference, inside the box's size, sliding clearance equal to the setting."""
    expected = sum(p["quantity"] for p in manifest["parts"])
    yield Finding("assembly", "solids", len(solids) == expected, f"{len(solids)} solids, {expected} expected")
    boxes = {name: bounds(shape) for name, _, shape in solids}
    within = [boxes[name] for name, kind, _ in solids if kind not in OUTSIDE_KINDS]
    xmin = min(b.xmin for b in within)
    ymin = min(b.ymin for b in within)
    zmin = min(b.zmin for b in within)
    xmax = max(b.xmax for b in within)
    ymax = max(b.ymax for b in within)
    zmax = max(b.zmax for b in within)
    inside = (xmin >= -TOL and ymin >= -TOL and zmin >= -TOL and xmax <= lay.length + TOL
              and ymax <= lay.width + TOL and zmax <= lay.height + TOL)
    yield Finding("assembly", "size", inside, f"{xmax - xmin:.2f} x {ymax - ymin:.2f} x {zmax - zmin:.2f} mm "
                  f"within {lay.length:g} x {lay.width:g} x {lay.height:g}")
    prints = {name: fingerprint(shape) for name, _, shape in solids}
    worst, pairs = 0.0, 0
    clashes = []
    gaps: dict[str, float] = {}
    for i, first in enumerate(solids):
        for second in solids[i + 1:]:
            ba, bb = boxes[first[0]], boxes[second[0]]
            if ba.xmax < bb.xmin or bb.xmax < ba.xmin or ba.ymax < bb.ymin or bb.ymax < ba.ymin \
                    or ba.zmax < bb.zmin or bb.zmax < ba.zmin:
                continue
            pairs += 1
            (na, ka, a), (nb, kb, b) = (second, first) if second[1] == "box" and first[1] != "box" else (first, second)
            volume, gap = memo("pair", [prints[na], prints[nb], kb == "tile"],
                                lambda a=a, b=b, ka=ka, kb=kb, nb=nb: _pair(a, b, ka, kb, boxes[nb]))
            worst = max(worst, volume)
            if volume > TOL:
                clashes.append(f"{na}/{nb} {volume:.3f} mm3")
            if gap is not None:
                gaps[nb] = min(gaps.get(nb, float("inf")), gap)
    yield Finding("interference", "assembly", not clashes,
                  f"{pairs} touching pairs, largest common volume {worst:.2e} mm3"
                  + (": " + ", ".join(clashes) if clashes else ""))
    c = kit.tile_fit.clearance_mm
    for name, kind, _ in solids:
        if kind == "tile":
            gap = gaps.get(name, float("inf"))
            yield Finding("clearance", name, abs(gap - c) <= TOL, f"{gap:.3f} mm to the box, setting {c:g} mm")


def _pair(a: Any, b: Any, ka: str, kb: str, around: Any) -> tuple[float, float | None]:
    """(common volume, distance if ``b`` is a tile sliding in box piece ``a``)."""
    if ka == "box" and kb != "box":
        # Crop the big piece around the small part first: the same answer, far faster.
        a = _crop(a, around)
    volume = common_volume(a, b)
    gap = a.distance(b) if ka == "box" and kb == "tile" and a.Solids() else None
    return volume, gap


def _crop(shape, around, margin: float = 1.5):
    import cadquery as cq

    from shutbox.cad.geometry.shapes import boolean

    lo = cq.Vector(around.xmin - margin, around.ymin - margin, around.zmin - margin)
    size = (around.xlen + 2 * margin, around.ylen + 2 * margin, around.zlen + 2 * margin)
    region = cq.Solid.makeBox(*size, lo)
    return boolean("common", part_round(shape, region.BoundingBox()), [region])


def check_tile_number(path: Path, k: int, name: str, lay: Any, depth: float) -> list[Finding]:
    """Tile ``name``'s mesh file carries the number ``k`` engraved ``depth`` deep, reading right (remembered by
    the file's content)."""
    from shutbox.cad.checks.numbers import compare
    from shutbox.cad.geometry.mesh import load_mesh
    from shutbox.cad.geometry.tiles import number_centre_y

    def tile_number() -> list[Finding]:
        mesh = load_mesh(path)
        lo = mesh.bounds[0]
        # Tile frame: x centred, y from the front end; the exported file keeps that frame.
        x = lo[0] + lay.tile_foot / 2
        iou, kept = compare(mesh, str(k), lay.number_size, x, lo[1] + number_centre_y(lay),
                            lo[2] + lay.tile_thickness, depth)
        return [Finding("number", name, iou >= IOU_MIN and kept >= STROKE_KEEP,
                        f"'{k}' matches the font {iou:.0%}, strokes >= 0.6 mm keep {kept:.0%}, {depth:g} mm deep")]

    return remembered("tile-number", path, [k, lay.number_size, lay.tile_foot, lay.tile_thickness, depth],
                       tile_number)


def check_numbers(folder: Path, solids: list[tuple[str, str, Any]], manifest: dict[str, Any], kit,
                  lay) -> Iterator[Finding]:
    """N tiles numbered 1..N; engraved numbers on tiles and lanes read right with strokes >= 0.6 mm."""
    from shutbox.cad.checks.numbers import compare
    from shutbox.cad.geometry.mesh import tessellate
    from shutbox.cad.geometry.parts import tile_part_name

    n = kit.rules.tiles
    tiles = {p["name"]: p for p in manifest["parts"] if p["kind"] == "tile"}
    wanted = {tile_part_name(k) for k in kit.rules.tile_numbers}
    yield Finding("tiles", "count", set(tiles) == wanted and all(p["quantity"] == 1 for p in tiles.values()),
                  f"{len(tiles)} tiles ({', '.join(sorted(tiles))}), {n} set")
    depth = kit.cad.engrave_depth_mm
    for k in kit.rules.tile_numbers:
        part = tiles.get(tile_part_name(k))
        if part is None:
            continue
        fmt = next((f for f in ("stl", "3mf") if f in part["files"]), None)
        if fmt is None:
            continue
        yield from check_tile_number(folder / part["files"][fmt], k, part["name"], lay, depth)
    boxes = [(name, shape) for name, kind, shape in solids if kind == "box"]
    meshes: dict[str, Any] = {}

    def mesh_of(name: str, shape: Any) -> Any:
        if name not in meshes:
            meshes[name] = tessellate(shape, kit.cad.chord_tolerance_mm, kit.cad.angular_tolerance_deg)
        return meshes[name]

    y0, y1 = lay.number_zone
    for k in kit.rules.tile_numbers:
        x = lay.lane_x(k)
        found = next(((name, s) for name, s in boxes
                      if bounds(s).xmin <= x <= bounds(s).xmax and bounds(s).ymin <= (y0 + y1) / 2 <= bounds(s).ymax),
                     None)
        if found is None:
            yield Finding("number", f"lane {k}", False, "no box piece holds this lane")
            continue
        host_print = fingerprint(found[1])

        def host(found: tuple[str, Any] = found) -> Any:
            return mesh_of(*found)

        iou, kept = memo("lane-number", [host_print, k, x, y0, y1, lay.number_size, lay.lane_floor, depth],
                          lambda host=host, k=k, x=x: compare(host(), str(k), lay.number_size, x, (y0 + y1) / 2,
                                                              lay.lane_floor, depth))
        yield Finding("number", f"lane {k}", iou >= IOU_MIN and kept >= STROKE_KEEP,
                      f"'{k}' matches the font {iou:.0%}, strokes >= 0.6 mm keep {kept:.0%}")


def top_height(mesh: Any, x: float, y: float) -> float:
    """Height of the mesh's highest surface over the plan point (x, y) (a vertical ray from above)."""
    tri = mesh.triangles
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    v0, v1, v2 = b[:, :2] - a[:, :2], c[:, :2] - a[:, :2], np.array([x, y]) - a[:, :2]
    den = v0[:, 0] * v1[:, 1] - v1[:, 0] * v0[:, 1]
    flat = np.abs(den) < 1e-12  # triangles seen edge-on from above
    den = np.where(flat, 1.0, den)
    u = (v2[:, 0] * v1[:, 1] - v1[:, 0] * v2[:, 1]) / den
    w = (v0[:, 0] * v2[:, 1] - v2[:, 0] * v0[:, 1]) / den
    hit = ~flat & (u >= -1e-9) & (w >= -1e-9) & (u + w <= 1 + 1e-9)
    z = a[:, 2] + u * (b[:, 2] - a[:, 2]) + w * (c[:, 2] - a[:, 2])
    return float(z[hit].max()) if hit.any() else float("nan")


def check_scoop(path: Path, kit: Any, lay: Any) -> list[Finding]:
    """The finger scoop is cut: the tile top is lower by the scoop depth at the scoop's centre than at its edge."""
    from shutbox.cad.geometry.layout import MAGNET_AT, SCOOP_DEPTH
    from shutbox.cad.geometry.mesh import load_mesh

    mesh = load_mesh(path)
    lo = mesh.bounds[0]
    x, y = lo[0] + lay.tile_foot / 2, lo[1] + MAGNET_AT  # tile frame: x centred, y from the front end
    centre = top_height(mesh, x, y)
    edge = top_height(mesh, x - lay.tile_width / 2 + 0.5, y)
    depth = edge - centre
    ok = abs(depth - SCOOP_DEPTH) <= max(0.05, kit.cad.chord_tolerance_mm)
    return [Finding("scoop", path.name, bool(ok), f"top {centre:.2f} mm at the scoop centre, {edge:.2f} mm at the "
                    f"edge: {depth:.2f} mm deep, design {SCOOP_DEPTH:g} mm")]


BALANCE_MM = 0.01  # largest distance of a die's (solid) centre of mass from its cube's centre


def check_balance(path: Path, kit: Any, lay: Any) -> list[Finding]:
    """A die's solid centre of mass is the centre of its cube (pips balanced face against face)."""
    from shutbox.cad.geometry.mesh import load_mesh

    mesh = load_mesh(path)
    off = mesh.center_mass - mesh.bounds.mean(axis=0)
    dist = float(np.linalg.norm(off))
    return [Finding("balance", path.name, dist <= BALANCE_MM,
                    f"centre of mass {dist:.4f} mm from the cube's centre (x {off[0]:+.4f}, y {off[1]:+.4f}, "
                    f"z {off[2]:+.4f}), limit {BALANCE_MM:g} mm")]


#: Part-specific checks by the names the part kinds list (``PartSpec.checks``).
PART_CHECKS: dict[str, Callable[[Path, Any, Any], list[Finding]]] = {"scoop": check_scoop, "balance": check_balance}


def check_parts(folder: Path, manifest: dict[str, Any], kit: Any, lay: Any) -> list[Finding]:
    """The checks each kind of part carries, on its mesh file."""
    from shutbox.cad.geometry.parts import KINDS

    findings: list[Finding] = []
    for part in manifest["parts"]:
        fmt = next((f for f in ("stl", "3mf") if f in part["files"]), None)
        if fmt is None or not (folder / part["files"][fmt]).is_file():
            continue
        path = folder / part["files"][fmt]
        for name in KINDS[part["kind"]].checks:
            extra = [name, lay.tile_foot, lay.tile_width, kit.cad.chord_tolerance_mm]
            findings += remembered(f"part-{name}", path, extra,
                                    lambda name=name, path=path: PART_CHECKS[name](path, kit, lay))
    return findings


def _folder_digest(folder: Path, manifest: dict[str, Any]) -> str | None:
    """Hash of the manifest and every file it names (None if one is missing): same folder, same findings."""
    import hashlib

    h = hashlib.sha256((folder / "manifest.json").read_bytes())
    names = [rel for part in manifest["parts"] for rel in part["files"].values()]
    names.append(manifest["assembly"]["file"])
    if "two_colour" in manifest:
        names.append(manifest["two_colour"]["file"])
    names += [plate["file"] for plate in manifest.get("plates", [])]
    for rel in names:
        path = folder / rel
        if not path.is_file():
            return None
        h.update(rel.encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def check_folder(folder: Path, side: Executor | None = None, started: SideChecks | None = None,
                 solids: list[tuple[str, str, Any]] | None = None) -> list[Finding]:
    """Every check on a built folder (remembered by the folder's content: an unchanged rebuild is not re-checked).

    ``side``: a process pool (:func:`shutbox.base.sideprocess.side_process`) that takes ``SIDE_CHECKS`` meanwhile;
    ``started``: that share, begun with :func:`start_side_checks` while the folder was being written.
    ``solids``: the (label, kind, solid) assembly.step was just written from, used here instead of reading it
    back (the side process's checks read the file).
    """
    folder = Path(folder)
    manifest = _manifest(folder)
    try:
        digest = _folder_digest(folder, manifest)
    except (OSError, KeyError, TypeError, AttributeError):
        digest = None
    if digest is None:
        return _check_folder(folder, manifest, side, started, solids)
    items = memo("folder", digest,
                  lambda: [f.__dict__ for f in _check_folder(folder, manifest, side, started, solids)])
    return [Finding(**item) for item in items]


#: Checks of the assembled kit, by name, as run by :func:`_run_check`.
ASSEMBLY_CHECKS = ("assembly", "numbers", "captive", "detent", "fasteners", "button", "parts", "plates")
#: The ones a second process takes when there is a CPU for it: about half the work, counting that it begins them
#: while this process renders the previews, and none that asks for the same bands of a box piece (``part_round``)
#: as ``assembly`` does (the detent's), which the other process would then cut again.
SIDE_CHECKS = ("numbers", "captive", "fasteners", "button")
#: What of the manifest those read (all of it but the previews and build notes, written last).
SIDE_CHECKS_READ = ("settings", "bed_mm", "split", "parts", "assembly")
_CONTEXT: dict[str, dict[str, Any]] = {}


@dataclass(frozen=True)
class SideChecks:
    """The side process's share of the checks, begun before the folder was complete, and what it read."""

    future: Future
    read: dict[str, Any]


def start_side_checks(side: Executor, folder: Path, manifest: dict[str, Any],
                      solids: list[tuple[str, str, Any]] | None = None) -> SideChecks:
    """Begin ``SIDE_CHECKS`` in ``side`` as soon as ``folder`` holds its parts and assembly.step (``manifest``:
    the manifest to be written, previews aside), while this process renders the previews. ``solids``: the
    (label, kind, solid) assembly.step was written from, handed over (serialised here, before this process
    meshes them for the previews) so that the side process need not read assembly.step back."""
    import pickle

    read = json.loads(json.dumps({key: manifest[key] for key in SIDE_CHECKS_READ}))  # as the file will read
    shared = [("assembly", name) for name in SIDE_CHECKS]
    given = pickle.dumps(solids, protocol=pickle.HIGHEST_PROTOCOL) if solids else None
    return SideChecks(side.submit(_run_checks, str(folder), shared, read, given), read)


def check_files(folder: str, files: list[str], bed: tuple[float, float, float]) -> None:
    """Work out the checks of part files ahead (in a side process): they are remembered by content, so the
    check of the folder that holds these files finds them done. Nothing is remembered without a cache."""
    for rel in files:
        path = Path(folder) / rel
        _file_check(path, path.suffix.lstrip("."), bed)


def warm_up() -> None:
    """Import what the checks need (run in a side process while the parts are being built)."""
    import cadquery  # noqa: F401

    from shutbox.cad.checks import (
        numbers,  # noqa: F401
    )


def _check_folder(folder: Path, manifest: dict[str, Any], side: Executor | None = None,
                  started: SideChecks | None = None, solids: list[tuple[str, str, Any]] | None = None) -> list[Finding]:
    """Every check; the findings in a fixed order. With a ``side`` pool, ``SIDE_CHECKS`` run there meanwhile
    (``started``, if begun on this very manifest; else begun now); if its worker died, they run here after all."""
    _CONTEXT.clear()  # what an earlier check of this path read may be stale
    if solids is not None and side is not None:
        check_context(folder, manifest)["solids"] = solids
    files = [(fmt, rel) for part in manifest["parts"] for fmt, rel in part["files"].items()]
    if "two_colour" in manifest:
        files.append(("two_colour", manifest["two_colour"]["file"]))
    names = files + [("assembly", name) for name in ASSEMBLY_CHECKS]
    shared = [("assembly", name) for name in SIDE_CHECKS] if side is not None else []
    later = None
    if started is not None and started.read == {key: manifest.get(key) for key in SIDE_CHECKS_READ}:
        later = started.future  # begun on this very folder: the files it read are the ones here
    elif side is not None:
        try:
            later = side.submit(_run_checks, str(folder), shared)
        except BrokenProcessPool:
            later = None
    results = {spec: _run_check(folder, spec) for spec in names[len(files):] + files if spec not in shared}
    try:
        done = later.result() if later is not None else None
    except BrokenProcessPool:
        done = None
    if done is None:  # no side process (any more): do its share here, on assembly.step as read back
        check_context(folder).pop("solids", None)
        done = [_run_check(folder, spec) for spec in shared]
    results.update(zip(shared, done, strict=True))
    return [f for spec in names for f in results[spec]]


def _run_checks(folder: str, specs: list[tuple[str, str]], manifest: dict[str, Any] | None = None,
                solids: bytes | None = None) -> list[list[Finding]]:
    """``specs``' findings (in a side process); ``manifest``: the one the folder will hold, ``solids``: the
    assembly's solids pickled (else read from assembly.step)."""
    _CONTEXT.clear()
    if manifest is not None:  # the folder's manifest is not written yet
        ctx = check_context(Path(folder), manifest)
        if solids is not None:
            import pickle

            ctx["solids"] = pickle.loads(solids)
    return [_run_check(Path(folder), spec) for spec in specs]


def check_context(folder: Path, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
    """The folder's manifest (or ``manifest``), kit, layout and bed, read once per process; ``solids`` added
    when first asked for."""
    key = str(folder)
    if key not in _CONTEXT:
        from shutbox.cad.geometry.layout import layout

        manifest = manifest if manifest is not None else _manifest(folder)
        kit = _kit(manifest)
        _CONTEXT.clear()  # one folder at a time
        _CONTEXT[key] = {"manifest": manifest, "kit": kit, "lay": layout(kit), "bed": tuple(manifest["bed_mm"])}
    return _CONTEXT[key]


def _run_check(folder: Path, spec: tuple[str, str]) -> list[Finding]:
    """One file's checks (``(format, file)``) or one check of the assembly (``("assembly", name)``)."""
    ctx = check_context(folder)
    kind, name = spec
    if kind != "assembly":
        path = folder / name
        if not path.is_file():
            return [Finding("files", name, False, "missing")]
        if kind == "two_colour":
            objects = list(ctx["manifest"]["two_colour"]["objects"])
            return remembered("two_colour", path, (objects, ctx["bed"]),
                               lambda: check_two_colour(path, objects, ctx["bed"]))
        return _file_check(path, kind, ctx["bed"])
    return list(_assembly_check(folder, ctx, name))


def _file_check(path: Path, kind: str, bed: tuple[float, float, float]) -> list[Finding]:
    """One part file's checks: a STEP file holds one valid solid; a mesh is sound and prints on ``bed``."""
    if kind == "step":
        return remembered("step", path, None, lambda: [_check_step(path)])
    if kind in ("stl", "3mf"):
        return remembered("mesh", path, bed, lambda: check_mesh(path, bed))
    return []


def _assembly_check(folder: Path, ctx: dict[str, Any], name: str) -> Iterable[Finding]:
    from shutbox.cad.checks import holding

    manifest, kit, lay = ctx["manifest"], ctx["kit"], ctx["lay"]
    if name == "parts":
        return check_parts(folder, manifest, kit, lay)
    if name == "plates":
        from shutbox.cad.build.export import plan
        from shutbox.cad.slicer.project3mf import check_projects

        return check_projects(folder, manifest, plan(kit)[2])
    if "solids" not in ctx:
        ctx["solids"] = read_assembly(folder, manifest)
    solids = ctx["solids"]
    if name == "assembly":
        return check_assembly(solids, manifest, kit, lay)
    if name == "numbers":
        return check_numbers(folder, solids, manifest, kit, lay)
    if name == "fasteners":
        split = manifest["split"]
        return holding.check_fasteners(solids, lay, tuple(split["cuts_x_mm"]), tuple(split["cuts_y_mm"]))
    checks = {"captive": holding.check_captive, "detent": holding.check_detent, "button": holding.check_button}
    return checks[name](solids, lay)


def _check_step(path: Path) -> Finding:
    import cadquery as cq

    from shutbox.cad.geometry.shapes import shape_of

    try:
        shape = shape_of(cq.importers.importStep(str(path)))
    except (ValueError, OSError, RuntimeError) as exc:
        return Finding("solid", path.name, False, f"cannot read ({exc})")
    solids = shape.Solids()
    valid = shape.isValid()  # once: OCCT's analysis of a box piece takes most of a second
    return Finding("solid", path.name, len(solids) == 1 and valid, f"{len(solids)} solid(s), valid={valid}")
