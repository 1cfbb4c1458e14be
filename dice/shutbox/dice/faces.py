"""A die face around a pip: the even region of the pip's ring colour that holds it, and the face's value.

The region is grown in a window around the pip (colour within a tolerance of the ring's; a die's
shaded rounded edges and the gap between touching dice stop it) and its holes filled. Its moments
map it to a unit square (any view of a flat square is, near enough, an affine image of it), where the
pips it holds must sit on one of the six patterns, evenly sized, with no unexplained hole left.
Anything less makes the face unread, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from shutbox.dice.pips import Pip

#: Largest colour distances (``face_colours``) from the pip's ring for a pixel to be the same face, in the order
#: tried (a face that runs into the table at one is grown again at the next).
TOLERANCES = (24.0, 15.0, 9.0, 6.0)
#: Lightness is compared as a ratio: a die's side face is its top face's colour, less lit (``face_colours``).
LIGHTNESS_GAIN = 80.0
#: A die's side, in its pips' radii (about: a guess for a die whose face cannot be measured).
DIE_RADII = 11.0
#: Window half size around a seed pip, in pip radii.
WINDOW_RADII = 16.0
#: Valid faces: value -> the grid points its pips sit on, in each of the pattern's two quarter turns.
PATTERNS: dict[int, tuple[frozenset[tuple[int, int]], ...]] = {
    1: (frozenset({(0, 0)}),),
    2: (frozenset({(-1, -1), (1, 1)}), frozenset({(-1, 1), (1, -1)})),
    3: (frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(-1, 1), (0, 0), (1, -1)})),
    4: (frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1)}),),
    5: (frozenset({(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)}),),
    6: (frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)})),
}
#: Pip grid spacing in units of the visible face's side (rounded edges make the flat face look smaller).
SPACING_RANGE = (0.2, 0.42)
#: Largest distance of a pip from its grid point, in face sides.
MAX_OFFSET = 0.075
#: A face's pips are of one size, within this ratio (a pip by the face's rim is measured smaller: its outline at half
#: its depth is cut by the rim's shade).
PIP_SIZES = 1.45


@dataclass
class Face:
    """A grown face: its outline and shape, the pips inside it, and its value if it reads as one."""

    box: tuple[int, int, int, int]  #: x, y, w, h in the work image
    centre: tuple[float, float]
    side: float  #: the side of the square of the same moments, px
    aspect: float  #: minor over major axis of its moments (1 seen square on)
    minor_angle: float  #: direction of its foreshortening, radians
    pips: list[int] = field(default_factory=list)  #: indices into the pip list
    value: int | None = None
    why: str = ""  #: why it is unread
    leaked: bool = False  #: the region ran out of its window (face as the table or a neighbour)
    colour: tuple[float, float, float] = (0.0, 0.0, 0.0)  #: ``face_colours`` of the face around its pips
    seed: int = -1  #: the pip it was grown from


def face_colours(bgr: np.ndarray) -> np.ndarray:
    """The picture in the space faces are grown in: Lab, lightness as a log (equal steps are equal ratios of
    light, so a black die's dim side face stands apart from its top as a white die's does), lightly smoothed."""
    lab = cv2.cvtColor(cv2.GaussianBlur(bgr, (3, 3), 0), cv2.COLOR_BGR2LAB)
    table = (LIGHTNESS_GAIN * np.log(np.arange(256, dtype=np.float32) + 12.0)).astype(np.float32)
    out = lab.astype(np.float32)
    out[..., 0] = np.take(table, lab[..., 0].astype(np.intp))
    return out


class Scales:
    """The picture's face colours at full, half and quarter size, with the pips scaled to each: a face is grown
    where its pips are a few pixels wide, so a close-up costs what a distant view does."""

    def __init__(self, lab: np.ndarray, pips: list[Pip]) -> None:
        self.levels: list[tuple[np.ndarray, list[Pip]]] = [(lab, pips)]
        for _ in range(2):
            lab = cv2.resize(lab, (lab.shape[1] // 2, lab.shape[0] // 2), interpolation=cv2.INTER_AREA)
            f = 2 ** len(self.levels)
            self.levels.append((lab, [replace(q, x=(q.x + 0.5) / f - 0.5, y=(q.y + 0.5) / f - 0.5, major=q.major / f,
                                              minor=q.minor / f) for q in pips]))

    def level_for(self, radius: float) -> int:
        return 0 if radius < 2 * GROW_RADIUS else 1 if radius < 4 * GROW_RADIUS else 2


#: Pips are grown at the scale where their radius is under twice this, px.
GROW_RADIUS = 6.0


def grow_face(seed: int, scales: Scales) -> Face | None:
    """The face around pip ``seed``, read or with the reason it is not; None if there is no face-like region.
    Its box, centre and side are in the full-size picture's pixels."""
    level = scales.level_for(scales.levels[0][1][seed].radius)
    lab, pips = scales.levels[level]
    face = _grow(seed, pips, lab)
    if face is not None:
        face.seed = seed
    if face is not None and level:
        f = 2 ** level
        x, y, w, h = face.box
        face.box = (x * f, y * f, w * f, h * f)
        face.centre = ((face.centre[0] + 0.5) * f - 0.5, (face.centre[1] + 0.5) * f - 0.5)
        face.side *= f
    return face


