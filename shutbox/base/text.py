"""Text a user (or a file, a box, a database) gave us, made safe to echo: control characters escaped, kept short.

Every message that repeats outside text passes it through :func:`shown`; :func:`safe_line` is the last
guard on a whole error line (``shutbox: error: …``). Escaped are C0/C1 controls, DEL, lone surrogates and
the invisible format characters (bidirectional overrides, zero-width marks) — everything
``str.isprintable`` refuses except the plain space — and the printable characters that show as nothing
(Hangul fillers, the braille blank). :func:`text_refusal` says why a text cannot be a name people read;
:func:`csv_cell` keeps a spreadsheet from reading a cell as a formula.
"""

from __future__ import annotations

import re
import unicodedata

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: Characters ``str.isprintable`` accepts that still show as nothing: the Hangul fillers, the braille blank, the
#: combining grapheme joiner and the Khmer inherent vowels (a name of them looks empty or like another name).
_INVISIBLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0]")

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
    """``text`` with every non-printable or invisible character (but the space) written as ``\\xNN``/``\\uNNNN``."""
    if text.isprintable() and not _INVISIBLE.search(text):
        return text
    return "".join(c if (c.isprintable() or c == " ") and not _INVISIBLE.match(c) else _escape(c) for c in text)


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


def path_text(path: object, limit: int = 400) -> str:
    """A path the user gave, for a line on the terminal (``wrote …``): escaped like :func:`shown`, kept whole up to
    ``limit`` characters (a path may hold a newline or an escape sequence that moves the cursor)."""
    return shown(str(path), limit)


#: What a character that cannot be in a name is, by its Unicode category.
_KINDS = {"Cc": "a control character", "Cf": "an invisible format character", "Cs": "a lone surrogate",
          "Co": "a private-use character", "Cn": "an unassigned character", "Zl": "a line separator",
          "Zp": "a paragraph separator", "Zs": "a space other than the plain space"}


def _character_text(char: str) -> str:
    import unicodedata

    kind = _KINDS.get(unicodedata.category(char), "an invisible character")
    name = unicodedata.name(char, "")
    return f"{kind} (U+{ord(char):04X}{' ' + name if name else ''})"


def text_refusal(text: str) -> str | None:
    """Why ``text`` cannot be a name people read (a player's name on a pad, the screen, the page, a CSV): it must
    be visible text — no control, format or line-separator character (U+2028), no non-breaking or other odd
    space, nothing invisible (U+3164, U+2800) — and show at least one letter, digit or sign. None if it can."""
    for char in text:
        if (not char.isprintable() and char != " ") or _INVISIBLE.match(char):
            return f"holds {_character_text(char)}, which is not visible text"
    if not any(not char.isspace() and not _combining(char) for char in text):
        return "shows no letter, digit or sign"
    return None


def shown_name(name: str) -> str:
    """A name as kept and shown: its spaces at the ends dropped, composed (NFC): ``René`` typed either way is one
    spelling."""
    return unicodedata.normalize("NFC", name.strip())


def name_key(name: str) -> str:
    """What two names must differ in to be two people: compatibility-normalised (NFKC: ``René`` composed or
    decomposed, ``ﬁ`` and ``fi``, full-width letters) and case-folded."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name.strip()).casefold())


def _combining(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


#: A spreadsheet reads a cell starting so as a formula (``=HYPERLINK(…)``, ``+1``, ``-1+1``, ``@SUM``), also after a
#: tab or a carriage return.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")


def csv_cell(text: str) -> str:
    """Outside text for a CSV cell: escaped (:func:`escape`) and, if a spreadsheet would take it as a formula,
    preceded by ``'`` so it stays text (OWASP's advice for CSV injection). Numbers are written as numbers by the
    caller, never through here."""
    text = escape(text)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
