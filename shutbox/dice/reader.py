"""``read_dice``: the dice in a picture, each top face's value where it is sure, and how many it is not.

Pips are found (``pips``), each grows its face (``faces``), and the faces that read are sorted into top
faces and side faces: seen from above at an angle, every top face is foreshortened alike (the roundest
faces of the picture), a side face more. A side face beside a read top face is that die's; anything
else that looks like a die but did not read is counted ``unsure``. Nothing is guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from shutbox.dice.faces import Face, face_colours, grow_face
from shutbox.dice.pips import find_pips

#: Pictures are read at most this many pixels along their longer side (the reader's speed).
WORK_SIZE = 800
#: A top face is at most this much less round than the roundest read face of the picture.
TOP_ASPECT_SLACK = 0.1
#: A face seen rounder than this has no direction of foreshortening to compare.
ROUND = 0.93


@dataclass(frozen=True)
class Die:
    """One die read: its top face's value and the face's box (x, y, width, height) in the picture's pixels."""

    value: int
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class Reading:
    """What a picture shows: the dice read, and the boxes of the dice seen but not read."""

    dice: tuple[Die, ...]
    unsure: tuple[tuple[int, int, int, int], ...]

    @property
    def values(self) -> list[int]:
        """The values read, lowest first."""
        return sorted(d.value for d in self.dice)

    def as_dict(self) -> dict[str, object]:
        """``{"dice": [values], "unsure": N}``."""
        return {"dice": self.values, "unsure": len(self.unsure)}


def read_dice(image: np.ndarray) -> Reading:
    """Read the dice in a BGR picture (8-bit, as OpenCV decodes it)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    height, width = image.shape[:2]
    scale = min(1.0, WORK_SIZE / max(height, width))
    work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    lab = face_colours(work)
    pips = find_pips(gray, lab)
    faces: list[Face] = []
    taken: set[int] = set()
    for seed in sorted(range(len(pips)), key=lambda i: -pips[i].contrast):
        if seed in taken:
            continue
        face = grow_face(seed, pips, lab)
        if face is None:
            continue
        taken.update(face.pips if face.value is not None else [seed])
        faces.append(face)
    read, unsure = _sort_faces(faces)

    def box(b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return (round(b[0] / scale), round(b[1] / scale), round(b[2] / scale), round(b[3] / scale))

    return Reading(tuple(Die(f.value or 0, box(f.box)) for f in read), tuple(box(b) for b in unsure))


def _sort_faces(faces: list[Face]) -> tuple[list[Face], list[tuple[int, int, int, int]]]:
    """The top faces read, and the boxes of dice seen but not read (side faces of read dice left out)."""
    good = [f for f in faces if f.value is not None]
    bad = [f for f in faces if f.value is None and _looks_like_die(f, faces)]
    top: list[Face] = []
    if good:
        roundest = max(good, key=lambda f: f.aspect)
        for f in good:
            (top if _is_top(f, roundest) else bad).append(f)
    unsure: list[Face] = []
    for f in sorted(bad, key=lambda f: -f.side):
        if any(_beside(f, t) for t in top) and not _like_top(f, top):
            continue  # a side face of a die already read (or a face of it that did not read)
        if any(_beside(f, u, 0.8) for u in unsure):
            continue  # another face of a die already counted
        unsure.append(f)
    return top, [f.box for f in unsure]


def _is_top(f: Face, roundest: Face) -> bool:
    if f.aspect < roundest.aspect - TOP_ASPECT_SLACK or f.aspect < 0.6:
        return False
    if roundest.aspect >= ROUND or f.aspect >= ROUND:
        return True
    turn = abs(f.minor_angle - roundest.minor_angle) % math.pi
    return min(turn, math.pi - turn) < math.radians(30)


def _like_top(f: Face, top: list[Face]) -> bool:
    """Is an unread face as round as the top faces read (another die's top face, not a side)?"""
    return not f.leaked and bool(top) and all(_is_top(f, t) for t in top)


def _beside(a: Face, b: Face, reach: float = 1.35) -> bool:
    return math.dist(a.centre, b.centre) < reach * max(a.side, b.side)


def _looks_like_die(f: Face, faces: list[Face]) -> bool:
    """Is an unread face worth counting as a die: a face-sized region, or pips clustered like a face's?"""
    if not f.leaked:
        return f.why not in ("0 pips",)
    return len(f.pips) >= 2
