"""Pip-like spots: small, solid, elliptical regions that stand out from an even ring around them.

Morphological hats give the candidates (dark and light spots smaller than a kernel, at three scales);
each is kept if its shape is a filled ellipse and the ring just outside it is one even colour that
contrasts with the spot: a pip on a die face, not a fleck on a textured table or a die's dark edge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Least contrast, in grey levels, between a spot and the ring around it.
MIN_CONTRAST = 32.0
#: A ring this uneven (spread over contrast) is not a die face around a pip.
MAX_RING_SPREAD = 0.45
#: Narrowest spot, minor over major axis (a pip seen at 35 degrees above the table).
MIN_ASPECT = 0.45
RING_ANGLES = 24
#: The hats' square kernel, px: spots narrower than this are found at each scale.
HAT_SIZE = 23
#: Hat levels the spots are cut at: a low one for faint pips, higher ones where a textured or noisy table
#: joins the low level's spots into one sheet.
SPOT_LEVELS = (20, 40, 70, 110)


@dataclass(frozen=True)
class Pip:
    """A pip candidate: an ellipse (centre, half axes, major axis angle), its polarity and the face around it."""

    x: float
    y: float
    major: float  #: half axis, px
    minor: float  #: half axis, px
    angle: float  #: of the major axis, radians
    dark: bool  #: darker than its face
    contrast: float
    face_lab: tuple[float, float, float]  #: the ring's median colour (OpenCV 8-bit Lab)
    weak: bool = False  #: its ring is even only in part (a pip by a face's rim or beside other pips): see ``find_pips``

    @property
    def radius(self) -> float:
        return math.sqrt(self.major * self.minor)


def find_pips(gray: np.ndarray, lab: np.ndarray, min_radius: float = 1.8) -> list[Pip]:
    """The pip candidates in a grey image (with its Lab twin), one per spot.

    Spots are found in the black-hat (dark spots) and top-hat (light spots) of the image and of its half
    and quarter sizes, so pips from a few pixels to a close-up's wide ones are found alike; each spot's
    outline is where it is half as deep as at its deepest.

    A spot that is a pip in every way but its ring, which is even over only part of its round (a pip near the
    face's rim, whose ring crosses the die's edge, or a middle pip of a 6 beside its neighbours), is a ``weak``
    pip: it never grows a face, but may complete a face whose other pips were found (``faces``).
    """
    found: list[Pip] = []
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    level = gray
    factor = 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (HAT_SIZE, HAT_SIZE))
    while min(level.shape) >= 48 and factor <= 4:
        for dark, op in ((True, cv2.MORPH_BLACKHAT), (False, cv2.MORPH_TOPHAT)):
            hat = cv2.morphologyEx(level, op, kernel)

            def accept(points: np.ndarray, factor: int = factor, dark: bool = dark) -> bool:
                pip = _candidate(points * factor + (factor - 1) / 2, len(points) * factor ** 2, gray, lab,
                                 min_radius, dark)
                if pip is None or factor > 1 and pip.minor * 2 < HAT_SIZE * factor / 4:
                    return False
                found.append(pip)
                return not pip.weak  # a weak pip's spot is cut again: it may be a pip joined to a shade

            _spots(hat, accept)
        level = cv2.resize(level, (level.shape[1] // 2, level.shape[0] // 2), interpolation=cv2.INTER_AREA)
        factor *= 2
    return _one_per_spot(found)


def _spots(hat: np.ndarray, accept: Callable[[np.ndarray], bool], levels: Sequence[int] = SPOT_LEVELS,
           origin: tuple[int, int] = (0, 0)) -> None:
    """Offer ``accept`` each spot deeper than a level, as its pixels (x, y) where it is over half its depth; a
    region not accepted is cut again at the next level within its own box (a sheet of noisy table, or a pip
    joined to a shadow, parts)."""
    _, binary = cv2.threshold(hat, levels[0], 255, cv2.THRESH_BINARY)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    # the regions deep enough to be a pip, found at once (most of a textured table's flecks are not)
    deep = np.zeros(count, bool)
    deep[np.asarray(labels[hat >= math.ceil(MIN_CONTRAST * 0.8)], np.intp)] = True
    # and those with anything over the next level (the others hold no spot to cut again)
    deeper = np.zeros(count, bool)
    if len(levels) > 1:
        deeper[np.asarray(labels[hat > levels[1]], np.intp)] = True
    for i in np.nonzero(deep[1:] & (stats[1:, cv2.CC_STAT_AREA] >= 4))[0] + 1:
        x, y, w, h, area = stats[i]
        patch = hat[y:y + h, x:x + w]
        mine = labels[y:y + h, x:x + w] == i
        if w <= HAT_SIZE * 1.5 and h <= HAT_SIZE * 1.5:
            peak = float(patch[mine].max())
            ys, xs = np.nonzero(mine & (patch >= max(levels[0], peak / 2)))
            if accept(np.column_stack([xs + x + origin[0], ys + y + origin[1]])):
                continue
        if deeper[i] and area >= 12:  # a pip joined to a shade at this level may stand alone at the next
            _spots(np.where(mine, patch, 0).astype(np.uint8), accept, levels[1:], (origin[0] + x, origin[1] + y))


def _ellipse(points: np.ndarray) -> tuple[float, float, float, float, float] | None:
    """Centre, half axes and angle of the ellipse with the region's moments, or None for a degenerate region."""
    pts = points.astype(np.float64)
    n = len(pts)
    cx, cy = pts.mean(axis=0)
    d = pts - (cx, cy)
    sxx, syy, sxy = (float(np.dot(d[:, 0], d[:, 0])), float(np.dot(d[:, 1], d[:, 1])),
                     float(np.dot(d[:, 0], d[:, 1])))
    sxx, syy, sxy = sxx / (n - 1) + 1 / 12, syy / (n - 1) + 1 / 12, sxy / (n - 1)  # + a pixel's own spread
    half, mid = math.hypot((sxx - syy) / 2, sxy), (sxx + syy) / 2
    if mid - half <= 0:
        return None
    major, minor = 2 * math.sqrt(mid + half), 2 * math.sqrt(mid - half)
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy)
    return float(cx), float(cy), major, minor, angle