def _grow(seed: int, pips: list[Pip], lab: np.ndarray) -> Face | None:
    p = pips[seed]
    height, width = lab.shape[:2]
    reach = WINDOW_RADII * p.radius
    x0, y0 = max(0, int(p.x - reach)), max(0, int(p.y - reach))
    x1, y1 = min(width, int(p.x + reach) + 1), min(height, int(p.y + reach) + 1)
    window = lab[y0:y1, x0:x1]
    distance = _distance(window, np.asarray(p.face_lab, np.float32))
    # the pips of the seed's kind within the window, where they fall in it (each face grown holds some of them)
    near = [(i, xi, yi) for i, q in enumerate(pips) if q.dark == p.dark
            and 0 <= (yi := int(round(q.y - y0))) < y1 - y0 and 0 <= (xi := int(round(q.x - x0))) < x1 - x0]
    first: Face | None = None
    for tolerance in TOLERANCES:  # tighter: a face close to the table's colour, or to its die's lit side
        face = _face_at(seed, pips, near, distance, tolerance, (x0, y0, x1, y1), (width, height), window[..., 0])
        if face is not None and face.value is not None:
            return face
        if first is None or first.leaked and face is not None:
            first = face
    return first


def _distance(window: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Each pixel's colour distance from ``colour``: ``np.linalg.norm`` over the channels, summed in its order, in a
    third of its time."""
    d = window - colour
    d *= d
    total = d[..., 0] + d[..., 1]
    total += d[..., 2]
    return np.sqrt(total, out=total)


def _face_at(seed: int, pips: list[Pip], near: list[tuple[int, int, int]], distance: np.ndarray, tolerance: float,
             window: tuple[int, int, int, int], size: tuple[int, int], light: np.ndarray) -> Face | None:
    """The face grown around pip ``seed`` with colours within ``tolerance``, read if it reads (``near``: the pips of its
    kind in the window, and where)."""
    p = pips[seed]
    x0, y0 = window[:2]
    grown = _region(p, distance < tolerance, window, size)
    if grown is None:
        return None
    region, outline, leaked = grown
    leaked = leaked or not _edged(outline, distance, tolerance)
    bx, by, bw, bh = cv2.boundingRect(outline)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, [outline], -1, 1, thickness=cv2.FILLED)
    moments = cv2.moments(filled, binaryImage=True)
    area = moments["m00"]
    if area < 30:
        return None
    cx, cy = moments["m10"] / area, moments["m01"] / area
    cov = np.array([[moments["mu20"], moments["mu11"]], [moments["mu11"], moments["mu02"]]]) / area
    values, vectors = np.linalg.eigh(cov)
    side = math.sqrt(12 * math.sqrt(max(values[0], 1e-9) * values[1]))
    face = Face((x0 + bx, y0 + by, bw, bh), (x0 + cx, y0 + cy), side, math.sqrt(max(values[0], 0) / values[1]),
                math.atan2(vectors[1, 0], vectors[0, 0]), leaked=leaked, colour=p.face_lab)
    inside = [i for i, xi, yi in near if filled[yi, xi]]
    weak = [i for i in inside if pips[i].weak]
    inside = [i for i in inside if not pips[i].weak]
    face.pips = inside
    if leaked:  # no face to measure: a die-sized square around the pip, its neighbours of a size with it
        side = DIE_RADII * p.radius
        face.pips = [i for i in inside if math.hypot(pips[i].x - p.x, pips[i].y - p.y) < side * 0.7
                     and 0.7 < pips[i].radius / p.radius < 1.4]
        face.centre, face.side, face.aspect = (p.x, p.y), side, 0.0
        face.box = (int(p.x - side / 2), int(p.y - side / 2), int(side), int(side))
        face.why = "face runs into its surroundings"
        return face
    _read(face, pips, filled, region, outline, cov, (x0, y0), light)
    if face.value is None and weak and (face.pips or p.weak):  # (a weak seed: its face is all weak pips)
        completed = _with_weak(face, weak, pips, p)
        _read(completed, pips, filled, region, outline, cov, (x0, y0), light)
        if completed.value is not None:
            face = completed
    if face.value is not None:  # its colour from all its pips' rings, not its seed's alone (a shade at one pip)
        face.colour = _median_colour([pips[i] for i in face.pips if not pips[i].weak] or [p])
    return face


def _median_colour(ps: list[Pip]) -> tuple[float, float, float]:
    """The median of the pips' ring colours, channel by channel."""
    lab = np.median(np.array([q.face_lab for q in ps]), axis=0)
    return float(lab[0]), float(lab[1]), float(lab[2])


def _with_weak(face: Face, weak: list[int], pips: list[Pip], seed: Pip) -> Face:
    """The face again with the weak pips inside it that are of a size with its found pips (a pip by the face's rim,
    or beside other pips, whose ring is even only in part), to be read once more; with none found, of a size with
    its seed (a weak pip itself: a kit's 2, whose wide pips are both by the face's rim)."""
    radii = [pips[i].radius for i in face.pips] or [seed.radius]
    like = [i for i in weak if max(radii) / WEAK_SIZE <= pips[i].radius <= min(radii) * WEAK_SIZE]
    return replace(face, pips=face.pips + like, why="")


#: A weak pip completes a face when its radius is within this ratio of each found pip's.
WEAK_SIZE = 1.3


def _region(p: Pip, near: np.ndarray, window: tuple[int, int, int, int], size: tuple[int, int]
            ) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """The region of ``near`` pixels around pip ``p`` (opened, so thin bridges to the table break), its convex
    outline, and whether it runs out of the window (the face as the table, or a neighbour of the same colour)."""
    x0, y0, x1, y1 = window
    k = max(3, int(p.radius * 0.8) | 1)
    mask = cv2.morphologyEx(near.astype(np.uint8), cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    _, labels = cv2.connectedComponents(mask, connectivity=4)
    label = _ring_label(p, labels, x0, y0)
    if label == 0:
        return None
    region = (labels == label).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = cv2.convexHull(max(contours, key=cv2.contourArea))  # a face is convex: pips on its rim are in
    bx, by, bw, bh = cv2.boundingRect(outline)
    width, height = size
    leaked = bx == 0 and x0 > 0 or by == 0 and y0 > 0 or bx + bw >= x1 - x0 and x1 < width \
        or by + bh >= y1 - y0 and y1 < height or bw >= x1 - x0 - 1 or bh >= y1 - y0 - 1
    return region, outline, leaked


def _edged(outline: np.ndarray, distance: np.ndarray, tolerance: float) -> bool:
    """Is the face ringed by a clear change of colour (a die's edge), not a slow fade (a patch of lit table)?"""
    points = outline.reshape(-1, 2).astype(np.float64)
    middle = points.mean(axis=0)
    around = np.rint(middle + (points - middle) * 1.2).astype(np.intp)
    xs = np.clip(around[:, 0], 0, distance.shape[1] - 1)
    ys = np.clip(around[:, 1], 0, distance.shape[0] - 1)
    return float(np.median(distance[ys, xs])) >= 1.3 * tolerance


#: The pip's ring the region is chosen by: 16 angles at 1.6 and at 2.0 of its major half axis.
_VOTE_COS = np.cos(np.linspace(0, 2 * math.pi, 16, endpoint=False))
_VOTE_SIN = np.sin(np.linspace(0, 2 * math.pi, 16, endpoint=False))


def _ring_label(p: Pip, labels: np.ndarray, x0: int, y0: int) -> int:
    """The region label most of the pip's ring falls in (0: none; of labels as often, the first met on the ring)."""
    xs = np.concatenate([np.rint(p.x - x0 + p.major * scale * _VOTE_COS) for scale in (1.6, 2.0)])
    ys = np.concatenate([np.rint(p.y - y0 + p.major * scale * _VOTE_SIN) for scale in (1.6, 2.0)])
    xs = np.minimum(np.maximum(xs, 0), labels.shape[1] - 1).astype(np.intp)
    ys = np.minimum(np.maximum(ys, 0), labels.shape[0] - 1).astype(np.intp)
    met = labels[ys, xs]
    votes = np.bincount(met)
    votes[0] = 0
    n = int(votes.max())
    if n < 16:
        return 0
    return int(met[np.nonzero(votes[met] == n)[0][0]])


def _read(face: Face, pips: list[Pip], filled: np.ndarray, region: np.ndarray, outline: np.ndarray,
          cov: np.ndarray, origin: tuple[int, int], light: np.ndarray) -> None:
    """Set ``face.value`` if the face and its pips pass every check, else ``face.why``. ``light``: the window's
    lightness (``face_colours``)."""
    n = len(face.pips)
    if not 1 <= n <= 6:
        face.why = f"{n} pips"
        return
    if face.aspect < 0.5:
        face.why = "seen too edge-on"
        return
    # whiten: the face's moments become those of a unit square centred on the origin
    values, vectors = np.linalg.eigh(cov)
    whiten = (vectors / np.sqrt(12 * values)) @ vectors.T
    centre = np.array(face.centre) - origin
    ring = (outline.reshape(-1, 2).astype(np.float64) - centre) @ whiten.T
    (_, _), (rw, rh), rect_angle = cv2.minAreaRect(ring.astype(np.float32))
    square_area = cv2.contourArea(ring.astype(np.float32))
    if rw * rh <= 0 or square_area / (rw * rh) < 0.78 or not 0.8 <= rw / rh <= 1.25:
        face.why = f"not square {square_area:.2f} {rw:.2f} {rh:.2f}"
        return
    a = math.radians(rect_angle)
    turn = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    spots = np.array([[pips[i].x, pips[i].y] for i in face.pips]) - origin - centre
    z = spots @ whiten.T @ turn.T
    radii = np.array([pips[i].radius for i in face.pips]) / face.side
    if radii.max() > PIP_SIZES * radii.min():
        face.why = "pips of unequal size"
        return
    biggest = 0.27 if n == 1 else 0.17
    if not 0.035 <= float(radii.mean()) <= biggest:
        face.why = "pips out of proportion to the face"
        return
    back = np.linalg.inv(turn @ whiten)  # face square -> window pixels (less ``centre``)
    value, why = _value(z, [pips[i] for i in face.pips], (filled, region, light), origin, face.side, back, centre)
    if value is None:  # a pip missed (faint, or under a glint) leaves a hole of a pip's size where it should be
        value = _completed(z, float(radii.mean()), region, filled, back, centre)
    if value is None:
        face.why = why
        return
    face.value = value


def _value(z: np.ndarray, ps: list[Pip], masks: tuple[np.ndarray, np.ndarray, np.ndarray], origin: tuple[int, int],
           side: float, back: np.ndarray, centre: np.ndarray) -> tuple[int | None, str]:
    """The value the found pips (``z``: in the face square) read as, or None and why not (``masks``: the face filled,
    the region grown, and the window's lightness). A hole in the face lit unlike a pip (a glint on a face with dark
    pips, a shade on one with light pips) that reaches none of the grid's empty points cannot be a pip missed: only
    other holes leave the face unread. (A 1 fixes no grid: any hole does.)"""
    middle = z.mean(axis=0)
    if float(np.hypot(*middle)) > 0.16:
        return None, "pips off the face's middle"
    found = _pattern(z - middle)
    if found is None:
        return None, "pips not on a die's pattern " + " ".join(f"({u:.2f},{v:.2f})" for u, v in z)
    value, step, points = found
    empty = None
    if value > 1:
        cells = np.array([(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1) if (u, v) not in points], np.float64)
        empty = (cells * step + middle) @ back.T + centre
    if _stray_holes(masks, ps, origin, side, empty):
        return None, "a mark on the face that is not a pip"
    return value, ""


#: A grid point holds a pip missed by the pip finder when this share of a pip-sized disk there is not the face's
#: colour (and the ring around it is); it is empty when at most ``EMPTY_SHARE`` is.
HOLE_SHARE = 0.8
EMPTY_SHARE = 0.12
#: The disk probed at a grid point, and the ring around it, in pip radii.
_DISK = np.array([[0.0, 0.0]] + [[r * math.cos(a), r * math.sin(a)] for r in (0.35, 0.7)
                                 for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)])
_RING = np.array([[r * math.cos(a), r * math.sin(a)] for r in (1.6, 2.0)
                  for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)])


