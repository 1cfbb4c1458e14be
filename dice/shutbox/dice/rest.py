"""When the dice in a camera's frames have come to rest: the picture moved, then held still for a while.

Each frame is shrunk to a small grey picture and compared with the one before; more than :data:`MOTION` of
its pixels changed by over :data:`CHANGE` is movement (a hand, a rolling die), less is stillness. The first
frame still for ``still_s`` after movement is the one to read; nothing more fires until something moves
again, so dice left lying are read once.
"""

from __future__ import annotations

import cv2
import numpy as np

#: A pixel of the shrunk grey frame changed by more than this (0-255) has moved (sensor noise does not).
CHANGE = 20.0
#: The share of changed pixels that counts as movement (a die is about 1 % of the frame).
MOTION = 0.002
SMALL = 160


class RestWatch:
    """Feed it frames with their times (seconds); it says which frame shows the dice come to rest."""

    def __init__(self, still_s: float = 0.5) -> None:
        self.still_s = still_s
        self._last: np.ndarray | None = None
        self._still_since: float | None = None
        self._armed = False  # something moved since the last rest

    def frame(self, image: np.ndarray, at: float) -> bool:
        """True for the frame that ends a still spell of ``still_s`` after movement."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        small = cv2.GaussianBlur(cv2.resize(grey, (SMALL, max(1, SMALL * grey.shape[0] // grey.shape[1])),
                                            interpolation=cv2.INTER_AREA), (3, 3), 0).astype(np.float32)
        last, self._last = self._last, small
        if last is None or last.shape != small.shape:
            return False
        if float((np.abs(small - last) > CHANGE).mean()) > MOTION:
            self._armed, self._still_since = True, None
            return False
        if self._still_since is None:
            self._still_since = at
        if self._armed and at - self._still_since >= self.still_s:
            self._armed = False
            return True
        return False
