"""PNG previews of parts and of the assembly, drawn headless with Pillow (flat-shaded, painter's order)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import trimesh
from PIL import Image, ImageDraw

LIGHT = np.array([0.35, -0.55, 0.75])
BACKGROUND = (250, 250, 247)


def _view_matrix(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """Rows: screen right, screen up, towards the viewer (an orthographic camera)."""
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    eye = np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])
    right = np.cross([0.0, 0.0, 1.0], eye)
    right /= np.linalg.norm(right)
    up = np.cross(eye, right)
    return np.vstack([right, up, eye])


def render(meshes: Sequence[tuple[trimesh.Trimesh, tuple[int, int, int]]], path: Path, size: int = 900,
           azimuth: float = -30.0, elevation: float = 35.0) -> None:
    """Draw coloured meshes (in one frame) into a square PNG at ``path``."""
    view = _view_matrix(azimuth, elevation)
    light = LIGHT / np.linalg.norm(LIGHT)
    polys, depths, colours = [], [], []
    extent = max(float(np.max(m.bounds[1] - m.bounds[0])) for m, _ in meshes)
    for mesh, colour in meshes:
        # Small triangles keep painter's order honest where big faces meet small ones.
        verts, faces = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces, max_edge=extent / 35,
                                                        max_iter=12)
        mesh = trimesh.Trimesh(verts, faces, process=False)
        tri = mesh.triangles @ view.T  # (n, 3, 3): screen x, y, depth
        normals = mesh.face_normals @ view.T
        facing = normals[:, 2] > 0
        shade = 0.35 + 0.65 * np.clip(mesh.face_normals @ light, 0.0, 1.0)
        base = np.array(colour, dtype=float)
        cols = (base[None, :] * shade[:, None]).clip(0, 255).astype(int)
        polys.append(tri[facing][:, :, :2])
        depths.append(tri[facing][:, :, 2].mean(axis=1))
        colours.append(cols[facing])
    pts = np.concatenate(polys)
    depth = np.concatenate(depths)
    col = np.concatenate(colours)
    scale_img = 2  # draw large, then shrink: cheap anti-aliasing
    canvas = size * scale_img
    lo = pts.reshape(-1, 2).min(axis=0)
    hi = pts.reshape(-1, 2).max(axis=0)
    scale = 0.9 * canvas / max(hi - lo)
    centre = (lo + hi) / 2
    screen = (pts - centre) * scale
    screen[:, :, 1] *= -1
    screen += canvas / 2
    image = Image.new("RGB", (canvas, canvas), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for i in np.argsort(depth):
        tri = screen[i]
        c = tuple(int(v) for v in col[i])
        draw.polygon([(tri[0, 0], tri[0, 1]), (tri[1, 0], tri[1, 1]), (tri[2, 0], tri[2, 1])], fill=c, outline=c)
    image.resize((size, size), Image.LANCZOS).save(path, optimize=True)