_COS = np.cos(np.linspace(0, 2 * math.pi, RING_ANGLES, endpoint=False))
_SIN = np.sin(np.linspace(0, 2 * math.pi, RING_ANGLES, endpoint=False))


def _rings(*scales: float) -> tuple[np.ndarray, np.ndarray]:
    """The unit ring's cosines and sines at each of ``scales`` (in the spot's own axes), one after the other."""
    k = np.repeat(np.asarray(scales, np.float64), RING_ANGLES)
    return k * np.tile(_COS, len(scales)), k * np.tile(_SIN, len(scales))


#: Ring scales: inside the spot, on its rim, on the face around it, and the profile across its edge.
_INSIDE = _rings(0.0, 0.3, 0.55)
_RIM = _rings(0.8)
_OUTSIDE = _rings(1.45, 1.8)
_PROFILE = np.linspace(0.3, 2.0, 18)
_ACROSS = _rings(*_PROFILE)


#: All the rings at once, and where each lies in it: inside, outside, rim, across.
_ALL = (np.concatenate([_INSIDE[0], _OUTSIDE[0], _RIM[0], _ACROSS[0]]),
        np.concatenate([_INSIDE[1], _OUTSIDE[1], _RIM[1], _ACROSS[1]]))
_AT_OUTSIDE = len(_INSIDE[0])
_AT_RIM = _AT_OUTSIDE + len(_OUTSIDE[0])
_AT_ACROSS = _AT_RIM + len(_RIM[0])


