"""Faces read from their pips alone, where a face has no outline (a die on a table of its own colour, or
touching a die of its colour): the pips of one face sit on a square 3 x 3 grid, seen through the same
foreshortening as each pip's own ellipse.

The pips are whitened by their ellipses' mean shape (each pip becomes a circle, the face's grid a square
one), and each pair of similar pips proposes a grid: its spacing and turn. A grid is a face when the pips
on its 3 x 3 points are one of the six patterns, no other pip lies on the face, the spacing is in
proportion to the pips, the grid's empty points hold no faint spot, and the face is one even colour
(no seam of two touching dice crosses it). A lone pip is a 1 only on an even patch several pips wide.
Anything less stays unread.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import median  # small lists: much quicker than numpy's, the same value

import numpy as np

from shutbox.dice.faces import PATTERNS
from shutbox.dice.pips import Pip

#: Grid spacing in pip radii (whitened): from big pips close together to small pips far apart.
SPACING_RADII = (1.9, 4.6)
#: Largest distance of a pip from its grid point, in grid spacings.
MAX_OFFSET = 0.22
#: Pips of one face: radii within this ratio, ring colours within this distance (``face_colours``).
SIZE_RATIO = 1.3
COLOUR_DISTANCE = 22.0
#: The face reaches this far from its centre, in grid spacings (a pip sits about 0.6 spacings in from the edge).
FACE_REACH = 1.5
#: The even face: a pixel differs from the face by more than this share of the pips' contrast (at least
#: ``LEAST_STEP`` grey levels) is uneven; at most ``UNEVEN_SHARE`` of the face may be.
UNEVEN_STEP = 0.25
LEAST_STEP = 16.0
UNEVEN_SHARE = 0.03
#: No other pip of the face's kind lies this near the face's centre (in grid steps, along either axis): a pip of
#: a neighbour touching it is at least two pip margins past the face's corner pips.
CLEAR_REACH = 2.3
#: A face of two pips is one diagonal pair: it could be a part of a face whose other pips were missed, so no
#: pip of its kind may be this near (a 2 touching another die is left unread).
CLEAR_REACH_TWO = 3.6
#: A lone pip (a 1): the even patch around it, in pip radii.
LONE_REACH = 4.5
#: A lone pip on an even patch this many radii around, though not ``LONE_REACH``, is a die seen (a large 1's pip).
LONE_NEAR = 2.6
#: A lone pip has no pip of its kind this near, in its radii: as far as a 2's two pips can be apart.
LONE_CLEAR = math.hypot(2, 2) * SPACING_RADII[1]
#: Offsets between two pips of one face, in grid steps: (along, across) a grid axis.
PAIR_STEPS = ((1, 0), (1, 1), (2, 0), (2, 1), (2, 2))


@dataclass(frozen=True)
class PipFace:
    """A face read from its pips: its value (0: seen, not read), the pips (indices), its centre, grid axes (px per
    grid step), the pips' mean roundness (minor over major axis), and its colour (the pips' ring colour)."""

    value: int
    pips: tuple[int, ...]
    centre: tuple[float, float]
    axes: np.ndarray  #: 2 x 2, columns: the grid's two steps in pixels
    aspect: float
    colour: tuple[float, float, float]
    large: bool = False  #: a lone pip clear of pips of its kind, even only near around (a large 1's pip, or not a 1)

    @property
    def side(self) -> float:
        """About the die's side, px: the face reaches ``FACE_REACH`` grid steps either way of its centre."""
        return 2 * FACE_REACH * math.sqrt(abs(float(np.linalg.det(self.axes))))

    @property
    def box(self) -> tuple[int, int, int, int]:
        corners = np.array([[u, v] for u in (-FACE_REACH, FACE_REACH) for v in (-FACE_REACH, FACE_REACH)]) @ self.axes.T
        x0, y0 = corners.min(axis=0) + self.centre
        x1, y1 = corners.max(axis=0) + self.centre
        return int(x0), int(y0), int(math.ceil(x1 - x0)), int(math.ceil(y1 - y0))


