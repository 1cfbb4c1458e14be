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

from shutbox.cad.geometry.shapes import font_path

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


def raster_section(mesh: trimesh.Trimesh, z: float, window: tuple[float, float, float, float]) -> np.ndarray:
    """Where the mesh's section at height ``z`` is empty (no material) over the window (even-odd rule: a pixel
    is material when a ray from it towards +x crosses the section's outline an odd number of times)."""
    segments = np.asarray(trimesh.intersections.mesh_plane(mesh, [0, 0, 1], [0, 0, z]))[:, :, :2]
    x0, x1, y0, y1 = window
    ay, by = segments[:, 0, 1], segments[:, 1, 1]
    keep = (np.maximum(ay, by) >= y0) & (np.minimum(ay, by) <= y1) & (segments[:, :, 0].max(axis=1) >= x0)
    ax, ay, bx, by = segments[keep, 0, 0], ay[keep], segments[keep, 1, 0], by[keep]
    xs = np.arange(x0 + PIXEL / 2, x1, PIXEL)
    ys = np.arange(y0 + PIXEL / 2, y1, PIXEL)
    material = np.zeros((len(ys), len(xs)), dtype=bool)
    for i, y in enumerate(ys):  # one scan line per row: where the outline crosses it, in order
        straddle = (ay <= y) != (by <= y)
        cross = np.sort(ax[straddle] + (y - ay[straddle]) * (bx[straddle] - ax[straddle])
                        / (by[straddle] - ay[straddle]))
        material[i] = (len(cross) - np.searchsorted(cross, xs, side="right")) % 2 == 1
    return ~material


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
