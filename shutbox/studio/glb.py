"""The studio's 3D preview: the assembled kit as one GLB, made of the meshes the CAD build put in its part cache.

Each part's cache entry holds its mesh as printed (``part.stl``) and its solid (``print.brep``). The part's own
``place`` (:class:`shutbox.cad.geometry.parts.PartSpec`) moves the solid into the box for each copy; the rigid motion it
made is read back from the solid's corners (its vertices, in the same order after a move) and applied to the mesh,
so the preview shows exactly the printed meshes where the assembly has them, without meshing anything again. The
scene is turned Z-up (CAD) to Y-up (glTF), in millimetres; each node is named as in the assembly (``tile-03``,
``die-19mm-2``) and coloured as in the kit's previews.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.cad.build import cache
from shutbox.cad.build.export import plan
from shutbox.cad.geometry.parts import Builder, PartSpec
from shutbox.kit.model import Kit

if TYPE_CHECKING:
    import trimesh

#: Largest distance, mm, of a solid's corner from where the fitted motion puts it (a rigid move fits to ~1e-12).
FIT_TOLERANCE_MM = 1e-6
#: CAD's Z-up box frame to glTF's Y-up: (x, y, z) -> (x, z, -y).
Z_UP_TO_Y_UP = np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, -1.0, 0, 0], [0, 0, 0, 1.0]])


def missing_parts(kit: Kit) -> tuple[list[str], int]:
    """The parts of ``kit`` whose cache entry is not there whole (a build must make them before a preview), and how
    many parts it has."""
    _, _, specs = plan(kit)
    return [spec.name for spec in specs if _entry(spec) is None], len(specs)


def _entry(spec: PartSpec) -> Path | None:
    entry = cache.lookup(cache.part_key(spec.name, spec.inputs))
    if entry is None or not (entry / "part.stl").is_file() or not (entry / "print.brep").is_file():
        return None
    return entry


def motion(before: Any, after: Any) -> np.ndarray:
    """The 4 x 4 rigid motion that took solid ``before`` to ``after`` (a moved copy), from their vertices."""
    src = np.array([v.toTuple() for v in before.Vertices()], dtype=np.float64)
    dst = np.array([v.toTuple() for v in after.Vertices()], dtype=np.float64)
    if len(src) != len(dst) or len(src) < 4:
        raise ShutboxError("preview: a placed part does not match its printed solid")
    ones = np.hstack([src, np.ones((len(src), 1))])
    fitted, *_ = np.linalg.lstsq(ones, dst, rcond=None)
    if float(np.abs(ones @ fitted - dst).max()) > FIT_TOLERANCE_MM:
        raise ShutboxError("preview: a placed part is not a rigid move of its printed solid")
    matrix = np.eye(4)
    matrix[:3, :] = fitted.T
    return matrix


def kit_scene(kit: Kit) -> trimesh.Scene:
    """The assembled kit from the part cache (:class:`ShutboxError` when a part is not in it)."""
    import cadquery as cq
    import trimesh
    from trimesh.visual import TextureVisuals
    from trimesh.visual.material import PBRMaterial

    from shutbox.cad.geometry.mesh import load_mesh

    lay, split, specs = plan(kit)
    builder = Builder(kit, lay, split)
    scene = trimesh.Scene()
    for spec in specs:
        entry = _entry(spec)
        if entry is None:
            raise ShutboxError(f"preview: {spec.name} is not built yet")
        printed = cq.Shape.importBrep(str(entry / "print.brep"))
        mesh = load_mesh(entry / "part.stl")
        r, g, b = spec.colour
        material = PBRMaterial(name=spec.kind, baseColorFactor=[r, g, b, 255], metallicFactor=0.0,
                               roughnessFactor=0.75)
        mesh.visual = TextureVisuals(material=material)
        for i, placed in enumerate(builder.place(spec, printed)):
            label = spec.name if spec.quantity == 1 else f"{spec.name}-{i + 1}"
            scene.add_geometry(mesh, node_name=label, geom_name=spec.name,
                               transform=Z_UP_TO_Y_UP @ motion(printed, placed))
    return scene


def write_preview(kit: Kit, path: Path) -> list[str]:
    """Write the kit's GLB to ``path`` (through a temporary file beside it); the names of its nodes."""
    scene = kit_scene(kit)
    data = scene.export(file_type="glb")
    assert isinstance(data, bytes)
    partial = path.with_name(f".{path.name}.part")
    partial.write_bytes(data)
    partial.replace(path)
    return sorted(str(node) for node in scene.graph.nodes_geometry)