def read_pip_faces(pips: list[Pip], candidates: list[int], gray: np.ndarray,
                   explained: frozenset[int] = frozenset(), lab: np.ndarray | None = None) -> list[PipFace]:
    """The faces read from the ``candidates`` pips alone (each pip in one face at most; a pip two readings
    disagree on is in none). A face of value 0 is a die seen but not read (a lone pip near others). ``explained``:
    pips of faces read already (a lone pip near them is not a part of their face); ``lab``: the picture's
    ``face_colours``, where a lone pip's face must be one colour.

    The pips left over once some faces read are tried again without those faces' pips: a face touching a die read
    from its pips has that die's pips just off it, which are no part of it."""
    rims: dict[int, np.ndarray | None] = {}
    faces, proposed = _grid_faces(pips, candidates, gray, explained, rims)
    if faces:
        used = frozenset(i for f in faces for i in f.pips)
        more, proposed_more = _grid_faces(pips, [i for i in candidates if i not in used], gray, explained | used, rims)
        faces, proposed = _unshared(faces + more), proposed | proposed_more
    explained = explained | {i for f in faces for i in f.pips}
    for i in candidates:
        if i not in proposed:
            face = _lone_pip(i, pips, gray, explained, lab)
            if face is not None:
                faces.append(face)
    return _unshared(faces)


def _grid_faces(pips: list[Pip], candidates: list[int], gray: np.ndarray, explained: frozenset[int],
                rims: dict[int, np.ndarray | None]) -> tuple[list[PipFace], set[int]]:
    """The faces on a grid two of the ``candidates`` propose (none that share a pip), and every pip in a face
    proposed. ``rims``: each pip's surroundings sampled (``_rim``), kept for the next face that holds it."""
    found: dict[frozenset[int], PipFace] = {}
    # a weak pip (``find_pips``) may complete a face, not propose one
    members = candidates + [k for k, q in enumerate(pips) if q.weak and k not in explained]
    for i in candidates:
        for j in candidates:
            if j <= i or not _alike(pips[i], pips[j]):
                continue
            for face in _faces_from_pair(i, j, pips, members, gray, rims):
                found.setdefault(frozenset(face.pips), face)
    return _unshared(list(found.values())), {i for key in found for i in key}


def _unshared(faces: list[PipFace]) -> list[PipFace]:
    """The faces that share no pip with another (two readings that disagree on a pip are both dropped)."""
    return [f for f in faces if not any(g is not f and set(g.pips) & set(f.pips) for g in faces)]


def _alike(p: Pip, q: Pip) -> bool:
    return p.dark == q.dark and max(p.radius, q.radius) <= SIZE_RATIO * min(p.radius, q.radius) \
        and math.dist(p.face_lab, q.face_lab) <= COLOUR_DISTANCE


def _shape(ps: list[Pip]) -> np.ndarray:
    """The mean shape of pips' ellipses: a 2 x 2 matrix that maps a unit circle onto a pip of mean radius."""
    total = np.zeros((2, 2))
    for p in ps:
        c, s = math.cos(p.angle), math.sin(p.angle)
        rot = np.array([[c, -s], [s, c]])
        total += rot @ np.diag([p.major / p.radius, p.minor / p.radius]) @ rot.T
    values, vectors = np.linalg.eigh(total / len(ps))
    values = values / math.sqrt(values[0] * values[1])  # unit area
    radius = float(np.mean([p.radius for p in ps]))
    return radius * (vectors @ np.diag(values) @ vectors.T)