def _completed(z: np.ndarray, radius: float, region: np.ndarray, filled: np.ndarray, back: np.ndarray,
               centre: np.ndarray) -> int | None:
    """The value of a face whose pips were not all found: its 3 x 3 grid (centred on the face, with a spacing its
    found pips fix, or each spacing when they are all in the middle) probed for pips the pip finder missed, as holes
    in the face's colour. Every grid point must be clearly a pip or clearly empty, the found pips on the grid, and
    every spacing tried give the same value; otherwise None."""
    off = np.abs(z).ravel()
    off = off[off > 0.1]  # the found pips' coordinates off the middle: each is about one spacing
    steps = [float(np.mean(off))] if len(off) else list(np.arange(SPACING_RANGE[0], SPACING_RANGE[1], 0.02))
    found: set[int] = set()
    for step in steps:
        if not SPACING_RANGE[0] <= step <= SPACING_RANGE[1]:
            return None
        grid = np.rint(z / step)
        if np.abs(grid).max() > 1 or float(np.hypot(*(z - grid * step).T).max()) > MAX_OFFSET * 1.3:
            return None
        shift = (z - grid * step).mean(axis=0)  # the grid through the found pips
        points: set[tuple[int, int]] = set()
        for u in (-1, 0, 1):
            for v in (-1, 0, 1):
                hole = _hole(np.array([u, v]) * step + shift, radius, region, filled, back, centre)
                if hole is None:
                    return None
                if hole:
                    points.add((u, v))
        if not {(int(u), int(v)) for u, v in grid} <= points or len(points) <= len(z):
            return None  # a found pip where the probe sees none, or nothing missed after all
        value = next((n for n, shapes in PATTERNS.items() if frozenset(points) in shapes), None)
        if value is None:
            return None
        found.add(value)
    return found.pop() if len(found) == 1 else None


