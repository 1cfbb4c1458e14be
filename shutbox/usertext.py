"""Text a user (or a file, a box, a database) gave us, made safe to echo: control characters escaped, kept short.

Every message that repeats outside text passes it through :func:`shown`; :func:`safe_line` is the last
guard on a whole error line (``shutbox: error: …``). Escaped are C0/C1 controls, DEL, lone surrogates and
the invisible format characters (bidirectional overrides, zero-width marks) — everything
``str.isprintable`` refuses except the plain space.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: Longest piece of outside text echoed in a message, in characters (after escaping).
SHOWN_LIMIT = 60
#: Longest whole error line.
LINE_LIMIT = 400


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(text: str) -> str:
    """``text`` with every non-printable character (but the space) written as ``\\xNN``/``\\uNNNN``."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit} chars)"


def shown(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """Outside text (or bytes, or any value) for a message: escaped and at most about ``limit`` characters.

    Only the first ``4 * limit`` characters are looked at, so a 20 MB value costs nothing.
    """
    if isinstance(value, (bytes, bytearray)):
        total, text = len(value), bytes(value[: 4 * limit]).decode("utf-8", "backslashreplace")
    else:
        text = value if isinstance(value, str) else _repr(value)
        total = len(text)
    head = escape(text[: 4 * limit])
    if len(head) <= limit and total <= 4 * limit:
        return head
    return f"{head[:limit]}…(+{max(total - limit, 1)} chars)"


def quoted(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """:func:`shown` in single quotes: ``'value'``."""
    return f"'{shown(value, limit)}'"


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # a deeply nested value, an int too long to print
        return f"<{type(value).__name__}>"
    return text


def safe_line(text: str, limit: int = LINE_LIMIT) -> str:
    """One whole line for the terminal: escaped, no line breaks, at most about ``limit`` characters."""
    return shorten(escape(text[: 4 * limit]), limit) if len(text) <= 4 * limit else \
        escape(text[:limit]) + f"…(+{len(text) - limit} chars)"
