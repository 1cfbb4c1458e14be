"""Parsing untrusted text within bounds: size, nesting, digits, finite numbers.

Python refuses ``int()`` of more than 4,300 digits and ``json``/``tomllib`` recurse once per nesting
level (a ``RecursionError`` on deep input), so every outside document is measured before it is parsed:
:func:`parse_json` and :func:`parse_toml` raise :class:`~shutbox.base.errors.ShutboxError` (one line naming
``where``) for anything too large, too deep, not finite or malformed.
"""

from __future__ import annotations

import math
import re

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: Deepest nesting of arrays/objects/tables accepted in a JSON or TOML document.
MAX_DEPTH = 32
#: Most digits in one whole number of a document (far more than any count, pin or timestamp needs).
MAX_DIGITS = 30
#: Largest document parsed, in characters.
MAX_DOCUMENT = 16 * 1024 * 1024

_OPEN_CLOSE = re.compile(r"[\[{]+|[\]}]+")


def nesting_depth(text: str, stop: int = MAX_DEPTH) -> int:
    """An upper bound of the bracket nesting of ``text`` (brackets inside strings count too).

    Counting stops once ``stop`` is exceeded, so hostile input costs one pass at most.
    """
    if text.count("[") + text.count("{") <= stop:
        return text.count("[") + text.count("{")
    depth = deepest = 0
    for run in _OPEN_CLOSE.finditer(text):
        if run.group()[0] in "[{":
            depth += len(run.group())
            if depth > stop:
                return depth
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - len(run.group()))
    return deepest


def check_document(text: str, where: str, kind: str) -> None:
    """Refuse a document too large or too deeply nested to parse safely."""
    if len(text) > MAX_DOCUMENT:
        raise ShutboxError(f"{where}: {kind} of {len(text)} characters is too large (at most {MAX_DOCUMENT})")
    if nesting_depth(text) > MAX_DEPTH:
        raise ShutboxError(f"{where}: {kind} nested more than {MAX_DEPTH} levels deep")


def whole(text: str) -> int:
    """A document's whole-number literal, refused beyond :data:`MAX_DIGITS` digits."""
    if len(text.lstrip("-+")) > MAX_DIGITS:
        raise ValueError(f"a whole number of {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


def finite(text: str) -> float:
    """A document's number literal, refused if it is not finite (NaN, Infinity, 1e999)."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{shown(text)} is not a finite number")
    return number


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def parse_json(text: str, where: str) -> Any:
    """The value of a JSON document, bounded and strict (no NaN/Infinity, no huge numbers)."""
    import json  # here, not at the top: it costs every command's start-up

    check_document(text, where, "JSON")
    try:
        return json.loads(text, parse_int=whole, parse_float=finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ShutboxError(f"{where}: not valid JSON ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise ShutboxError(f"{where}: not valid JSON ({shown(str(exc), 120)})") from None


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """The tables of a TOML document, bounded and strict (no nan/inf, no huge numbers)."""
    import tomllib

    check_document(text, where, "TOML")
    try:
        return tomllib.loads(text, parse_float=finite)
    except tomllib.TOMLDecodeError as exc:
        raise ShutboxError(f"{where}: not valid TOML ({exc})") from None
    except (ValueError, RecursionError) as exc:  # an integer past Python's digit limit, a bad float
        detail = "a whole number of more than 4300 digits" if "digits" in str(exc) else shown(str(exc), 120)
        raise ShutboxError(f"{where}: not valid TOML ({detail})") from None


def is_number(value: Any) -> bool:
    """An int or a finite float, and not a bool (``true`` is not a number)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value))


def is_whole(value: Any) -> bool:
    """An int, and not a bool (``true`` and ``1.0`` are not whole numbers here)."""
    return type(value) is int


# -- numbers a user types: every id, count, time and speed ---------------------------------------------

#: Largest number of a stored game (SQLite's INTEGER is 64-bit signed).
MAX_ID = 2**63 - 1
_WHOLE = re.compile(r"[+-]?[0-9]{1,30}")
_REAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,4})?")


def number_text(value: float) -> str:
    """A bound as a person writes it: ``1000000``, ``0.01``, ``2.5`` (never ``1e+06``)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".") if abs(value) >= 1e-6 else f"{value:g}"


def range_text(whole_number: bool, low: float | None, high: float | None, low_open: bool = False) -> str:
    """What a bounded number may be, naming both bounds: ``a whole number from 1 to 100``, ``a number > 0 and <= 5``."""
    kind = "a whole number" if whole_number else "a number"
    if low is not None and high is not None:
        if low_open:
            return f"{kind} > {number_text(low)} and <= {number_text(high)}"
        return f"{kind} from {number_text(low)} to {number_text(high)}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {number_text(low)}"
    if high is not None:
        return f"{kind} <= {number_text(high)}"
    return kind


def _refused(what: str, text: object, allowed: str, hint: str) -> ShutboxError:
    value = text if isinstance(text, str) else repr(text)
    return ShutboxError(f"{what} {shown(value.strip() if value.strip() else value)}: allowed: {allowed}{hint}")


def whole_within(text: str | int, what: str, low: int, high: int, hint: str = "") -> int:
    """``text`` as a whole number from ``low`` to ``high``; else one ShutboxError naming ``what``, the value and
    both bounds. Never converts more than 30 digits, so ``99…9`` (any length) is a clean refusal."""
    allowed = range_text(True, low, high)
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise _refused(what, text, allowed, hint)
    if isinstance(text, str):
        if not _WHOLE.fullmatch(text.strip()):
            raise _refused(what, text, allowed, hint)
        number = int(text.strip())
    else:
        number = text
    if not low <= number <= high:
        raise _refused(what, text, allowed, hint)
    return number


def real_within(text: str | float, what: str, low: float, high: float, *, low_open: bool = False,
                hint: str = "") -> float:
    """``text`` as a finite number within ``[low, high]`` (``(low, high]`` when ``low_open``); else one
    ShutboxError naming ``what``, the value and both bounds."""
    allowed = range_text(False, low, high, low_open)
    if isinstance(text, bool) or not isinstance(text, (int, float, str)):
        raise _refused(what, text, allowed, hint)
    if isinstance(text, str):
        if not _REAL.fullmatch(text.strip()):
            raise _refused(what, text, allowed, hint)
        number = float(text.strip())
    else:
        number = float(text)
    too_low = number <= low if low_open else number < low
    if not math.isfinite(number) or too_low or number > high:
        raise _refused(what, text, allowed, hint)
    return number


def whole_flag(what: str, low: int, high: int, hint: str = "") -> Any:
    """An argparse ``type=`` for a whole-number flag (:func:`whole_within`); its refusal is the command's one line."""

    def parse(text: str) -> int:
        return whole_within(text, what, low, high, hint)

    parse.__name__ = "whole number"
    return parse


def real_flag(what: str, low: float, high: float, *, low_open: bool = False, hint: str = "") -> Any:
    """An argparse ``type=`` for a number flag (:func:`real_within`)."""

    def parse(text: str) -> float:
        return real_within(text, what, low, high, low_open=low_open, hint=hint)

    parse.__name__ = "number"
    return parse
