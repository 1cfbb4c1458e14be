"""Triangle meshes from solids, welded into one closed surface, and written as STL or 3MF.

CadQuery's own STL/3MF writers keep every face's vertices apart; slicers then see many loose parts.
Here OCCT meshes the solid with an absolute chord tolerance, shared vertices are merged and zero-area
triangles dropped, so each file is one manifold body.
"""

from __future__ import annotations

import math
from pathlib import Path

import cadquery as cq
import numpy as np
import trimesh
from OCP.BRep import BRep_Tool  # pyright: ignore[reportAttributeAccessIssue]  (OCP ships no stubs for these)
from OCP.BRepMesh import BRepMesh_IncrementalMesh  # pyright: ignore[reportAttributeAccessIssue]  (OCP ships no stubs for these)
from OCP.TopAbs import TopAbs_REVERSED  # pyright: ignore[reportAttributeAccessIssue]  (OCP ships no stubs for these)
from OCP.TopLoc import TopLoc_Location  # pyright: ignore[reportAttributeAccessIssue]  (OCP ships no stubs for these)


def tessellate(shape: cq.Shape, chord_mm: float, angle_deg: float) -> trimesh.Trimesh:
    """A welded, cleaned triangle mesh of ``shape`` (absolute chord tolerance in mm)."""
    BRepMesh_IncrementalMesh(shape.wrapped, chord_mm, False, math.radians(angle_deg), True)
    verts: list[np.ndarray] = []
    tris: list[np.ndarray] = []
    offset = 0
    for face in shape.Faces():
        loc = TopLoc_Location()
        poly = BRep_Tool.Triangulation_s(face.wrapped, loc)
        if poly is None:
            continue
        node = poly.Node
        if loc.IsIdentity():  # most faces: the nodes are where they are
            nodes = np.array([node(i).Coord() for i in range(1, poly.NbNodes() + 1)])
        else:
            trsf = loc.Transformation()
            nodes = np.array([node(i).Transformed(trsf).Coord() for i in range(1, poly.NbNodes() + 1)])
        triangle = poly.Triangle
        t = np.array([triangle(i).Get() for i in range(1, poly.NbTriangles() + 1)], dtype=np.int64) - 1
        if face.wrapped.Orientation() == TopAbs_REVERSED:
            t = t[:, [0, 2, 1]]
        verts.append(nodes)
        tris.append(t + offset)
        offset += len(nodes)
    if not verts:  # an empty shape (e.g. a part cropped away from a view)
        return trimesh.Trimesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), process=False)
    mesh = trimesh.Trimesh(np.vstack(verts), np.vstack(tris), process=False)
    return weld(mesh)


def weld(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """Merge coincident vertices, drop degenerate and duplicate triangles, fix normals."""
    mesh.merge_vertices(digits_vertex=5)
    mesh.update_faces(mesh.nondegenerate_faces(height=1e-7))
    mesh.update_faces(mesh.unique_faces())
    mesh.remove_unreferenced_vertices()
    # Slivers whose three corners merged onto a line leave zero area; drop them and re-merge.
    area_ok = mesh.area_faces > 1e-10
    if not area_ok.all():
        mesh.update_faces(area_ok)
        mesh.remove_unreferenced_vertices()
    if not mesh.is_watertight:
        mesh = close_t_junctions(mesh)
    trimesh.repair.fix_normals(mesh)
    return mesh


def _open_edges(faces: np.ndarray) -> dict[tuple[int, int], int]:
    """Directed edges that have no opposite edge, mapped to their face."""
    directed = {}
    for f, (a, b, c) in enumerate(faces):
        for u, v in ((a, b), (b, c), (c, a)):
            directed[(int(u), int(v))] = f
    return {e: f for e, f in directed.items() if (e[1], e[0]) not in directed}


def close_t_junctions(mesh: trimesh.Trimesh, tol: float = 1e-6) -> trimesh.Trimesh:
    """Split triangles whose edge has another face's vertex lying on it (a T-junction).

    OCCT meshes two faces that meet along geometrically equal but distinct edges independently, so one
    side of the seam may have extra vertices; splitting the other side's triangles there closes it.
    """
    faces = mesh.faces.copy()
    verts = mesh.vertices
    for _ in range(4):
        open_edges = _open_edges(faces)
        if not open_edges:
            break
        candidates = np.unique(np.array(list(open_edges)).ravel())
        replace: dict[int, list[list[int]]] = {}
        for (a, b), f in open_edges.items():
            pa, pb = verts[a], verts[b]
            d = pb - pa
            length2 = float(d @ d)
            if length2 == 0 or f in replace:
                continue
            t = (verts[candidates] - pa) @ d / length2
            foot = pa + np.outer(t, d)
            near = np.linalg.norm(verts[candidates] - foot, axis=1) < tol
            inner = near & (t > 1e-9) & (t < 1 - 1e-9)
            if not inner.any():
                continue
            chain = [a, *candidates[inner][np.argsort(t[inner])].tolist(), b]
            tri = [int(x) for x in faces[f]]
            k = tri.index(a)
            c = tri[(k + 2) % 3]  # the corner opposite edge a->b, keeping the winding
            replace[f] = [[chain[i], chain[i + 1], c] for i in range(len(chain) - 1)]
        if not replace:
            break
        keep = np.ones(len(faces), dtype=bool)
        keep[list(replace)] = False
        extra = np.array([t for tris in replace.values() for t in tris], dtype=faces.dtype)
        faces = np.vstack([faces[keep], extra])
    return trimesh.Trimesh(verts, faces, process=False)


def write_mesh(mesh: trimesh.Trimesh, path: Path) -> None:
    """Write ``mesh`` as binary STL or as 3MF (one object), by the file's extension."""
    suffix = path.suffix.lower()
    if suffix == ".stl":
        mesh.export(str(path), file_type="stl")
    elif suffix == ".3mf":
        mesh.export(str(path), file_type="3mf")
    else:
        raise ValueError(f"not a mesh format: {path}")


def load_mesh(path: Path) -> trimesh.Trimesh:
    """Read an STL or 3MF back as one mesh (a 3MF scene's objects are concatenated)."""
    loaded = trimesh.load(str(path), force="mesh", process=True)
    assert isinstance(loaded, trimesh.Trimesh)
    return loaded