def _hole(point: np.ndarray, radius: float, region: np.ndarray, filled: np.ndarray, back: np.ndarray,
          centre: np.ndarray) -> bool | None:
    """Is there a pip at a point of the face square (a pip-sized hole in the face's colour, ringed by it): True, False
    (the face's colour), or None (neither clearly)."""
    def share(offsets: np.ndarray) -> tuple[float, float] | None:
        xy = (point + offsets * radius) @ back.T + centre
        xs, ys = np.rint(xy[:, 0]).astype(np.intp), np.rint(xy[:, 1]).astype(np.intp)
        if xs.min() < 0 or ys.min() < 0 or xs.max() >= region.shape[1] or ys.max() >= region.shape[0]:
            return None
        inside = filled[ys, xs] > 0
        return float(np.mean(region[ys, xs] == 0)), float(np.mean(inside))

    disk = share(_DISK)
    if disk is None or disk[1] < 1:
        return None
    if disk[0] <= EMPTY_SHARE:
        return False
    if disk[0] < HOLE_SHARE:
        return None
    xy = (point + _RING * radius) @ back.T + centre
    xs = np.clip(np.rint(xy[:, 0]).astype(np.intp), 0, region.shape[1] - 1)
    ys = np.clip(np.rint(xy[:, 1]).astype(np.intp), 0, region.shape[0] - 1)
    inside = filled[ys, xs] > 0
    return bool(inside.sum() >= 6 and float(np.mean(region[ys, xs][inside] > 0)) >= 0.6)


