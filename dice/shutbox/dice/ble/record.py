"""The replay format: what the dice said, one JSON line each, as ``--record FILE`` writes and ``replay:FILE`` reads.

Each line is one object with exactly these keys::

    {"t": 1.25, "die": "GoDice_4F2A", "protocol": "godice", "event": "notify", "data": "5300c000"}

``t`` is seconds since the recording began (a number, never decreasing), ``die`` the die's name,
``protocol`` ``godice`` or ``pixels``, ``event`` ``connect``, ``disconnect`` or ``notify``, and ``data``
the notification's bytes as the die sent them, in hex (empty for a connect or a disconnect). Blank lines
are skipped. A file with anything else in it is refused whole, naming the line and what is allowed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from shutbox.base.errors import ShutboxError
from shutbox.base.text import quoted, shown
from shutbox.dice.ble.protocol import PROTOCOLS

#: The events a line may record.
EVENTS = ("connect", "disconnect", "notify")
#: The keys of a line, in the order they are written.
KEYS = ("t", "die", "protocol", "event", "data")
#: Longest die name kept, in characters.
MAX_NAME = 64
#: Longest notification kept, in bytes (a Pixels "I am a die" is 22).
MAX_DATA = 512
#: Largest replay file read, in bytes.
MAX_REPLAY = 64 * 1024 * 1024


@dataclass(frozen=True)
class Record:
    """One thing a die did: connected, disconnected, or sent ``data``, ``t`` seconds in."""

    t: float
    die: str
    protocol: str
    event: str
    data: bytes = b""

    def line(self) -> str:
        """The record as its JSON line (without the newline)."""
        return json.dumps({"t": round(self.t, 3), "die": self.die, "protocol": self.protocol, "event": self.event,
                           "data": self.data.hex()}, ensure_ascii=False)


def _field(obj: dict[str, Any], where: str) -> Record:
    keys = set(obj)
    if keys != set(KEYS):
        extra, missing = sorted(keys - set(KEYS)), [k for k in KEYS if k not in keys]
        said = f"unknown key {quoted(extra[0], 40)}" if extra else f"missing {missing[0]!r}"
        raise ShutboxError(f"{where}: {said}; a line has exactly the keys {', '.join(KEYS)}")
    t, die, protocol, event, data = (obj[k] for k in KEYS)
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
        raise ShutboxError(f"{where}: \"t\" is {shown(t, 40)}; give the seconds since the start, 0 or more")
    if not isinstance(die, str) or not die.strip() or len(die) > MAX_NAME or not die.isprintable():
        raise ShutboxError(f"{where}: \"die\" is {shown(die, 80)}; give the die's name (1 to {MAX_NAME} printable "
                           "characters)")
    if protocol not in PROTOCOLS:
        raise ShutboxError(f"{where}: \"protocol\" is {shown(protocol, 40)}; allowed: {', '.join(PROTOCOLS)}")
    if event not in EVENTS:
        raise ShutboxError(f"{where}: \"event\" is {shown(event, 40)}; allowed: {', '.join(EVENTS)}")
    if not isinstance(data, str) or len(data) > 2 * MAX_DATA:
        raise ShutboxError(f"{where}: \"data\" must be hex bytes (at most {MAX_DATA})")
    try:
        raw = bytes.fromhex(data)
    except ValueError:
        raise ShutboxError(f"{where}: \"data\" is {shown(data, 40)}; give the bytes in hex, e.g. \"5300c000\"") \
            from None
    if event != "notify" and raw:
        raise ShutboxError(f"{where}: a {event} has no data (\"data\": \"\")")
    return Record(float(t), die, str(protocol), str(event), raw)


def parse_replay(text: str, name: str) -> list[Record]:
    """Every record of a replay file's text (``name`` says which file, for errors)."""
    records: list[Record] = []
    last = 0.0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        if len(line) > 4 * MAX_DATA + 1024:
            raise ShutboxError(f"{where}: a line of {len(line)} characters is too long for one record")
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            raise ShutboxError(f"{where}: not a JSON object ({{\"t\": …, \"die\": …, \"protocol\": …, \"event\": …, "
                               "\"data\": …})") from None
        if not isinstance(obj, dict):
            raise ShutboxError(f"{where}: not a JSON object, a {type(obj).__name__}")
        record = _field(obj, where)
        if record.t < last:
            raise ShutboxError(f"{where}: \"t\" {record.t:g} goes back in time (the line before: {last:g})")
        last = record.t
        records.append(record)
    return records


def read_replay(path: Path) -> list[Record]:
    """The records of the replay file at ``path``; ShutboxError naming it if it cannot be read or is wrong."""
    name = f"replay:{shown(str(path), 200)}"
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_REPLAY + 1)
    except FileNotFoundError:
        raise ShutboxError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise ShutboxError(f"{name}: is a folder, not a replay file") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise ShutboxError(f"{name}: cannot be read ({shown(getattr(exc, 'strerror', None) or exc, 120)})") from None
    if len(data) > MAX_REPLAY:
        raise ShutboxError(f"{name}: larger than {MAX_REPLAY} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ShutboxError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    return parse_replay(text.removeprefix("\ufeff"), name)


def write_records(out: TextIO, records: Iterable[Record]) -> None:
    """Write records as replay lines, flushed (a recording read while it is made sees every line so far)."""
    for record in records:
        out.write(record.line() + "\n")
    out.flush()
