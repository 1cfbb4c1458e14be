"""The box's serial line protocol, host side: decode and encode lines, frame a byte stream.

The format is specified in ``docs/protocol.md``; ``firmware/shutbox/firmware/wire.py`` is the device side and
``firmware/shutbox/firmware/protocol_vectors.json`` holds test vectors both sides are checked against.

A line is ``SB1 <seq> <kind> <key=value ...> *<CRC>`` ended by CR LF (LF alone is accepted).
``decode`` turns one line into a :class:`Hello`, :class:`Snapshot` or :class:`Bye`, or raises
:class:`Rejected`; :class:`StreamDecoder` does the same for a byte stream, resynchronising on
the next line after anything it cannot read.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass
from typing import Literal

PROTOCOL_VERSION = 1
#: Longest line accepted, in bytes, without its line end.
MAX_LINE = 120
#: Serial speed the host opens the port at (ignored by USB CDC and ptys, but pyserial wants one).
BAUD = 115200
SEQ_MODULO = 10000
PRESSES_MODULO = 10000
#: The box sends a snapshot at least this often (the firmware's HEARTBEAT_MS).
HEARTBEAT_S = 1.0
REASONS = ("boot", "change", "beat", "ask")
MAX_TILES = 32

#: The whole command set the firmware accepts (anything else is ignored by the box).
REQUEST_LINES: dict[str, bytes] = {"hello": b"H\n", "snapshot": b"S\n", "repl": b"REPL\n"}

RejectReason = Literal["checksum", "over-length", "malformed", "version", "noise"]

#: Whole-value patterns, used with ``fullmatch`` only (``$`` would also match before a trailing newline).
_TOKEN = re.compile(r"[A-Za-z0-9._+-]+")
_NUMBER = re.compile(r"0|[1-9][0-9]*")
_HEAD = re.compile(r"SB([0-9]{1,9}) ")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_ESCAPE = re.compile(rb"%([0-9A-F]{2})")
#: What a line may hold: printable ASCII only (no CR, LF, NUL or other controls inside it).
_PRINTABLE = re.compile(rb"[\x20-\x7e]*")


class Rejected(Exception):
    """A line the host cannot use: ``reason`` says why (checksum, over-length, malformed, version, noise)."""

    def __init__(self, reason: RejectReason, detail: str, line: bytes = b"") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason: RejectReason = reason
        self.detail = detail
        self.line = line


@dataclass(frozen=True)
class Hello:
    """Who is talking: sent at start and on request."""

    seq: int
    firmware: str
    tiles: int
    board: str
    tile_input: str
    button: bool
    debounce_ms: int


@dataclass(frozen=True)
class Snapshot:
    """Every tile's debounced state, sent on each change, on request and once a second."""

    seq: int
    shut: tuple[bool, ...]
    button: bool
    presses: int
    reason: str

    @property
    def tiles(self) -> int:
        return len(self.shut)

    @property
    def shut_tiles(self) -> frozenset[int]:
        """Numbers (1-based) of the shut tiles."""
        return frozenset(i + 1 for i, shut in enumerate(self.shut) if shut)

    @property
    def open_tiles(self) -> frozenset[int]:
        """Numbers (1-based) of the open tiles."""
        return frozenset(i + 1 for i, shut in enumerate(self.shut) if not shut)


@dataclass(frozen=True)
class Bye:
    """The firmware stops and leaves the board at its REPL (after the ``repl`` command)."""

    seq: int


@dataclass(frozen=True)
class Crash:
    """Something escaped the firmware (``E``): its exception, the crashes in a row, whether the board restarts."""

    seq: int
    error: str  #: the exception's type, e.g. ``TypeError``
    detail: str  #: its message (may be cut short to fit the line)
    crashes: int
    restarts: bool

    @property
    def text(self) -> str:
        return f"{self.error}: {self.detail}" if self.detail else self.error