def _faces_from_pair(i: int, j: int, pips: list[Pip], candidates: list[int], gray: np.ndarray,
                     rims: dict[int, np.ndarray | None]) -> list[PipFace]:
    """The faces whose grid is proposed by pips ``i`` and ``j`` at each of ``PAIR_STEPS`` apart."""
    p, q = pips[i], pips[j]
    shape = _shape([p, q])
    unshape = np.linalg.inv(shape)
    delta = unshape @ np.array([q.x - p.x, q.y - p.y])  # in pip radii, pips as circles
    distance = float(np.hypot(*delta))
    if distance > SPACING_RADII[1] * math.hypot(2, 2) * 1.1 or distance < SPACING_RADII[0] * 0.9:
        return []
    near = [k for k in candidates if _alike(p, pips[k])]
    spots = np.array([[pips[k].x - p.x, pips[k].y - p.y] for k in near]) @ unshape.T
    out: list[PipFace] = []
    for along, across in PAIR_STEPS:
        step = distance / math.hypot(along, across)
        if not SPACING_RADII[0] <= step <= SPACING_RADII[1]:
            continue
        turn = math.atan2(delta[1], delta[0]) - math.atan2(across, along)
        c, s = math.cos(turn), math.sin(turn)
        grid = spots @ np.array([[c, -s], [s, c]]) / step  # grid coordinates, pip i at (0, 0), j at (along, across)
        axes = shape @ np.array([[c, -s], [s, c]]) * step  # grid steps -> pixels
        for ou in range(-2, 1):
            for ov in range(-2, 1):
                if not (ou <= 0 <= ou + 2 and ov <= 0 <= ov + 2 and ou <= along <= ou + 2 and ov <= across <= ov + 2):
                    continue
                face = _face_on_grid(grid - (ou + 1, ov + 1), near, pips, axes, step, gray, rims)
                if face is not None:
                    out.append(face)
    return out


def _face_on_grid(grid: np.ndarray, near: list[int], pips: list[Pip], axes: np.ndarray, step: float,
                  gray: np.ndarray, rims: dict[int, np.ndarray | None]) -> PipFace | None:
    """The face centred on grid point (0, 0) (``grid``: the nearby pips in grid steps from it), if it reads."""
    reach = np.max(np.abs(grid), axis=1)
    on_face = reach <= FACE_REACH
    clear = CLEAR_REACH_TWO if int(on_face.sum()) == 2 else CLEAR_REACH
    if np.any((reach > FACE_REACH) & (reach < clear) & ~_side_pips(near, on_face, pips)):
        return None  # a pip just off the face: the grid is a part of a larger face, or of two dice
    points = np.rint(grid[on_face])
    if np.abs(points).max(initial=0) > 1 or np.hypot(*(grid[on_face] - points).T).max(initial=0) > MAX_OFFSET:
        return None  # a pip on the face off the grid
    cells = frozenset((int(u), int(v)) for u, v in points)
    n = int(on_face.sum())
    if len(cells) != n or n not in PATTERNS or cells not in PATTERNS[n]:
        return None
    members = tuple(k for k, inside in zip(near, on_face, strict=True) if inside)
    ps = [pips[k] for k in members]
    offset = np.mean([[q.x, q.y] for q in ps], axis=0) - np.mean(points, axis=0) @ axes.T
    centre = (float(offset[0]), float(offset[1]))
    others = np.array([[q.x, q.y] for k, q in enumerate(pips) if k not in members and not q.weak]).reshape(-1, 2)
    off = np.abs((others - centre) @ np.linalg.inv(axes).T).max(axis=1)
    side = 2 * FACE_REACH * math.sqrt(abs(float(np.linalg.det(axes))))
    die = np.array([_die_seen(q, ps[0]) and q.major <= DIE_WHOLE * side
                    for k, q in enumerate(pips) if k not in members and not q.weak], bool)
    if np.any((off <= FACE_REACH) & ~die):
        return None  # another spot on the face (of the other kind, or unlike its pips): not a clean face
    contrast = float(median([q.contrast for q in ps]))
    if not _even(gray, centre, axes, lambda: [_rim(gray, k, pips[k], rims) for k in members], cells, contrast, step):
        return None
    aspect = float(median([q.minor / q.major for q in ps]))
    colour = tuple(float(median([q.face_lab[c] for q in ps])) for c in range(3))
    return PipFace(n, members, centre, axes, aspect, (colour[0], colour[1], colour[2]))


#: Sample points of the face, in grid steps (a 25 x 25 lattice over the face).
_LATTICE = np.stack(np.meshgrid(np.linspace(-1.3, 1.3, 25), np.linspace(-1.3, 1.3, 25)), axis=-1).reshape(-1, 2)
#: Around a pip, in its radii: the face next to it.
_RIM = 1.7 * np.stack([np.cos(np.linspace(0, 2 * math.pi, 16, endpoint=False)),
                       np.sin(np.linspace(0, 2 * math.pi, 16, endpoint=False))], axis=-1)
_CELLS = [(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1)]


