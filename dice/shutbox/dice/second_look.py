"""A second look at the dice the rules would not vouch for: a small network reads each unsure die's crop.

The rules (``reader.py``) read a face from its outline and pips and say ``unsure`` when a check fails. Each unsure
box is then cut out of the picture (a square around its middle, ``CROP`` times its longer side) and read by a small
convolutional network (``second_look.onnx``, run by OpenCV's own ``cv2.dnn``: no other library). It says what is at
the crop's middle: a top face and its value, a die but not its top's middle (``OFF``: a side face), or no die
(``NO_TOP``). Each box is framed twice (the second ``WIDER``); an answer counts when both framings give it with a
probability of at least ``SURE`` (``settle.py`` holds that threshold's use). Anything less leaves the die unsure.
The network is trained on rendered pictures of other seeds than the test set's
(``tests/dice_set/train_second_look.py``).
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.dice.reading import Box

MODEL = Path(__file__).with_name("second_look.onnx")
#: The network's input: a square crop of this many pixels a side, three colours.
SIZE = 40
#: The crop's side over the unsure box's longer side (a die's box is its face; the crop shows its surroundings too).
CROP = 1.5
#: Answers taken: the network's probability of its answer at least this.
SURE = 0.85
#: Class 0: no die at the crop's middle (the table, a glint).
NO_TOP = 0
#: Class 7: a die at the crop's middle, but not its top face's middle (a side face, an edge).
OFF = 7


def crop(image: np.ndarray, box: Box, scale: float = 1.0, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The network's input for a box: a SIZE x SIZE colour crop around its middle, each channel's pixels standardised
    over the crop. ``scale`` and ``shift`` (in box sides) move the crop, for training."""
    x, y, w, h = box
    side = max(w, h, 2) * CROP * scale
    cx, cy = x + w / 2 + shift[0] * max(w, h), y + h / 2 + shift[1] * max(w, h)
    x0, y0 = round(cx - side / 2), round(cy - side / 2)
    s = max(round(side), 2)
    height, width = image.shape[:2]
    left, top = max(0, -x0), max(0, -y0)
    right, bottom = max(0, x0 + s - width), max(0, y0 + s - height)
    part = image[max(0, y0):min(height, y0 + s), max(0, x0):min(width, x0 + s)]
    if part.size == 0:
        part = np.zeros((s, s, 3), np.uint8)
    elif left or top or right or bottom:
        part = cv2.copyMakeBorder(part, top, bottom, left, right, cv2.BORDER_REPLICATE)
    small = cv2.resize(part, (SIZE, SIZE), interpolation=cv2.INTER_AREA).astype(np.float32)
    mean = small.reshape(-1, 3).mean(axis=0)
    spread = float(small.std()) + 8.0
    return (small - mean) / spread


#: The network's input is set, then run: two threads doing so at once would run each other's crops.
_ONE_AT_A_TIME = threading.Lock()


@cache
def _net() -> cv2.dnn.Net:
    # OpenCV 5's classic engine runs this small network in about half the new engine's time, to the same answers
    # (OpenCV 4 has only that one)
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    try:
        path = str(MODEL)
        net = cv2.dnn.readNetFromONNX(path) if engine is None else cv2.dnn.readNetFromONNX(path, engine)
    except cv2.error:
        raise ShutboxError(f"the dice reader's network {shown(str(MODEL), 200)} is missing or damaged; "
                           "reinstall shutbox") from None
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    return net


#: Each box is looked at framed twice, the second time this much wider: a die is read only when both say its value.
WIDER = 1.35


def look(image: np.ndarray, boxes: list[Box], die_side: float = 0.0) -> list[tuple[int, float]]:
    """Per box: the class the network gives (``NO_TOP``, ``OFF``, or a value 1 to 6) and its probability, the lower
    of the two framings' when they agree, else ``OFF`` at 0. A box smaller than ``die_side`` (the dice read: dice are
    of a size) is framed as that large around its middle (a lone pip's box is its patch, not its die)."""
    if not boxes:
        return []
    framed = [_at_least(b, die_side) for b in boxes]
    batch = np.stack([crop(image, b, scale).transpose(2, 0, 1) for scale in (1.0, WIDER) for b in framed])
    with _ONE_AT_A_TIME:  # one network for the process: a camera and phones' photos may be read at once
        net = _net()
        net.setInput(batch)
        scores = net.forward().reshape(len(batch), -1)
    scores = np.exp(scores - scores.max(axis=1, keepdims=True))
    probs = scores / scores.sum(axis=1, keepdims=True)
    near, wide = probs[:len(boxes)], probs[len(boxes):]
    return [(int(a.argmax()), float(min(a.max(), b.max()))) if a.argmax() == b.argmax() else (OFF, 0.0)
            for a, b in zip(near, wide, strict=True)]


def _at_least(box: Box, side: float) -> Box:
    x, y, w, h = box
    if max(w, h) >= side:
        return box
    s = round(side)
    return (round(x + w / 2 - s / 2), round(y + h / 2 - s / 2), s, s)