Message = Hello | Snapshot | Bye | Crash


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, start 0xFFFF)."""
    return binascii.crc_hqx(data, 0xFFFF)


def _frame(seq: int, body: str) -> bytes:
    head = f"SB{PROTOCOL_VERSION} {seq} {body}".encode("ascii")
    return head + b" *%04X\r\n" % crc16(head)


def encode(message: Message) -> bytes:
    """The line (with CR LF) the firmware sends for ``message``."""
    if not 0 <= message.seq < SEQ_MODULO:
        raise ValueError(f"seq {message.seq} outside 0..{SEQ_MODULO - 1}")
    if isinstance(message, Hello):
        body = (f"H fw={message.firmware} tiles={message.tiles} board={message.board} "
                f"input={message.tile_input} button={int(message.button)} debounce={message.debounce_ms}")
    elif isinstance(message, Snapshot):
        bits = "".join("1" if s else "0" for s in message.shut)
        body = f"S shut={bits} btn={int(message.button)} presses={message.presses} why={message.reason}"
    elif isinstance(message, Crash):
        body = f"E type={message.error} crashes={message.crashes} restart={int(message.restarts)}"
        if message.detail:
            body += " msg=" + "".join(c if 32 < ord(c) < 127 and c != "%" else
                                      "".join(f"%{b:02X}" for b in c.encode()) for c in message.detail)
    else:
        body = "B"
    line = _frame(message.seq, body)
    if len(line) - 2 > MAX_LINE:
        raise ValueError(f"line longer than {MAX_LINE} bytes")
    return line


def decode(line: bytes | str) -> Message:
    """Decode one line (with or without its line end); raise :class:`Rejected` if it is unusable."""
    raw = line.encode("utf-8", "replace") if isinstance(line, str) else bytes(line)
    body = raw[:-1] if raw.endswith(b"\n") else raw
    body = body[:-1] if body.endswith(b"\r") else body
    if len(body) > MAX_LINE:
        raise Rejected("over-length", f"{len(body)} bytes, at most {MAX_LINE}", raw)
    if not _PRINTABLE.fullmatch(body):
        raise Rejected("noise" if not body.startswith(b"SB") else "malformed",
                       "not printable ASCII (a control character or line end inside the line)", raw)
    text = body.decode("ascii")
    head = _HEAD.match(text)
    if head is None:
        raise Rejected("noise", "not a protocol line", raw)
    if head.group(1) != str(PROTOCOL_VERSION):
        raise Rejected("version", f"protocol {head.group(1)}, this host reads {PROTOCOL_VERSION}", raw)
    checked, star, crc_text = text.rpartition(" *")
    if not star or not re.fullmatch(r"[0-9A-F]{4}", crc_text):
        raise Rejected("malformed", "no ' *XXXX' checksum at the end", raw)
    if crc16(checked.encode("ascii")) != int(crc_text, 16):
        raise Rejected("checksum", f"checksum {crc_text} does not match", raw)
    parts = checked.split(" ")
    seq = _number(parts[1], "seq", raw)
    if seq >= SEQ_MODULO:
        raise Rejected("malformed", f"seq {seq} outside 0..{SEQ_MODULO - 1}", raw)
    if len(parts) < 3:
        raise Rejected("malformed", "no message kind", raw)
    kind = parts[2]
    fields = _fields(parts[3:], raw)
    if kind == "H":
        tiles = _number(_need(fields, "tiles", raw), "tiles", raw)
        if not 1 <= tiles <= MAX_TILES:
            raise Rejected("malformed", f"tiles={tiles} outside 1..{MAX_TILES}", raw)
        return Hello(
            seq=seq,
            firmware=_token(_need(fields, "fw", raw), "fw", raw),
            tiles=tiles,
            board=_token(_need(fields, "board", raw), "board", raw),
            tile_input=_token(_need(fields, "input", raw), "input", raw),
            button=_flag(_need(fields, "button", raw), "button", raw),
            debounce_ms=_number(_need(fields, "debounce", raw), "debounce", raw),
        )
    if kind == "S":
        bits = _need(fields, "shut", raw)
        if not (1 <= len(bits) <= MAX_TILES and set(bits) <= {"0", "1"}):
            raise Rejected("malformed", f"shut={bits} is not 1 to {MAX_TILES} characters 0/1", raw)
        presses = _number(_need(fields, "presses", raw), "presses", raw)
        if presses >= PRESSES_MODULO:
            raise Rejected("malformed", f"presses={presses} outside 0..{PRESSES_MODULO - 1}", raw)
        reason = _need(fields, "why", raw)
        if reason not in REASONS:
            raise Rejected("malformed", f"why={reason} is not one of {', '.join(REASONS)}", raw)
        return Snapshot(
            seq=seq,
            shut=tuple(c == "1" for c in bits),
            button=_flag(_need(fields, "btn", raw), "btn", raw),
            presses=presses,
            reason=reason,
        )
    if kind == "B":
        return Bye(seq=seq)
    if kind == "E":
        error = _need(fields, "type", raw)
        if not _NAME.fullmatch(error):
            raise Rejected("malformed", f"type={error} is not a name", raw)
        return Crash(seq=seq, error=error, detail=_unescape(fields.get("msg", "")),
                     crashes=_number(_need(fields, "crashes", raw), "crashes", raw),
                     restarts=_flag(_need(fields, "restart", raw), "restart", raw))
    raise Rejected("malformed", f"unknown message kind {kind!r}", raw)


def _unescape(text: str) -> str:
    """A ``msg`` value with its ``%XX`` escapes undone (UTF-8; a character cut short is replaced)."""
    raw = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), text.encode("ascii"))
    return raw.decode("utf-8", "replace")


def _fields(items: list[str], raw: bytes) -> dict[str, str]:
    fields: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise Rejected("malformed", f"field {item!r} is not key=value", raw)
        if key in fields:
            raise Rejected("malformed", f"field {key!r} given twice", raw)
        fields[key] = value
    return fields


def _need(fields: dict[str, str], key: str, raw: bytes) -> str:
    try:
        return fields[key]
    except KeyError:
        raise Rejected("malformed", f"field {key!r} missing", raw) from None


def _number(text: str, name: str, raw: bytes) -> int:
    if len(text) > 9 or not _NUMBER.fullmatch(text):
        raise Rejected("malformed", f"{name}={text} is not a whole number", raw)
    return int(text)


def _flag(text: str, name: str, raw: bytes) -> bool:
    if text not in ("0", "1"):
        raise Rejected("malformed", f"{name}={text} is not 0 or 1", raw)
    return text == "1"


def _token(text: str, name: str, raw: bytes) -> str:
    if not _TOKEN.fullmatch(text):
        raise Rejected("malformed", f"{name}={text!r} has characters outside A-Z a-z 0-9 . _ + -", raw)
    return text


class LineFramer:
    """Cuts a byte stream into lines at LF; a run longer than ``max_line`` is dropped up to the next LF."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._dropping = 0

    @property
    def pending(self) -> bytes:
        """The bytes after the last line end, not yet a line (a REPL's prompt waits there)."""
        return bytes(self._buf)

    def feed(self, data: bytes) -> list[bytes | Rejected]:
        """Take received bytes; return the complete lines (without line end) and over-length rejections."""
        out: list[bytes | Rejected] = []
        start = 0
        limit = self.max_line + 1  # room for the CR before the LF
        while start < len(data):
            end = data.find(b"\n", start)
            chunk = data[start:] if end < 0 else data[start:end]
            if self._dropping:
                self._dropping += len(chunk)
            else:
                self._buf += chunk
                if len(self._buf) > limit:
                    self._dropping = len(self._buf)
                    self._buf.clear()
            if end < 0:
                break
            if self._dropping:
                out.append(Rejected("over-length", f"{self._dropping} bytes without a line end, at most "
                                    f"{self.max_line}"))
                self._dropping = 0
            else:
                line = bytes(self._buf)
                self._buf.clear()
                out.append(line[:-1] if line.endswith(b"\r") else line)
            start = end + 1
        return out


