# Runs under MicroPython: builds every line of the shared test vectors (argv[1]) with firmware/shutbox/firmware/wire.py
# and feeds every command vector to its CommandReader; prints what came out as JSON.
import json
import sys
from binascii import unhexlify

import wire

NAMES = {wire.HELLO: "hello", wire.SNAPSHOT: "snapshot", wire.REPL: "repl"}


def build(v):
    if v["kind"] == "hello":
        return wire.hello(v["seq"], v["firmware"], v["tiles"], v["board"], v["input"], v["button"], v["debounce_ms"])
    if v["kind"] == "snapshot":
        shut = 0
        for tile in v["shut"]:
            shut |= 1 << (tile - 1)
        return wire.snapshot(v["seq"], shut, v["tiles"], v["button"], v["presses"], v["why"])
    return wire.bye(v["seq"])


def commands(v):
    reader = wire.CommandReader()
    out = []
    for byte in unhexlify(v["send_hex"]):
        code = reader.feed(byte)
        if code:
            out.append(NAMES[code])
    return out


with open(sys.argv[1]) as f:
    vectors = json.load(f)
print(json.dumps({
    "lines": [build(v).decode() for v in vectors["lines"]],
    "commands": [commands(v) for v in vectors["commands"]],
    "crc_check": wire.crc16(b"123456789"),
}))
