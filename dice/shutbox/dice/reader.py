"""``read_dice``: the dice in a picture, each top face's value where it is sure, and how many it is not.

Pips are found (``pips``), each grows its face (``faces``), and the faces that read are sorted into top
faces and side faces: seen from above at an angle, every top face is foreshortened alike (the roundest
faces of the picture), a side face more. A side face beside a read top face is that die's; anything
else that looks like a die but did not read is counted ``unsure``. Each unsure die is then looked at again by a
small network (``second_look``); only what it is sure of is taken. Nothing is guessed.
"""

from __future__ import annotations

import math
from statistics import median

import cv2
import numpy as np

from shutbox.dice.faces import DIE_RADII, Face, Scales, face_colours, grow_face
from shutbox.dice.imagefile import MIN_SIDE
from shutbox.dice.pipfaces import COLOUR_DISTANCE, lone_one, read_pip_faces
from shutbox.dice.pips import Pip, find_pips
from shutbox.dice.reading import Die, Reading
from shutbox.dice.settle import looked_again

#: Pictures are read at most this many pixels along their longer side (the reader's speed).
WORK_SIZE = 720
#: A top face is at most this much less round than the roundest read face of the picture (perspective and
#: the grown region's slivers make top faces differ).
TOP_ASPECT_SLACK = 0.2
#: A face less round than this is a top face only when every face is seen as low (the camera is low).
SIDE_ASPECT = 0.72
MIN_TOP_ASPECT = 0.6
#: A side face's lightness differs from its top's by more than this (``face_colours``: 8 is about 10 %).
SIDE_SHADE = 8.0
#: A die's faces are of one colour, only lit otherwise: a side face's chroma (``face_colours`` a and b) is at least
#: this share of its top's, and its hue within this many degrees; faces this grey (chroma) are any grey.
SIDE_CHROMA_RATIO = 0.3
SIDE_HUE = 30.0
GREY_CHROMA = 18.0
#: A side face's top is above it, its pips nearer than this many sides.
LONE_TOP_REACH = 1.5
#: A read face as far as this (in its top's sides) from a top read beside it is not that die's side face.
NEIGHBOUR_SIDES = 0.93
#: A side face's pips are seen at least this much flatter (minor over major axis) than its top face's.
SIDE_PIP_FLATTER = 0.15
#: Why a face read from one pip is not read (``pipfaces``: a lone pip near others).
LONE_PIP = "a lone pip beside others"
#: ... or clear of others, but with no even patch around it as wide as a 1's with pips of the usual size.
LARGE_PIP = "a lone pip, no even face around it"
#: A lone pip this many times the read tops' pips (radius) is a 1's large pip: a Chinese die's or the kit's.
LARGE_ONE = 1.4
#: The kit's faces of fewer pips have wider ones (``shutbox.cad.geometry.dice``: each face's pips weigh as the
#: opposite face's): its
#: 2's are 1.36 times its 4's, 5's and 6's, and its 1's 1.34 times its 2's. So a 2's pips are weighed as a die's other
#: pips at this share: against a 2 a lone pip is a 1's large pip at 1.2 times its pips (the 2's own other pip, when
#: the 2 is cut short, is 1.0 times them; a 2's lone pip is 1.36 times a 6's, under ``LARGE_ONE``).
TWO_WIDER = LARGE_ONE / 1.2
#: Pips of one die, or of two alike dice: radii within this ratio.
PIP_LIKE = 1.3
#: A die's pips are within this ratio of each other's size (a Chinese die's 1 is about twice the others).
PIP_SPREAD = 2.5
#: A face below a top, near it (``ATTACHED_SIDES``), its outline and pips both this much flatter, is its side face.
ATTACHED_FLATTER = 0.1
#: ... when nearer than this many of the top's sides: another die's top below it is nearer the camera, so seen from
#: higher up, as round as the top or rounder, never flatter (a side face's middle is less than a side below its top's).
ATTACHED_SIDES = 1.2
#: Pips this round (minor over major axis) are on no side face seen from 50 degrees up or more (about cos 50 degrees,
#: with room for a pip's measure), unless its top's pips are rounder still.
SIDE_PIPS = 0.8
#: A face below another, lit alike, is that die's side face seen from low down unless clearly rounder than it (its
#: outline or its pips by this much).
STACKED_ROUNDER = 0.05


