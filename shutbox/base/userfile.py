"""Reading a file the user named: its text, or one clear line saying why it cannot be read."""

from __future__ import annotations

from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown

#: Largest user file read (settings, game files, scripts, manifests), in bytes.
MAX_USER_FILE = 16 * 1024 * 1024


def read_user_text(path: Path, what: str, flag: str | None = None,
                   error: type[ShutboxError] = ShutboxError, limit: int = MAX_USER_FILE) -> str:
    """The UTF-8 text of ``path``; raise ``error`` naming the file (``FLAG PATH`` when a flag gave it).

    ``what`` says what the file should be, e.g. ``"settings file"``. At most ``limit`` bytes are read:
    a larger file (or an endless one such as ``/dev/zero``) is refused.
    """
    name = f"{flag} {shown(str(path), 200)}" if flag else shown(str(path), 200)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except IsADirectoryError:
        raise error(f"{name}: is a folder, not a {what}") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise error(f"{name}: cannot read {what} ({_reason(exc)})") from None
    if len(data) > limit:
        raise error(f"{name}: {what} larger than {limit} bytes")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark (Windows Notepad writes one) is not part of the text
    except UnicodeDecodeError as exc:
        raise error(f"{name}: {what} is not UTF-8 text (byte {exc.start})") from None


def _reason(exc: BaseException) -> str:
    return shown(getattr(exc, "strerror", None) or str(exc), 120)