class StreamDecoder:
    """Decodes a byte stream from the box into messages and rejections, in order.

    ``missed`` counts lines lost in transit, judged from gaps in the sequence numbers (a hello
    with sequence 0 means the box restarted and is not counted as a gap).
    """

    def __init__(self) -> None:
        self.framer = LineFramer()
        self.last_seq: int | None = None
        self.missed = 0
        self.rejected = 0

    def feed(self, data: bytes) -> list[Message | Rejected]:
        out: list[Message | Rejected] = []
        for item in self.framer.feed(data):
            if isinstance(item, Rejected):
                self.rejected += 1
                out.append(item)
                continue
            if not item.strip():
                continue
            try:
                message = decode(item)
            except Rejected as exc:
                self.rejected += 1
                out.append(exc)
                continue
            self._track(message)
            out.append(message)
        return out

    def _track(self, message: Message) -> None:
        restarted = isinstance(message, Hello | Crash) and message.seq == 0  # a crash line starts again at 0
        if self.last_seq is not None and not restarted:
            self.missed += (message.seq - self.last_seq - 1) % SEQ_MODULO
        self.last_seq = message.seq


def command(name: str) -> bytes:
    """The bytes that send command ``name`` (hello, snapshot or repl) to the box."""
    try:
        return REQUEST_LINES[name]
    except KeyError:
        raise ValueError(f"unknown command {name!r}; allowed: {', '.join(REQUEST_LINES)}") from None