def _rim(gray: np.ndarray, k: int, q: Pip, rims: dict[int, np.ndarray | None]) -> np.ndarray | None:
    """The grey levels of the face just around pip ``k`` (None: off the picture), sampled once per pip."""
    if k not in rims:
        rims[k] = _sample(gray, (q.x, q.y), _shape([q]), _RIM)
    return rims[k]


def _even(gray: np.ndarray, centre: tuple[float, float], axes: np.ndarray,
          around: Callable[[], list[np.ndarray | None]],
          cells: frozenset[tuple[int, int]], contrast: float, step: float) -> bool:
    """Is the face, away from its pips, one even colour (and that of each pip's surroundings, ``around``), with no
    faint spot on its empty grid points? (``around`` samples them, once the face is found even.)"""
    pip_reach = 1.6 / step  # a pip's radius is 1 / step grid steps; its shaded rim a little more
    keep = np.ones(len(_LATTICE), bool)
    for u, v in cells:
        keep &= np.hypot(_LATTICE[:, 0] - u, _LATTICE[:, 1] - v) > pip_reach
    samples = _sample(gray, centre, axes, _LATTICE[keep])
    if samples is None:
        return False
    face = float(np.median(samples))
    limit = max(LEAST_STEP, UNEVEN_STEP * contrast)
    if float(np.mean(np.abs(samples - face) > limit)) > UNEVEN_SHARE:
        return False
    sampled = around()
    rims = [r for r in sampled if r is not None]
    if len(rims) < len(sampled) or abs(float(np.median(np.concatenate(rims))) - face) > limit:
        return False  # the pips' own surroundings are not this face's colour
    return _no_faint_spots(gray, centre, axes, cells, step)


#: A spot's disk and the ring around it, in pip radii.
_DISK = np.array([[0.0, 0.0]] + [[0.5 * math.cos(a), 0.5 * math.sin(a)] for a in np.linspace(0, 2 * math.pi, 8,
                                                                                            endpoint=False)])
_AROUND = np.stack([np.cos(np.linspace(0, 2 * math.pi, 16, endpoint=False)),
                          np.sin(np.linspace(0, 2 * math.pi, 16, endpoint=False))], axis=-1)
#: An empty grid point is a missed pip when its spot is this share of the face's pips' own, or at least
#: ``FAINT_LEVELS`` grey levels (a pip too faint to be found as one, under ``pips.MIN_CONTRAST``).
FAINT_SPOT = 0.25
FAINT_LEVELS = 10.0
#: A 3 (a diagonal of three) is the middle column of a 6 if one of the 6's other columns shows (all three of its
#: grid points): the two columns' points.
_SIX_COLUMNS = (((1, -3), (2, -2), (3, -1)), ((-3, 1), (-2, 2), (-1, 3)))
#: ... when its three spots are alike (the largest at most this many times the least): pips missed alike, not the die's
#: shaded edge or a neighbour, which the column's points reach past a 3's face.
SIX_ALIKE = 2.0


#: The ring a spot is measured against, in grid steps from its centre (inside the face, clear of the next point).
SPOT_RING = 0.55


def _spots(gray: np.ndarray, centre: tuple[float, float], axes: np.ndarray, step: float,
           cells: list[tuple[int, int]]) -> list[float | None]:
    """How far a pip-sized disk at each grid point differs from the ring around it, in grey levels (None: off the
    picture): all the points sampled at once."""
    disk_at = _DISK @ (axes / step).T  # the disk's and the ring's offsets, as each point's own would be
    ring_at = _AROUND @ (axes * SPOT_RING).T
    points = [np.array(c) @ axes.T + centre for c in cells]
    xy = np.concatenate([np.stack([disk_at + c for c in points]), np.stack([ring_at + c for c in points])], axis=1)
    xs, ys = np.rint(xy[..., 0]).astype(np.intp), np.rint(xy[..., 1]).astype(np.intp)
    inside = (xs.min(axis=1) >= 0) & (ys.min(axis=1) >= 0) & (xs.max(axis=1) < gray.shape[1]) \
        & (ys.max(axis=1) < gray.shape[0])
    levels = gray[np.clip(ys, 0, gray.shape[0] - 1), np.clip(xs, 0, gray.shape[1] - 1)].astype(np.float32)
    disk = np.mean(levels[:, :len(_DISK)], axis=1)
    ring = np.sort(levels[:, len(_DISK):], axis=1)
    half = len(_AROUND) // 2
    return [abs(float(disk[k]) - (float(ring[k, half - 1]) + float(ring[k, half])) / 2) if inside[k] else None
            for k in range(len(cells))]


