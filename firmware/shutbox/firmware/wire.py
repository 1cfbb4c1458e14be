"""The line protocol, device side: build hello, snapshot and bye lines; read host commands.

Every line is ``SB1 <seq> <kind> <key=value ...> *<CRC>`` and CR LF, where CRC is the
CRC-16/CCITT-FALSE of everything before `` *`` as four upper-case hex digits (docs/protocol.md).
"""

from array import array

from micropython import const

PROTOCOL = const(1)
SEQ_MODULO = const(10000)
MAX_COMMAND = const(8)
MAX_LINE = const(120)

HELLO = const(1)
SNAPSHOT = const(2)
REPL = const(3)

#: The whole command whitelist: anything else the host sends is dropped.
REQUEST_IDS = {b"H": HELLO, b"h": HELLO, b"S": SNAPSHOT, b"s": SNAPSHOT, b"REPL": REPL}


def _crc_table() -> array:
    table = array("H", bytes(512))
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table[i] = crc & 0xFFFF
    return table


_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, start 0xFFFF), as the host's binascii.crc_hqx."""
    crc = 0xFFFF
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc


def frame(seq: int, body: str) -> bytes:
    """One complete line: header, body, checksum and CR LF."""
    head = ("SB%d %d " % (PROTOCOL, seq) + body).encode()
    return head + (" *%04X\r\n" % crc16(head)).encode()


def bits_text(bits: int, count: int) -> str:
    """``count`` characters, the first for bit 0: ``1`` where the bit is set."""
    out = bytearray(count)
    for i in range(count):
        out[i] = 49 if (bits >> i) & 1 else 48
    return out.decode()


def hello(seq: int, firmware: str, tiles: int, board: str, tile_input: str, button: bool, debounce_ms: int) -> bytes:
    return frame(seq, "H fw=%s tiles=%d board=%s input=%s button=%d debounce=%d"
                 % (firmware, tiles, board, tile_input, 1 if button else 0, debounce_ms))


def snapshot(seq: int, shut: int, tiles: int, button: bool, presses: int, why: str) -> bytes:
    return frame(seq, "S shut=%s btn=%d presses=%d why=%s"
                 % (bits_text(shut, tiles), 1 if button else 0, presses, why))


def bye(seq: int) -> bytes:
    return frame(seq, "B")


def crash(seq: int, kind: str, message: str, crashes: int, restart: bool) -> bytes:
    """The error line: what escaped the firmware, how many times in a row, and whether it restarts."""
    body = "E type=%s crashes=%d restart=%d" % (kind, crashes, 1 if restart else 0)
    room = MAX_LINE - len("SB%d %d " % (PROTOCOL, seq)) - len(body) - len(" msg=") - len(" *0000")
    text = escaped(message, room)
    return frame(seq, body + " msg=" + text if text else body)


def escaped(text: str, room: int) -> str:
    """``text`` with every space, ``%``, control and non-ASCII byte written ``%XX``, cut to ``room`` characters."""
    out = []
    used = 0
    for byte in text.encode():
        piece = chr(byte) if 32 < byte < 127 and byte != 37 else "%%%02X" % byte
        if used + len(piece) > room:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out)


class CommandReader:
    """Collects bytes from the host into short lines and returns whitelisted commands.

    Spaces are skipped; a control byte (a stray Ctrl-C, say) or a non-ASCII byte clears the line
    so far; a line longer than MAX_COMMAND is dropped whole. CR and LF end a line.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, byte: int) -> int:
        """Take one byte; return a command code when it completes a whitelisted line, else 0."""
        if byte == 10 or byte == 13:
            line = bytes(self._buf)
            overflow = self._overflow
            self._buf = bytearray()
            self._overflow = False
            if overflow or not line:
                return 0
            return REQUEST_IDS.get(line, 0)
        if byte == 32:
            return 0
        if byte < 32 or byte > 126:
            self._buf = bytearray()
            return 0
        if len(self._buf) >= MAX_COMMAND:
            self._overflow = True
        else:
            self._buf.append(byte)
        return 0
