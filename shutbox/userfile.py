"""Reading a file the user named: its text, or one clear line saying why it cannot be read."""

from __future__ import annotations

from pathlib import Path

from shutbox.errors import ShutboxError


def read_user_text(path: Path, what: str, flag: str | None = None,
                   error: type[ShutboxError] = ShutboxError) -> str:
    """The UTF-8 text of ``path``; raise ``error`` naming the file (``FLAG PATH`` when a flag gave it).

    ``what`` says what the file should be, e.g. ``"settings file"``.
    """
    name = f"{flag} {path}" if flag else str(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{name}: cannot read {what} ({exc})") from None
