"""A learned dice reader in the making (issue 47): two small networks and what they are given. Not shipped yet.

``finder.onnx`` looks at the whole picture in grey, scaled to ``WORK`` pixels along its longer side, and gives, for
every cell of ``STRIDE`` x ``STRIDE`` pixels, how sure it is that a die's top face is centred there, where in the cell
and how large that face is. ``reader.onnx`` looks at one square crop around each die found (``CROP_SCALE`` times the
face's side, cut from the picture at its own resolution and scaled to ``CROP_SIZE``) and says which of seven things it
shows: no die's top centred there (``NOT_A_DIE``) or a top face of 1 to 6. Both are run by OpenCV's ``cv2.dnn`` and
trained by ``tools/dice_train.py``, whose inputs are made by the functions here, so that the networks see in training
what they would see at the table. ``read`` is the whole reading, as ``shutbox.dice.reader.read_dice`` gives it; the
kit's reader is still the rule-based one until these networks read real photographs better (docs/dice.md).
"""

from __future__ import annotations

import math
import threading
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.dice.reading import Box, Die, Reading

#: The finder's picture: this many pixels along its longer side (smaller pictures are not enlarged beyond it).
WORK = 512
#: The finder's output cells, in its picture's pixels; its input's sides are padded to a multiple of ``PAD``.
STRIDE = 8
PAD = 32
#: The reader's crop: this many pixels a side, showing this many times the die's top face's side.
CROP_SIZE = 48
CROP_SCALE = 1.6
#: The reader's class for "no die's top centred here" (a table, a speck, a side face, between dice).
NOT_A_DIE = 0


def standardised(gray: np.ndarray) -> np.ndarray:
    """A grey picture as the networks take it: float32, zero mean, about unit spread (the light does not matter)."""
    g = gray.astype(np.float32)
    return (g - float(g.mean())) / (float(g.std()) + 10.0)


def finder_input(gray: np.ndarray) -> tuple[np.ndarray, float]:
    """The finder's input (1 x 1 x H x W) for a grey picture, and the scale from the picture to it."""
    height, width = gray.shape[:2]
    scale = min(1.0, WORK / max(height, width))
    if scale < 1.0:
        gray = cv2.resize(gray, (max(1, round(width * scale)), max(1, round(height * scale))),
                          interpolation=cv2.INTER_AREA)
    h, w = gray.shape[:2]
    bottom, right = -h % PAD, -w % PAD
    if bottom or right:
        gray = cv2.copyMakeBorder(gray, 0, bottom, 0, right, cv2.BORDER_REPLICATE)
    return standardised(gray)[None, None], scale


def cut(gray: np.ndarray, cx: float, cy: float, side: float) -> np.ndarray:
    """The square of ``side`` pixels centred on (cx, cy), the picture's edge repeated where it runs off."""
    s = max(2, round(side))
    x0, y0 = round(cx - s / 2), round(cy - s / 2)
    height, width = gray.shape[:2]
    part = gray[max(0, y0):min(height, y0 + s), max(0, x0):min(width, x0 + s)]
    if part.size == 0:
        return np.full((s, s), int(gray.mean()) if gray.size else 0, np.uint8)
    top, left = max(0, -y0), max(0, -x0)
    bottom, right = s - top - part.shape[0], s - left - part.shape[1]
    if top or left or bottom > 0 or right > 0:
        part = cv2.copyMakeBorder(part, top, max(0, bottom), left, max(0, right), cv2.BORDER_REPLICATE)
    return part


def crop_input(patch: np.ndarray) -> np.ndarray:
    """The reader's input (CROP_SIZE x CROP_SIZE) for a square grey patch around a die."""
    interpolation = cv2.INTER_AREA if patch.shape[0] >= CROP_SIZE else cv2.INTER_LINEAR
    return standardised(cv2.resize(patch, (CROP_SIZE, CROP_SIZE), interpolation=interpolation))


#: A network's input is set, then it is run: two threads doing so at once would run each other's inputs.
_ONE_AT_A_TIME = threading.Lock()


@cache
def _net(path: Path) -> cv2.dnn.Net:
    # OpenCV 5's classic engine runs small networks in about half the new engine's time (OpenCV 4 has only that one)
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    try:
        net = cv2.dnn.readNetFromONNX(str(path)) if engine is None else cv2.dnn.readNetFromONNX(str(path), engine)
    except cv2.error:
        raise ShutboxError(f"the dice reader's network {shown(str(path), 200)} is missing or damaged; "
                           "reinstall shutbox") from None
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    return net


def run(path: Path, batch: np.ndarray) -> np.ndarray:
    """The network's output for a batch (N x C x H x W, float32)."""
    with _ONE_AT_A_TIME:  # one network each for the process: a camera and phones' photos may be read at once
        net = _net(path)
        net.setInput(np.ascontiguousarray(batch, dtype=np.float32))
        return np.asarray(net.forward())


def softmax(scores: np.ndarray) -> np.ndarray:
    """Each row's scores as probabilities."""
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


#: The finder's least certainty (0 to 1) of a die's middle for the place to be looked at; for a die to be read there.
LOOK, FOUND = 0.25, 0.45
#: The crop reader's least probability of a value for a die to be read; of "some die" for a place to be unsure.
SURE, A_DIE = 0.9, 0.8
#: Two places nearer than this share of the larger die's side are one die (the surer is kept); at most MOST places.
ONE_DIE, MOST = 0.6, 60


def read(image: np.ndarray, finder: Path, reader: Path) -> Reading:
    """The dice in a BGR (or grey) picture, read by the two networks: a die where the finder is FOUND sure and the
    crop reader SURE of its value; unsure where the crop reader is A_DIE sure of some die but not of its value."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    places = _places(gray, finder)
    if not places:
        return Reading((), ())
    batch = np.stack([crop_input(cut(gray, x, y, side * CROP_SCALE)) for x, y, side, _ in places])
    probs = softmax(run(reader, batch[:, None]).reshape(len(places), -1))
    dice: list[Die] = []
    unsure: list[Box] = []
    for (x, y, side, found), p in zip(places, probs, strict=True):
        value = int(p[1:].argmax()) + 1
        box = (round(x - side / 2), round(y - side / 2), max(1, round(side)), max(1, round(side)))
        if p[value] >= SURE and found >= FOUND:
            dice.append(Die(value, box))
        elif 1.0 - p[NOT_A_DIE] >= A_DIE and found >= FOUND:
            unsure.append(box)
    return Reading(tuple(dice), tuple(unsure))


def _places(gray: np.ndarray, finder: Path) -> list[tuple[float, float, float, float]]:
    """Where the finder is at least LOOK sure of a die's middle: (x, y, side, certainty), surest first, one a die."""
    x, scale = finder_input(gray)
    out = run(finder, x)[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat >= LOOK) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(peaks)
    kept: list[tuple[float, float, float, float]] = []
    for i in np.argsort(-heat[ys, xs], kind="stable"):
        r, c = int(ys[i]), int(xs[i])
        side = math.exp(float(np.clip(out[1, r, c], 0.0, 7.0))) / scale
        cx, cy = (c + 0.5 + float(out[2, r, c])) * STRIDE / scale, (r + 0.5 + float(out[3, r, c])) * STRIDE / scale
        if all(math.hypot(cx - k[0], cy - k[1]) >= ONE_DIE * max(side, k[2]) for k in kept):
            kept.append((cx, cy, side, float(heat[r, c])))
        if len(kept) >= MOST:
            break
    return kept