def _ring(image: np.ndarray, cx: float, cy: float, major: float, minor: float, angle: float,
          ring: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Where the ellipses of ``ring`` fall in ``image``: its rows and columns (one per point; nearest, clipped to
    the image)."""
    ca, sa = math.cos(angle), math.sin(angle)
    u, v = major * ring[0], minor * ring[1]
    xs = np.minimum(np.maximum(np.rint(cx + u * ca - v * sa), 0), image.shape[1] - 1).astype(np.intp)
    ys = np.minimum(np.maximum(np.rint(cy + u * sa + v * ca), 0), image.shape[0] - 1).astype(np.intp)
    return ys, xs


def _middle(values: np.ndarray) -> float:
    """The median of a few grey levels (as ``np.median``, a good deal quicker on so few)."""
    s = np.sort(values)
    n = len(s)
    return (float(s[n // 2 - 1]) + float(s[n // 2])) / 2 if n % 2 == 0 else float(s[n // 2])


def _candidate(points: np.ndarray, area: int, gray: np.ndarray, lab: np.ndarray, min_radius: float,
               dark: bool) -> Pip | None:
    if len(points) < 4:
        return None
    ellipse = _ellipse(points)
    if ellipse is None:
        return None
    cx, cy, major, minor, angle = ellipse
    if minor < min_radius * 0.8 or minor / major < MIN_ASPECT:
        return None
    if area >= 12 and not 0.75 <= area / (math.pi * major * minor) <= 1.25:
        return None
    ys, xs = _ring(gray, cx, cy, major, minor, angle, _ALL)  # every ring sampled at once: one call, not four
    samples = gray[ys, xs]
    inside = _middle(samples[:_AT_OUTSIDE])
    grey_ring = samples[_AT_OUTSIDE:_AT_RIM]
    ring = grey_ring.astype(np.float32)
    level = np.sort(grey_ring)
    outside = (float(level[len(level) // 2 - 1]) + float(level[len(level) // 2])) / 2
    contrast = abs(outside - inside)
    if contrast < MIN_CONTRAST or dark != (inside < outside):
        return None
    rim = _middle(samples[_AT_RIM:_AT_ACROSS])
    if (rim - outside) / (inside - outside) < 0.4:
        return None  # a soft glow (a lamp's glint), not a pip's edge
    nearest = float(level[0]) if dark else float(level[-1])
    # uneven, or running into something as dark (light) as itself: not an island on a face
    weak = abs(nearest - inside) < 0.35 * contrast or _spread(ring, level, contrast)
    if weak and not _partly_even(ring, outside, contrast, area / (math.pi * major * minor)):
        return None
    across = samples[_AT_ACROSS:].reshape(len(_PROFILE), RING_ANGLES)
    if _edge_width(across, minor, inside, outside) > max(3.0, 0.4 * math.sqrt(major * minor)):
        return None  # a soft glow (a lamp's glint on the table), not a pip's edge
    ring_lab = lab[ys[_AT_OUTSIDE:_AT_RIM], xs[_AT_OUTSIDE:_AT_RIM]]
    if weak:  # the face's colour from the even part of the ring only
        ring_lab = ring_lab[np.abs(ring - outside) <= WEAK_EVEN * contrast]
    face = np.median(ring_lab, axis=0)
    return Pip(cx, cy, major, minor, angle, dark, contrast, (float(face[0]), float(face[1]), float(face[2])), weak)


def _spread(ring: np.ndarray, level: np.ndarray, contrast: float) -> bool:
    """Is the ring uneven: its 10th to 90th percentile wider than ``MAX_RING_SPREAD`` of the contrast? (``level``: the
    ring sorted; the percentiles lie between its neighbouring values, which mostly settle it without them.)"""
    n = len(level)
    limit = np.float32(MAX_RING_SPREAD * contrast)  # as numpy compares the float32 percentiles
    k, m = int(0.1 * (n - 1)), int(0.9 * (n - 1))
    if np.float32(float(level[m]) - float(level[k + 1])) > limit:
        return True
    if np.float32(float(level[m + 1]) - float(level[k])) <= limit:
        return False
    lo, hi = np.percentile(ring, [10, 90])
    return bool(hi - lo > MAX_RING_SPREAD * contrast)


#: A weak pip: the share of its ring's angles that must be even (both rings within ``WEAK_EVEN`` of the contrast from
#: the ring's median), and how filled its ellipse must be (area over the ellipse's).
WEAK_SHARE = 0.5
WEAK_EVEN = 0.2
WEAK_FILL = (0.85, 1.15)


def _partly_even(ring: np.ndarray, outside: float, contrast: float, fill: float) -> bool:
    """Is a spot whose ring is uneven a weak pip: a filled ellipse whose ring is even over at least ``WEAK_SHARE`` of
    its angles (the rest crosses the die's edge, or a neighbouring pip)?"""
    if not WEAK_FILL[0] <= fill <= WEAK_FILL[1]:
        return False
    even = np.abs(ring.reshape(-1, RING_ANGLES) - outside).max(axis=0) <= WEAK_EVEN * contrast
    return float(np.mean(even)) >= WEAK_SHARE


def _edge_width(across: np.ndarray, minor: float, inside: float, outside: float) -> float:
    """How far (px, along the minor axis) the spot takes to fade from three quarters of its depth to a quarter
    (``across``: the grey levels on the rings of ``_PROFILE``, one row each)."""
    row = np.sort(across, axis=1)
    half = RING_ANGLES // 2
    levels = (row[:, half - 1].astype(np.float64) + row[:, half]) / 2  # each ring's median
    depth = (levels - outside) / (inside - outside)
    over = np.nonzero(depth >= 0.75)[0]
    start = int(over[-1]) if len(over) else 0
    under = np.nonzero(depth[start:] <= 0.25)[0]
    if not len(under):
        return math.inf
    return float(_PROFILE[start + int(under[0])] - _PROFILE[start]) * minor


def _one_per_spot(pips: list[Pip]) -> list[Pip]:
    """Of nested candidates sharing a centre and a size, the largest (a pip is found at more than one level)."""
    kept: list[Pip] = []
    for pip in sorted(pips, key=lambda p: (p.weak, -p.major * p.minor)):
        if all(math.hypot(pip.x - k.x, pip.y - k.y) > k.minor or k.radius > 1.6 * pip.radius for k in kept):
            kept.append(pip)
    return kept
