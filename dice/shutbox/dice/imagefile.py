"""Opening a picture the user named: decoded by OpenCV, or one clear line saying why not.

The header is read first (Pillow, without decoding): a file that is no picture, or one whose pixels
would not fit in memory (a few bytes can claim a 100 000 x 100 000 image), is refused before decoding.
"""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

import numpy as np
from PIL.Image import DecompressionBombWarning

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown

#: Largest picture file read, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Largest picture decoded, in pixels (a 48-megapixel phone photo is 8000 x 6000).
MAX_PIXELS = 50_000_000
#: What a picture may be.
FORMATS = ("JPEG", "PNG", "BMP", "WEBP", "TIFF")
#: Pillow warns (two lines on the terminal) before its own bomb limit; this reader refuses at MAX_PIXELS itself.
warnings.filterwarnings("ignore", category=DecompressionBombWarning)
#: Least side a die can be read in, px: a picture (or the reader's working copy of it) narrower shows none.
MIN_SIDE = 16


def quiet_opencv() -> None:
    """OpenCV says only errors on stderr, and the FFmpeg it opens videos with only fatal ones (unless the user set
    ``OPENCV_FFMPEG_LOGLEVEL``; read when FFmpeg is first used): a decoder's or a capture's complaint would be a
    second line beside the kit's own one-line error."""
    import os

    import cv2

    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "8")
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


def read_image_bytes(data: bytes | bytearray, name: str) -> np.ndarray:
    """The BGR pixels of a picture file's bytes; ``name`` (a path or ``upload``) names it in errors."""
    import io

    from PIL import Image, UnidentifiedImageError

    if len(data) > MAX_FILE_BYTES:
        raise ShutboxError(f"{name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB; not read")
    try:
        with Image.open(io.BytesIO(data)) as header:
            kind, (width, height) = header.format, header.size
    except Image.DecompressionBombError:
        raise ShutboxError(f"{name}: claims more than the {MAX_PIXELS // 1_000_000} megapixels read; not decoded") \
            from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise ShutboxError(f"{name}: not a picture, or a damaged one ({', '.join(FORMATS)} are read)") from None
    if kind not in FORMATS:
        raise ShutboxError(f"{name}: a {kind} picture; one of {', '.join(FORMATS)} is read")
    if min(width, height) < MIN_SIDE:
        raise ShutboxError(f"{name}: {width} x {height} pixels is too small to show a die; at least {MIN_SIDE} pixels "
                           "a side is read")
    if width * height > MAX_PIXELS:
        raise ShutboxError(f"{name}: {width} x {height} pixels is more than the {MAX_PIXELS // 1_000_000} "
                           "megapixels read; scale it down")
    return _decoded(data, name, kind)


def _decoded(data: bytes | bytearray, name: str, kind: str) -> np.ndarray:
    """The BGR pixels, decoded by Pillow (silent: OpenCV's libjpeg and libpng print their complaints on the
    terminal, "Corrupt JPEG data", "libpng error"), turned as the picture's EXIF orientation says, as OpenCV would."""
    import io

    from PIL import Image, ImageOps

    cannot = ShutboxError(f"{name}: a {kind} file that cannot be decoded (damaged, cut short, or of pixels this "
                          "reader does not decode, such as floating point)")
    try:
        with Image.open(io.BytesIO(data)) as picture:
            if picture.mode in ("F", "I"):
                raise cannot
            picture.load()
            upright = ImageOps.exif_transpose(picture)
            if upright.mode.startswith("I;16"):
                pixels = (np.asarray(upright, dtype=np.uint16) >> 8).astype(np.uint8)
                return np.ascontiguousarray(np.repeat(pixels[:, :, None], 3, axis=2))
            rgb = np.asarray(upright.convert("RGB"))
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise cannot from None
    if rgb.size == 0:
        raise cannot
    return np.ascontiguousarray(rgb[:, :, ::-1])


def check_picture_file(path: Path | str) -> None:
    """Refuse, in one line, a name that is no picture file to read: empty, missing, a folder, a pipe or a device
    (reading a FIFO would wait for ever)."""
    text = str(path)
    if not text:
        raise ShutboxError("'': an empty name; give the name of a picture file")
    name = shown(text, 200)
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        raise ShutboxError(f"{name}: no such file") from None
    except (OSError, ValueError) as exc:
        raise ShutboxError(f"{name}: cannot be read ({shown(getattr(exc, 'strerror', None) or str(exc), 120)})") \
            from None
    if stat.S_ISDIR(mode):
        raise ShutboxError(f"{name}: is a folder, not a picture")
    if not stat.S_ISREG(mode):
        raise ShutboxError(f"{name}: is not a regular file (a pipe, a socket or a device); give a picture file")


def read_image(path: Path | str) -> np.ndarray:
    """The BGR pixels of the picture at ``path`` (a regular file: a pipe is refused, never waited on)."""
    check_picture_file(path)
    name = shown(str(path), 200)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # replaced by a FIFO since the check: no wait
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ShutboxError(f"{name}: is not a regular file (a pipe, a socket or a device); give a picture file")
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ShutboxError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise ShutboxError(f"{name}: is a folder, not a picture") from None
    except (OSError, ValueError) as exc:
        raise ShutboxError(f"{name}: cannot be read ({shown(getattr(exc, 'strerror', None) or str(exc), 120)})") \
            from None
    return read_image_bytes(data, name)
