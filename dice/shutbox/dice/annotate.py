"""Drawing a reading on its picture: each die read boxed in green with its value, each unsure die in amber."""

from __future__ import annotations

import struct
import zlib

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


#: The PNG text chunk every drawing carries, right after its header: how a later run knows it may replace the file.
MARK = b"Software\0shutbox dice --annotate"
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_AFTER_HEADER = len(_SIGNATURE) + 4 + 4 + 13 + 4  # the signature and the IHDR chunk


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


_MARK_CHUNK = _chunk(b"tEXt", MARK)


def annotated_png(image: np.ndarray, reading: Reading) -> bytes | None:
    """The drawing as PNG bytes, marked as this program's (None if OpenCV cannot encode it)."""
    ok, data = cv2.imencode(".png", annotate(image, reading))
    if not ok:
        return None
    png = data.tobytes()
    return png[:_AFTER_HEADER] + _MARK_CHUNK + png[_AFTER_HEADER:]


def is_drawing(head: bytes) -> bool:
    """Do the first bytes of a file show a drawing this program wrote (:func:`annotated_png`)?"""
    return head.startswith(_SIGNATURE) and head[_AFTER_HEADER:_AFTER_HEADER + len(_MARK_CHUNK)] == _MARK_CHUNK


#: How many bytes :func:`is_drawing` needs.
HEAD_BYTES = _AFTER_HEADER + len(_MARK_CHUNK)