def _pattern(z: np.ndarray) -> tuple[int, float, frozenset[tuple[int, int]]] | None:
    """The value whose pattern the pips (in unit-square face coordinates) sit on, if any, with the grid's spacing and
    the grid points the pips are on."""
    n = len(z)
    if n == 1:
        return (1, 0.0, frozenset({(0, 0)})) if float(np.hypot(*z[0])) <= MAX_OFFSET * 1.2 else None
    for step in np.arange(SPACING_RANGE[0], SPACING_RANGE[1] + 1e-9, 0.01):
        grid = np.rint(z / step)
        if np.abs(grid).max() > 1:
            continue
        points = frozenset((int(u), int(v)) for u, v in grid)
        if len(points) != n or points not in PATTERNS[n]:
            continue
        offset = np.hypot(*(z - grid * step).T)
        if float(offset.max()) <= MAX_OFFSET:
            return n, float(step), points
    return None


def _stray_holes(masks: tuple[np.ndarray, np.ndarray, np.ndarray], pips: list[Pip], origin: tuple[int, int],
                 side: float, empty: np.ndarray | None = None) -> bool:
    """Is there a hole in the face, not a pip, as large as a third of a pip (a pip missed, a mark, a glint)? With
    ``empty`` (the grid's empty points, window pixels), a hole lit unlike the pips (lighter than the face where they
    are darker) counts only within a pip's radius of one of them."""
    filled, region, light = masks
    k = max(3, int(side * 0.1) | 1)
    inner = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    holes = (inner & (1 - region)).astype(np.uint8)
    for p in pips:
        cv2.ellipse(holes, ((p.x - origin[0], p.y - origin[1]), (p.major * 3.2, p.minor * 3.2),
                            math.degrees(p.angle)), 0, thickness=cv2.FILLED)
    least = math.pi * min(p.minor * p.major for p in pips) / 3
    thin = max(3, int(min(p.minor for p in pips)) | 1)  # a crease or a rim's shading is thin; a missed pip is not
    holes = cv2.morphologyEx(holes, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thin, thin)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=8)
    marks = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= least]
    if not marks or empty is None:
        return bool(marks)
    near = np.zeros_like(holes)
    reach = max(1, round(max(p.major for p in pips)))
    for x, y in empty:
        cv2.circle(near, (round(float(x)), round(float(y))), reach, 1, thickness=cv2.FILLED)
    on_grid = set(np.unique(labels[near > 0]).tolist())
    face = float(np.median(light[(region > 0) & (filled > 0)]))
    return any(i in on_grid or (float(np.mean(light[labels == i])) < face) == pips[0].dark for i in marks)
