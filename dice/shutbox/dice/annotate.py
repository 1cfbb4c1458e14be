"""Drawing a reading on its picture: each die read boxed in green with its value, each unsure die in amber."""

from __future__ import annotations

import cv2
import numpy as np

from shutbox.dice.reader import Reading

READ = (60, 200, 60)  # BGR
UNSURE = (0, 170, 255)


def annotate(image: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``image`` with the reading drawn on it."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    line = max(2, round(max(out.shape[:2]) / 400))
    for boxes, colour, labels in (([d.box for d in reading.dice], READ, [str(d.value) for d in reading.dice]),
                                  (list(reading.unsure), UNSURE, ["?"] * len(reading.unsure))):
        for (x, y, w, h), label in zip(boxes, labels, strict=True):
            cv2.rectangle(out, (x, y), (x + w, y + h), colour, line)
            scale = min(max(0.6, h / 60), 2.5)
            (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, line)
            ty = y - line * 2 if y - th - line * 2 > 0 else y + h + th + line * 2
            cv2.rectangle(out, (x, ty - th - base), (x + tw + line * 2, ty + base), colour, cv2.FILLED)
            cv2.putText(out, label, (x + line, ty), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), line, cv2.LINE_AA)
    return out