def read_dice(image: np.ndarray, second_look: bool = True) -> Reading:
    """Read the dice in a BGR picture (8-bit, as OpenCV decodes it); ``second_look=False``: by the rules alone."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    height, width = image.shape[:2]
    scale = min(1.0, WORK_SIZE / max(height, width))
    if min(height, width) * scale < MIN_SIDE:  # a sliver, or a few pixels: no die can be read in it
        return Reading((), ())
    work = _shrink(image, scale) if scale < 1 else image
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    lab = face_colours(work)
    pips = find_pips(gray, lab)
    faces, faceless = _grow_faces(pips, Scales(lab, pips))
    unread = [f.seed for f in faces if f.value is None]
    crowded = [f for f in faces if f.value == 1 and _crowded_one(f, pips, _read_pips(faces))
               or f.value == 2 and len(f.pips) == 2 and _two_in_line(f, pips, _read_pips(faces, 2))]
    for face in crowded:  # its pip may be one of a face read from its pips
        face.why, face.value = CROWDED_ONE if face.value == 1 else IN_LINE, None
        unread.append(face.seed)
    faces = _with_pip_faces(faces, pips, [i for i in unread + faceless if i not in _read_pips(faces)], gray, lab)
    for face in crowded:  # or the pips beside it those of a die read from its pips: a 1 after all
        if face in faces and face.why == CROWDED_ONE and not _crowded_one(face, pips, _read_pips(faces)):
            face.value, face.why = 1, ""
    faces = _with_twos_after_all(crowded, faces, pips, gray, lab)
    _mark_die_spots(faces, pips)
    read, unsure = _sort_faces(faces, pips)

    def box(b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return (round(b[0] / scale), round(b[1] / scale), round(b[2] / scale), round(b[3] / scale))

    reading = Reading(tuple(Die(f.value or 0, box(f.box)) for f in read), tuple(box(b) for b in unsure))
    return looked_again(image, reading) if second_look and (reading.dice or reading.unsure) else reading


def _grow_faces(pips: list[Pip], scales: Scales) -> tuple[list[Face], list[int]]:
    """The faces grown from the pips, clearest first (a pip of a face read grows none), and the pips that grew none.
    Then the weak pips of no face grow theirs, kept where they read: a face whose pips are all weak (a kit's 2, its
    wide pips by the face's rim, their rings crossing the die's edge) is read by its outline, or not at all."""
    faces: list[Face] = []
    taken: set[int] = set()
    faceless: list[int] = []
    for seed in sorted(range(len(pips)), key=lambda i: -pips[i].contrast):
        if seed in taken or pips[seed].weak:  # a weak pip only completes a face (``faces``)
            continue
        face = grow_face(seed, scales)
        if face is None:
            faceless.append(seed)
            continue
        if face.value is not None and any(_same_face(face, g) for g in faces):
            continue  # a pip left out of a face read (one its grid probe found) grew the same face again
        taken.update(face.pips if face.value is not None else [seed])
        faces.append(face)
    held = {i for f in faces for i in f.pips}
    for seed in [i for i, p in enumerate(pips) if p.weak and i not in held]:
        if seed in held:
            continue  # a weak pip of a face grown from a weak pip before it
        face = grow_face(seed, scales)  # kept only when it reads by its outline, all its pips of no other face
        if face is not None and face.value is not None and not set(face.pips) & held:
            held.update(face.pips)
            faces.append(face)
    return faces, faceless


#: Two read faces whose middles are nearer than this share of a side, with pips in common, are one face.
SAME_FACE = 0.25


def _same_face(f: Face, g: Face) -> bool:
    """Is read face ``f`` read face ``g`` grown again: the same value, pips in common, and the same middle?"""
    return f.value == g.value and bool(set(f.pips) & set(g.pips)) \
        and math.dist(f.centre, g.centre) < SAME_FACE * max(f.side, g.side)


def _shrink(image: np.ndarray, scale: float) -> np.ndarray:
    """The picture scaled down: by area, or for a scale over a half (a 1280 x 720 frame) a light blur and a linear
    scaling, which is as good there (within 50 dB of it) and three times quicker."""
    if scale < 0.5:
        return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(image, (3, 3), 0.6), None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)


#: Why a face read as a 1 is not read: a pip of its size just beside its pip (``_crowded_one``).
CROWDED_ONE = "a 1 with a pip of its size beside it"
#: No pip of a 1's size lies this near its pip, in the pip's radii (seen through its foreshortening), but those of a
#: face read (a touching die's) and its own side faces' (flatter).
ONE_CLEAR = 6.0


def _crowded_one(face: Face, pips: list[Pip], read: set[int]) -> bool:
    """Is a face read as a 1 a part of a larger face, its grown outline cut short (a white die on a white table): a pip
    of its kind and size, not much flatter (a side face's) and of no face read (``read``), just beside its pip?"""
    p = pips[face.pips[0]]
    for k, q in enumerate(pips):
        if k in read or q.dark != p.dark or not 1 / PIP_LIKE <= q.radius / p.radius <= PIP_LIKE \
                or q.minor / q.major < p.minor / p.major - SIDE_PIP_FLATTER:
            continue
        if _in_radii(p, q) < ONE_CLEAR:
            return True
    return False


def _in_radii(p: Pip, q: Pip) -> float:
    """How far spot ``q`` is from spot ``p``, in ``p``'s radii along its own axes (its foreshortening undone)."""
    c, s = math.cos(p.angle), math.sin(p.angle)
    dx, dy = q.x - p.x, q.y - p.y
    return math.hypot((dx * c + dy * s) / p.major, (-dx * s + dy * c) / p.minor)


#: Why a face read as a 2 is not read: a pip of its size in line with its two, beyond them (``_two_in_line``).
IN_LINE = "a 2 in line with a pip beyond it"
#: ... as far beyond one of its pips as the two are apart, within this share of that, along and across.
IN_LINE_SLACK = 0.25


def _two_in_line(face: Face, pips: list[Pip], read: set[int]) -> bool:
    """Is a face read as a 2 two pips of a 3 (or of a 6's column) whose outline was cut short, its third pip beyond:
    a pip of their kind, size and face colour, not much flatter (a side face's) and of no face of two pips or more read
    (``read``), on their line, as far past one of them as they are apart?"""
    a, b = (pips[i] for i in face.pips)
    dx, dy = b.x - a.x, b.y - a.y
    gap = math.hypot(dx, dy)
    flat = min(a.minor / a.major, b.minor / b.major) - SIDE_PIP_FLATTER
    for k, q in enumerate(pips):
        if k in face.pips or k in read or q.dark != a.dark or not 1 / PIP_LIKE <= q.radius / a.radius <= PIP_LIKE \
                or q.minor / q.major < flat or math.dist(q.face_lab, a.face_lab) > COLOUR_DISTANCE:
            continue
        for end, sign in ((b, 1), (a, -1)):  # beyond b, or beyond a
            ex, ey = end.x + sign * dx, end.y + sign * dy
            if math.hypot(q.x - ex, q.y - ey) < IN_LINE_SLACK * gap:
                return True
    return False


def _with_twos_after_all(crowded: list[Face], faces: list[Face], pips: list[Pip], gray: np.ndarray, lab: np.ndarray
                         ) -> list[Face]:
    """The faces, with each 2 kept unread for a pip in line beyond it read after all where that pip is since of a face
    read from its pips (``_two_after_all``): its pips' other readings go, and a lone pip beside it, kept unread by its
    pips, may be a 1."""
    twos: list[Face] = []
    for face in crowded:
        if face.why == IN_LINE and _two_after_all(face, faces, pips):
            face.value, face.why = 2, ""
            twos.append(face)
    if not twos:
        return faces
    faces = [f for f in faces if f not in twos and not any(set(g.pips) & set(f.pips) for g in twos)] + twos
    for f in faces:
        if f.why == LONE_PIP and lone_one(f.seed, pips, gray, frozenset(_read_pips(faces)), lab):
            f.value, f.why = 1, ""
    return faces


def _two_after_all(face: Face, faces: list[Face], pips: list[Pip]) -> bool:
    """Is a face read as a 2 but left unread for a pip in line beyond it (``_two_in_line``) a 2 after all, that pip
    one of a face read from its pips since? (The caller reads it, and drops its pips' other, unread, readings: lone
    pips.) A face read from its pips with one of its two pips keeps it unread."""
    return len(face.pips) == 2 and not _two_in_line(face, pips, _read_pips(faces, 2)) \
        and not any(g is not face and g.value is not None and set(g.pips) & set(face.pips) for g in faces)


def _read_pips(faces: list[Face], least: int = 1) -> set[int]:
    """The pips of the faces read (of ``least`` pips or more)."""
    return {i for f in faces if f.value is not None and len(f.pips) >= least for i in f.pips}


def _with_pip_faces(faces: list[Face], pips: list[Pip], unread: list[int], gray: np.ndarray, lab: np.ndarray
                    ) -> list[Face]:
    """The faces, with those that did not read (ran into their surroundings, or failed a check of their outline)
    read from their pips alone where they read (``pipfaces``); an unread face keeps only the pips no such face
    took, and goes when its own seed pip was taken."""
    if not unread:
        return faces
    found = read_pip_faces(pips, unread, gray, frozenset(_read_pips(faces)), lab)
    if not found:
        return faces
    used = {i for f in found for i in f.pips}
    out: list[Face] = []
    for f in faces:
        if f.value is None:
            if f.seed in used or not set(f.pips) - used:
                continue
            f.pips = [i for i in f.pips if i not in used]
        out.append(f)
    for g in found:
        out.append(Face(g.box, g.centre, g.side, g.aspect, 0.0, list(g.pips), g.value or None,
                        (LARGE_PIP if g.large else LONE_PIP) if not g.value else "", colour=g.colour, seed=g.pips[0]))
    return out


def _sort_faces(faces: list[Face], pips: list[Pip]) -> tuple[list[Face], list[tuple[int, int, int, int]]]:
    """The top faces read, and the boxes of dice seen but not read (side faces of read dice left out)."""
    good = [f for f in faces if f.value is not None]
    bad = [f for f in faces if f.value is None and _looks_like_die(f)]
    top: list[Face] = []
    if good:
        roundest = max(f.aspect for f in good)
        for f in good:
            (top if _is_top(f, roundest, faces, pips) else bad).append(f)
        bad = _promote(bad, top, pips)
        top = [f for f in top if not _speck(f, top, pips)]
    unsure: list[Face] = []
    flat = median([_pip_aspect(t, pips) for t in top]) - SIDE_PIP_FLATTER if top else 0.0
    for f in [f for f in bad if f.why == LARGE_PIP and _pip_aspect(f, pips) >= flat]:
        # the read tops' pips of its kind (a light spot beside dice with dark pips may be a lamp's glare on the table)
        # (a 2's pips as a die's other pips: the kit's 2 has wider ones, ``TWO_WIDER``)
        sizes = [pips[i].radius / (TWO_WIDER if len(t.pips) == 2 else 1.0)
                 for t in top if len(t.pips) >= 2 for i in t.pips if pips[i].dark == pips[f.seed].dark]
        if sizes and pips[f.seed].radius >= LARGE_ONE * median(sizes):  # a 1's large pip (a Chinese die's, the kit's)
            f.value, f.why = 1, ""
            top.append(f)
            bad.remove(f)
    for f in sorted(bad, key=lambda f: -f.side):
        if f.why in (LONE_PIP, LARGE_PIP) and _pip_aspect(f, pips) < flat:
            continue  # a lone pip seen much flatter than the top faces' pips: a pip of a side face
        if any((f.seed in t.pips) if f.leaked else (set(f.pips) & set(t.pips)) for t in top):
            continue  # grown over a die already read (its top and a side together; a face that ran into its
            # surroundings holds the pips near its seed, maybe a neighbour's, so only its seed tells)
        if any(_beside(f, t) and _one_die(f, t, pips)
               and (_under(f, t) or not _like_top(f, top) or _under_beside(f, t, pips))
               and (not _unlike_side(f, t, pips) or _attached(f, t, pips)) for t in top):
            continue  # a side face of a die already read
        if any(_beside(f, u, 0.8) for u in unsure):
            continue  # another face of a die already counted
        unsure.append(f)
    return top, [_die_box(f) for f in unsure]


def _promote(bad: list[Face], top: list[Face], pips: list[Pip]) -> list[Face]:
    """Add to ``top`` the read faces not taken as tops that are tops all the same (``_neighbour_top``, ``_lone_top``),
    again while any is added (a top added may be the other die whose pips kept a face from it); the rest."""
    promoted = [f for f in bad if _neighbour_top(f, top, pips) or _lone_top(f, top, pips)]
    while promoted:
        top += promoted
        bad = [f for f in bad if f not in promoted]
        promoted = [f for f in bad if _neighbour_top(f, top, pips) or _lone_top(f, top, pips)]
    return bad


def _is_top(f: Face, roundest: float, faces: list[Face], pips: list[Pip]) -> bool:
    """Is a read face a top face: about as round as the roundest, and no rounder face beside it (its die's top)?

    Seen from 50 degrees up or more a side face is at most about 0.7 as high as wide; a top face is rounder. A face
    a whole die away from the rounder face, with pips as round as a top's, is not its side face (``_could_be_side``).
    """
    if f.aspect < MIN_TOP_ASPECT or f.aspect < roundest - TOP_ASPECT_SLACK:
        return False
    if f.aspect < SIDE_ASPECT and roundest >= SIDE_ASPECT + 0.1:
        return False
    return not any(g is not f and not g.leaked and _beside(f, g, 1.2) and not set(g.pips) & set(f.pips)
                   and _one_die(f, g, pips) and (g.aspect > f.aspect + 0.1 and not _above(f, g) or _under(f, g))
                   and _could_be_side(f, g, pips) or _stacked(f, g, pips) for g in faces)


def _above(f: Face, g: Face, reach: float = 50.0) -> bool:
    """Is ``f`` above ``g`` in the picture (within ``reach`` degrees of straight up; 50: where no side face of ``g`` is
    seen, the side faces seen being turned to the camera, below their top)?"""
    dx, dy = f.centre[0] - g.centre[0], f.centre[1] - g.centre[1]
    return -dy > 0 and abs(dx) < -dy * math.tan(math.radians(reach))


#: A side face seen is below its top's middle, but may be nearly level with it, beside it: from high up, a side face
#: turned nearly across the view is seen to the top's left or right, and the camera's roll turns that further.
SIDE_REACH = 89.0


def _under_beside(f: Face, t: Face, pips: list[Pip]) -> bool:
    """Is an unread face a side face of top ``t`` beside it, lower in the picture than its middle (``SIDE_REACH``) and
    lit otherwise, with pips of its kind (a side face's pips are its top's kind: a white die's lone dark pip below a
    black die's top is no side face of it)?"""
    return f.seed >= 0 and t.seed >= 0 and pips[f.seed].dark == pips[t.seed].dark and _under(f, t, SIDE_REACH)


def _stacked(f: Face, g: Face, pips: list[Pip]) -> bool:
    """Could read face ``f`` be a side face of read face ``g`` seen from low down (45 degrees, where a side face is
    seen as round as its top): ``g`` above it, nearer than a whole die, of its colour and lit alike, and ``f`` neither
    rounder nor with rounder pips? Such a face is not vouched for as a top."""
    if g is f or g.value is None or g.leaked or set(g.pips) & set(f.pips) or not _one_die(f, g, pips):
        return False
    return _above(g, f) and math.dist(f.centre, g.centre) < NEIGHBOUR_SIDES * g.side \
        and abs(f.colour[0] - g.colour[0]) <= SIDE_SHADE and f.aspect <= g.aspect + STACKED_ROUNDER \
        and _pip_aspect(f, pips) <= _pip_aspect(g, pips) + STACKED_ROUNDER


def _neighbour_top(f: Face, top: list[Face], pips: list[Pip]) -> bool:
    """Is a read face not taken as a top the top of another die beside a top read: its pips as round as the top's,
    lit alike, and a whole die away (a side face's middle is less than a side below its top's)?

    Seen from above at an angle, a side face is under its top, nearer than a side; its pips are flatter, and
    it is lit otherwise. A face with all three unlike is another die's top face."""
    if not _could_be_top(f, pips):
        return False
    near = [t for t in top if _beside(f, t) and _one_die(f, t, pips)]
    return bool(near) and all(_other_die(f, t, pips) for t in near)


def _could_be_top(f: Face, pips: list[Pip]) -> bool:
    """A read face, not run into its surroundings, its outline and its pips round enough for a top."""
    return (f.value is not None and not f.leaked and bool(f.pips)
            and min(f.aspect, _pip_aspect(f, pips)) >= MIN_TOP_ASPECT)


def _other_die(f: Face, t: Face, pips: list[Pip]) -> bool:
    """Is top ``t`` another die's than face ``f``: unlike a side face of it (``_unlike_side``) and a whole die away?"""
    return _unlike_side(f, t, pips) and math.dist(f.centre, t.centre) >= NEIGHBOUR_SIDES * t.side


def _lone_top(f: Face, top: list[Face], pips: list[Pip]) -> bool:
    """Is a read face not taken as a top (flatter than the picture's roundest) a top all the same: round enough, lit as
    the tops of its colour (every top face has one normal, so one light: within ``SIDE_SHADE`` of the range of their
    lightness), and no pip of its kind above it (a side face's top is above it, nearer than a side and a half, and has
    pips; a read top's pips do not count when that top is a whole die away, its pips no rounder and lit alike, or when
    it is of another colour or kind of pip)?"""
    if f.seed < 0 or not _could_be_top(f, pips):
        return False
    lit = [t.colour[0] for t in top if _one_die(f, t, pips)]
    if lit and not min(lit) - SIDE_SHADE <= f.colour[0] <= max(lit) + SIDE_SHADE:
        return False
    dark = pips[f.seed].dark
    reach = LONE_TOP_REACH * max(f.side, DIE_RADII * pips[f.seed].radius)
    # the pips of a read top a whole die away, with pips no rounder than this face's and lit alike, are another die's,
    # as are those of a top of another colour or kind of pip (a side face is its top's colour)
    others = {i for t in top if _other_die(f, t, pips) or not _one_die(f, t, pips) for i in t.pips}
    size = float(median([pips[i].radius for i in f.pips]))
    for i, q in enumerate(pips):
        if i in f.pips or q.dark != dark or q.weak or i in others \
                or not size / PIP_SPREAD <= q.radius <= size * PIP_SPREAD:
            continue  # (a spot far larger or smaller than its pips is no pip of its die: a die seen as a spot)
        up, across = f.centre[1] - q.y, abs(q.x - f.centre[0])
        if 0 < up < reach and across < up * math.tan(math.radians(60)) + 0.5 * f.side:
            return False
    return True


def _one_die(f: Face, g: Face, pips: list[Pip]) -> bool:
    """Could two faces be of one die: pips of one kind (dark on light, or light on dark) and the same chroma? A
    die's side face is its top's colour, only lit otherwise; a die of another colour beside it is another die. (A
    face that ran into its surroundings may be a whole die seen as a spot, its colour the table's, and a lone spot
    may be a glint between a side face's pips: they could be, unless it is far wider than the other's pips and of
    the other kind, ``_alien_pip``.)"""
    if _alien_pip(f, g, pips) or _alien_pip(g, f, pips):
        return False
    if not _plain(f) or not _plain(g):
        return True
    if f.seed >= 0 and g.seed >= 0 and pips[f.seed].dark != pips[g.seed].dark:
        return False
    fc, gc = np.subtract(f.colour[1:], 128.0), np.subtract(g.colour[1:], 128.0)
    cf, cg = math.hypot(*fc), math.hypot(*gc)
    if max(cf, cg) < GREY_CHROMA:
        return True  # white, ivory, black or grey: their lightness alone cannot tell a side face from another die
    if min(cf, cg) < SIDE_CHROMA_RATIO * max(cf, cg):
        return False  # a coloured die beside a grey one, or much more colourful (a dim side keeps most of it)
    turn = abs(math.atan2(fc[1], fc[0]) - math.atan2(gc[1], gc[0]))
    return min(turn, 2 * math.pi - turn) <= math.radians(SIDE_HUE)


#: A lone pip of the other kind than a read face's pips and at least this many times as wide is no pip of that die;
#: nor is one as wide as them (within ``PIP_LIKE``) and as round as a top's pip (this or rounder, and no flatter than
#: that face's pips): a side face's pip is seen flatter, a glint between its pips is smaller.
ALIEN_PIP = 2.0
ALIEN_ROUND = 0.9
#: ... and no wider than a die's pip can be at that face's scale (radius at most this share of its side; the kit's
#: large 1's is 0.2, and dice differ in size by a third at most): a larger spot is a glint or the table's.
ALIEN_PIP_MOST = 0.3


def _alien_pip(f: Face, g: Face, pips: list[Pip]) -> bool:
    """Is ``f`` a lone pip beside others (an outlined face of one pip, not read) that can be no part of read face
    ``g``'s die: of the other kind than ``g``'s pips and far wider (``ALIEN_PIP``), or as wide and as round as a top's
    pip (``ALIEN_ROUND``), though no wider than a die's pip (``ALIEN_PIP_MOST``)? A die's side faces carry pips of
    its top's kind and size (seen flatter, so no wider), and a glint between them is smaller still: such a pip is
    another die's (the kit's large 1 beside a red die; a black die's 1 below a white die's)."""
    if f.why != LONE_PIP or f.leaked or len(f.pips) != 1 or g.value is None or not g.pips:
        return False
    p = pips[f.pips[0]]
    if p.radius > ALIEN_PIP_MOST * g.side or any(pips[i].dark == p.dark for i in g.pips):
        return False
    size = float(median([pips[i].radius for i in g.pips]))
    return p.radius >= ALIEN_PIP * size \
        or p.radius >= size / PIP_LIKE and p.minor / p.major >= max(_pip_aspect(g, pips), ALIEN_ROUND)


def _plain(f: Face) -> bool:
    """Is a face's colour and kind of pip its own: an outlined face, read or with two pips or more?"""
    return not f.leaked and (f.value is not None or len(f.pips) >= 2)


def _under(f: Face, g: Face, reach: float = 50.0) -> bool:
    """Is ``f`` a side face below top face ``g`` (nearer the camera, lit differently, not a flatter view; ``reach``: of
    straight down, in degrees)?

    Seen at an angle, a die shows its top face above the side faces turned to the camera."""
    shade = abs(f.colour[0] - g.colour[0]) > SIDE_SHADE
    return _above(g, f, reach) and shade and g.aspect >= f.aspect - 0.25


#: A read face less than this share of the side of a read top beside it, its pips less than ``SPECK_PIP`` of that top's
#: pips, is no die: dice are of a size (14 to 19 mm, their pips at least 0.45 of the kit's 2's) and beside one another
#: are seen at one scale. It is a glint on the dice's rounded edges between them (a light spot on black dice).
SPECK = 0.35
SPECK_PIP = 0.4


def _speck(f: Face, top: list[Face], pips: list[Pip]) -> bool:
    """Is a read top no die but a speck beside a top of two pips or more, far smaller than it and with far smaller
    pips (``SPECK``)?"""
    size = median([pips[i].radius for i in f.pips])
    return any(t is not f and len(t.pips) >= 2 and _beside(f, t) and f.side < SPECK * t.side
               and size < SPECK_PIP * median([pips[i].radius for i in t.pips]) for t in top)


def _could_be_side(f: Face, g: Face, pips: list[Pip]) -> bool:
    """Could ``f`` be a side face of ``g``: nearer than a whole die (``NEIGHBOUR_SIDES`` of ``g``'s side), or its
    pips flatter than a side face's can be seen from 50 degrees up or higher (``SIDE_PIPS``) and flatter than
    ``g``'s? (Another die's top beside ``g``, a whole die away, has pips as round as a top's.)"""
    return math.dist(f.centre, g.centre) < NEIGHBOUR_SIDES * g.side \
        or _pip_aspect(f, pips) < SIDE_PIPS and _pip_aspect(g, pips) > _pip_aspect(f, pips)


def _unlike_side(f: Face, t: Face, pips: list[Pip]) -> bool:
    """Is a face not taken as a top no side face of read top ``t`` after all: its pips as round as the top's and lit
    alike (a side face's pips are seen flatter, the face lit otherwise; a face that ran into its surroundings has
    no outline to tell its roundness)? Such a face is another die's top, so it stays unsure."""
    return _pip_aspect(f, pips) >= _pip_aspect(t, pips) - SIDE_PIP_FLATTER \
        and abs(f.colour[0] - t.colour[0]) <= SIDE_SHADE


def _attached(f: Face, t: Face, pips: list[Pip]) -> bool:
    """Is a face, lit as top ``t``, its side face all the same: below it, near it (``ATTACHED_SIDES``), and both its
    outline and its pips clearly flatter (another die's top below it, nearer the camera, is seen as round or more)?"""
    if f.leaked or not f.pips:
        return False
    return _above(t, f) and math.dist(f.centre, t.centre) < ATTACHED_SIDES * t.side \
        and f.aspect <= t.aspect - ATTACHED_FLATTER and _pip_aspect(f, pips) <= _pip_aspect(t, pips) - ATTACHED_FLATTER


def _pip_aspect(f: Face, pips: list[Pip]) -> float:
    """The median roundness (minor over major axis) of a face's pips (its seed's when it has none)."""
    own = f.pips or ([f.seed] if f.seed >= 0 else [])
    return float(median([pips[i].minor / pips[i].major for i in own])) if own else 0.0


def _like_top(f: Face, top: list[Face]) -> bool:
    """Is an unread face as round as the top faces read (another die's top face, not a side)?"""
    return not f.leaked and bool(top) and f.aspect >= min(t.aspect for t in top) - 0.05


def _die_box(f: Face) -> tuple[int, int, int, int]:
    """The box of an unread die: its face's, or for a face that ran into the table, around its pips."""
    return f.box


def _beside(a: Face, b: Face, reach: float = 1.35) -> bool:
    return math.dist(a.centre, b.centre) < reach * max(a.side, b.side)


#: Why a spot is counted as an unread die: a die seen whole as a spot on the table, holding pips not read.
DIE_SPOT = "a die seen as a spot, its pips not read"
#: ... pips of the other kind, their radius this share of the spot's (a die is about 11 of its pips' radii across).
DIE_SPOT_PIPS = (1 / 12, 1 / 3)


def _mark_die_spots(faces: list[Face], pips: list[Pip]) -> None:
    """Mark each face that ran into its surroundings from a spot that is a die seen whole (``_die_spot``) as that die,
    the spot's size, so that it is counted unsure and not taken for a side face of a die beside it."""
    read = _read_pips(faces)
    for f in faces:
        if f.value is None and f.leaked and len(f.pips) == 1 and _die_spot(pips, f.seed, read):
            spot = pips[f.seed]
            f.why, f.side, f.centre = DIE_SPOT, 2 * spot.radius, (spot.x, spot.y)
            f.box = (int(spot.x - spot.major), int(spot.y - spot.major), int(2 * spot.major), int(2 * spot.major))


def _die_spot(pips: list[Pip], i: int, read: set[int]) -> bool:
    """Is spot ``i`` a die seen whole (a light die on a dark table): a spot holding a pip of the other kind, of a
    die's pip's size and of no face read?"""
    p = pips[i]
    for k, q in enumerate(pips):
        if q.dark == p.dark or k in read or not DIE_SPOT_PIPS[0] <= q.radius / p.radius <= DIE_SPOT_PIPS[1]:
            continue
        if _in_radii(p, q) < 1:
            return True
    return False


def _looks_like_die(f: Face) -> bool:
    """Is an unread face worth counting as a die: a face-sized region, or pips clustered like a face's?"""
    if f.why == DIE_SPOT:
        return True
    if not f.leaked:
        return f.why not in ("0 pips",)
    return len(f.pips) >= 2
