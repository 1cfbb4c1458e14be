# Runs under MicroPython: plays debounce tables (JSON file in argv[1]) through firmware/shutbox/firmware/debounce.py
# and prints, per table, the events each step produced.
import json
import sys
from time import ticks_add

from debounce import Debouncer


def bits_of(levels):
    bits = 0
    for i in range(len(levels)):
        if levels[i] == "1":
            bits |= 1 << i
    return bits


def events(changed, stable, count):
    out = []
    for i in range(count):
        if changed >> i & 1:
            out.append(str(i + 1) + (" shut" if stable >> i & 1 else " open"))
    return out


def play(table):
    steps = table["steps"]
    count = len(steps[0][1])
    base = ticks_add(0, -table["ticks_before_wrap"]) if "ticks_before_wrap" in table else 0
    now = {"t": steps[0][0], "bits": bits_of(steps[0][1])}

    def read():
        return now["bits"]

    def clock():
        return ticks_add(base, now["t"])

    debouncer = Debouncer(read, clock, count, table["debounce_ms"])
    out = [[]]
    for t, levels, _expected in steps[1:]:
        now["t"] = t
        now["bits"] = bits_of(levels)
        out.append(events(debouncer.scan(), debouncer.stable, count))
    return out


with open(sys.argv[1]) as f:
    tables = json.load(f)
print(json.dumps({name: play(table) for name, table in tables.items()}))
