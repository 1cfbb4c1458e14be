"""Reading the engraved numbers back from a mesh and comparing them with the font's own glyphs.

The expected glyphs come from matplotlib's FreeType outlines of the shipped font (independent of
CadQuery's text builder); the engraving is read from a horizontal section of the mesh. Both become
rasters over the same window; their overlap (IoU) says whether the right number is cut, and a
morphological opening says whether every stroke is at least the minimum width.
"""

from __future__ import annotations

import numpy as np
import trimesh
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextPath
from scipy import ndimage

from shutbox.cad.shapes import font_path

PIXEL = 0.05  # mm


def glyph_polygons(label: str, size: float, x: float, y: float) -> list[np.ndarray]:
    """Outlines of ``label`` at font size ``size``, its glyph box centred on (x, y)."""
    path = TextPath((0, 0), label, size=size, prop=FontProperties(fname=str(font_path())))
    polys = [poly for poly in (np.asarray(p) for p in path.to_polygons()) if len(poly) >= 3]
    pts = np.vstack(polys)
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    return [p - centre + np.array([x, y]) for p in polys]


def _grid(window: tuple[float, float, float, float]) -> tuple[np.ndarray, tuple[int, int]]:
    x0, x1, y0, y1 = window
    xs = np.arange(x0 + PIXEL / 2, x1, PIXEL)
    ys = np.arange(y0 + PIXEL / 2, y1, PIXEL)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()]), (len(ys), len(xs))


def raster_polygons(polys: list[np.ndarray], window: tuple[float, float, float, float]) -> np.ndarray:
    """Even-odd fill of closed polygons over the window."""
    pts, shape = _grid(window)
    inside = np.zeros(len(pts), dtype=bool)
    for poly in polys:
        inside ^= MplPath(poly).contains_points(pts)
    return inside.reshape(shape)


def _crossings(seg: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """How many segments a ray from each point towards +x crosses."""
    ax, ay = seg[:, 0, 0], seg[:, 0, 1]
    bx, by = seg[:, 1, 0], seg[:, 1, 1]
    straddle = (ay <= py) != (by <= py)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross_x = ax + (py - ay) * (bx - ax) / (by - ay)
    return np.sum(straddle & (cross_x > px), axis=1)


def raster_section(mesh: trimesh.Trimesh, z: float, window: tuple[float, float, float, float]) -> np.ndarray:
    """Where the mesh's section at height ``z`` is empty (no material) over the window (even-odd rule)."""
    segments = np.asarray(trimesh.intersections.mesh_plane(mesh, [0, 0, 1], [0, 0, z]))[:, :, :2]
    x0, x1, y0, y1 = window
    lo = segments.min(axis=1)
    hi = segments.max(axis=1)
    rows = (hi[:, 1] >= y0) & (lo[:, 1] <= y1) & (hi[:, 0] >= x0)
    near = segments[rows & (lo[:, 0] <= x1)]
    far = segments[rows & (lo[:, 0] > x1)]  # wholly right of the window: the same for a whole row
    pts, shape = _grid(window)
    row_y = pts[:: shape[1], 1:2]
    far_count = np.repeat(_crossings(far, np.full_like(row_y, x1), row_y), shape[1])
    crossings = _crossings(near, pts[:, 0:1], pts[:, 1:2]) + far_count
    material = crossings % 2 == 1
    return (~material).reshape(shape)


def compare(mesh: trimesh.Trimesh, label: str, size: float, x: float, y: float, z_top: float,
            depth: float) -> tuple[float, float]:
    """(IoU of the engraving with the expected glyphs, share of the engraving left by a 0.6 mm opening)."""
    polys = glyph_polygons(label, size, x, y)
    pts = np.vstack(polys)
    margin = 0.8
    window = (pts[:, 0].min() - margin, pts[:, 0].max() + margin, pts[:, 1].min() - margin, pts[:, 1].max() + margin)
    expected = raster_polygons(polys, window)
    actual = raster_section(mesh, z_top - depth / 2, window)
    union = np.logical_or(expected, actual).sum()
    iou = float(np.logical_and(expected, actual).sum() / union) if union else 0.0
    radius = int(round(0.3 / PIXEL))
    yy, xx = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    disk = xx * xx + yy * yy <= radius * radius
    opened = ndimage.binary_opening(actual, structure=disk)
    kept = float(opened.sum() / actual.sum()) if actual.sum() else 0.0
    return iou, kept