def _no_faint_spots(gray: np.ndarray, centre: tuple[float, float], axes: np.ndarray,
                    cells: frozenset[tuple[int, int]], step: float) -> bool:
    """Do the face's empty grid points (and for a 3, a 6's other columns, three alike spots) hold no spot a fraction as
    clear as its pips (a pip too faint or blurred to be found)?"""
    empty = [c for c in _CELLS if c not in cells]
    columns = [c for column in _SIX_COLUMNS for c in column] if len(cells) == 3 else []
    found = _spots(gray, centre, axes, step, [*cells, *empty, *columns])
    own, found = found[:len(cells)], found[len(cells):]
    if any(o is None for o in own):
        return False
    least = max(0.6 * FAINT_LEVELS, min(FAINT_LEVELS, FAINT_SPOT * float(median([o for o in own if o is not None]))))
    for spot in found[:len(empty)]:
        if spot is None or spot > least:
            return False
    for k in range(len(columns) // 3):
        spots = found[len(empty) + 3 * k:len(empty) + 3 * k + 3]
        shown = [spot for spot in spots if spot is not None and spot > least]
        if len(shown) == 3 and max(shown) <= SIX_ALIKE * min(shown):
            return False
    return True


def _sample(gray: np.ndarray, centre: tuple[float, float], axes: np.ndarray, grid: np.ndarray) -> np.ndarray | None:
    """Grey levels at grid points (nearest pixel); None if any falls outside the picture."""
    xy = grid @ axes.T + centre
    xs, ys = np.rint(xy[:, 0]).astype(np.intp), np.rint(xy[:, 1]).astype(np.intp)
    if xs.min() < 0 or ys.min() < 0 or xs.max() >= gray.shape[1] or ys.max() >= gray.shape[0]:
        return None
    return gray[ys, xs].astype(np.float32)


#: A pixel of a lone pip's patch whose chroma (``face_colours`` a and b) is this far from the patch's median is of
#: another colour: another face or the table (a die's face is one colour; a JPEG's chroma is blurred and noisy, so a
#: patch may have this share of such pixels).
CHROMA_STEP = 10.0
CHROMA_SHARE = 0.15


def _off_colour(lab: np.ndarray, centre: tuple[float, float], axes: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Which grid points' chroma is ``CHROMA_STEP`` or more from the median of theirs (nearest pixel, clipped)."""
    xy = grid @ axes.T + centre
    xs = np.clip(np.rint(xy[:, 0]).astype(np.intp), 0, lab.shape[1] - 1)
    ys = np.clip(np.rint(xy[:, 1]).astype(np.intp), 0, lab.shape[0] - 1)
    ab = lab[ys, xs, 1:]
    return np.hypot(*(ab - np.median(ab, axis=0)).T) > CHROMA_STEP


#: A spot of the other kind this many times a pip's radius, around it, is its die seen as a spot on the table.
DIE_SPOT = 3.0
#: ... on a face read from its pips, when it is no larger than a die (its ellipse's major half axis at most this share
#: of the face's side, of three grid steps; its shaded edges and a side face seen below the top add to it): a die holds
#: one face, so a spot around two touching dice does not count.
DIE_WHOLE = 1.25
#: A pip seen this much flatter (minor over major axis) than a top face's pip is on a side face: no part of that top.
SIDE_FLATTER = 0.15


def _die_seen(q: Pip, p: Pip) -> bool:
    """Could spot ``q`` be the die of pip ``p`` seen whole, as a spot of the other kind on the table (``DIE_SPOT`` times
    its size or more)?"""
    return q.dark != p.dark and q.radius >= DIE_SPOT * p.radius


def _side_pips(near: list[int], on_face: np.ndarray, pips: list[Pip]) -> np.ndarray:
    """Which of the ``near`` pips are on a side face, seen from the face's pips (``on_face``): much flatter than the
    flattest of them (``_side_pip``). Such a pip just off the face is no part of a larger face seen as this one."""
    own = [pips[k] for k, inside in zip(near, on_face, strict=True) if inside]
    flattest = min(own, key=lambda q: q.minor / q.major)
    return np.array([_side_pip(pips[k], flattest) for k in near], bool)


def _side_pip(q: Pip, p: Pip) -> bool:
    """Is pip ``q`` on a side face, seen from pip ``p``: much flatter (a face turned away), not of ``p``'s face?"""
    return q.minor / q.major < p.minor / p.major - SIDE_FLATTER


def lone_one(i: int, pips: list[Pip], gray: np.ndarray, explained: frozenset[int], lab: np.ndarray) -> bool:
    """Is pip ``i`` read as a 1 on its own (``_lone_pip``), the pips of faces read (``explained``) no other die's?"""
    face = _lone_pip(i, pips, gray, explained, lab)
    return face is not None and face.value == 1


def _lone_pip(i: int, pips: list[Pip], gray: np.ndarray, explained: frozenset[int] = frozenset(),
              lab: np.ndarray | None = None) -> PipFace | None:
    """A 1: a pip with no other pip near it, on an even patch ``LONE_REACH`` radii across; value 0 (a die seen, not
    read) when a pip of its kind (or a weak pip of its size) is as near as a 2's other pip could be, unless that pip is
    of a face read already (``explained``) or seen much flatter (on a side face): then it is not this face's. A pip
    clear of others whose even patch reaches only ``LONE_NEAR`` radii is a die seen, ``large`` (a 1's large pip, whose
    die is not as wide as ``LONE_REACH``: the reader weighs it against the other dice's pips). The patch must be even in
    grey, and with ``lab`` of one colour, else the pip is a die seen (a side face's pip has the table, of another
    colour, within its patch)."""
    p = pips[i]
    shape = _shape([p])
    unshape = np.linalg.inv(shape)
    value = 1
    for k, q in enumerate(pips):
        if k == i or _die_seen(q, p):
            continue  # the die itself, seen as a spot of the other kind on the table
        d = float(np.hypot(*(unshape @ np.array([q.x - p.x, q.y - p.y]))))
        if d < LONE_REACH and not q.weak:
            return None  # a pip of another face, or a spot on this "pip" (a die's face on a dark table)
        if d < LONE_CLEAR and q.dark == p.dark and k not in explained and not _side_pip(q, p) \
                and (not q.weak or max(p.radius, q.radius) <= SIZE_RATIO * min(p.radius, q.radius)):
            value = 0  # a 1 beside another die, or one pip of a 2 whose other was missed: not vouched for
    reach = LONE_REACH
    disk = _LATTICE * (reach / float(np.abs(_LATTICE).max()))
    disk = disk[(np.hypot(disk[:, 0], disk[:, 1]) <= reach) & (np.hypot(disk[:, 0], disk[:, 1]) > 1.6)]
    samples = _sample(gray, (p.x, p.y), shape, disk)
    step = 3.0  # about: a 1's die is some six pip radii across or more
    unread = PipFace(0, (i,), (p.x, p.y), shape * step, p.minor / p.major, p.face_lab)
    if samples is None:
        return unread if value == 0 else None
    face = float(np.median(samples))
    uneven = np.abs(samples - face) > max(LEAST_STEP, UNEVEN_STEP * p.contrast)
    if float(np.mean(uneven)) > UNEVEN_SHARE:
        # no even face around it: no 1, but a die seen beside another, or on an even patch nearer it (a large pip)
        near = np.hypot(disk[:, 0], disk[:, 1]) <= LONE_NEAR
        if value == 0 or float(np.mean(uneven[near])) > UNEVEN_SHARE:
            return unread if value == 0 else None
        return PipFace(0, (i,), (p.x, p.y), shape * step, p.minor / p.major, p.face_lab, large=True)
    if value and lab is not None and float(np.mean(_off_colour(lab, (p.x, p.y), shape, disk))) > CHROMA_SHARE:
        return unread  # even in grey but not one colour: a side face's pip by the table, of another colour
    return PipFace(value, (i,), (p.x, p.y), shape * step, p.minor / p.major, p.face_lab)
