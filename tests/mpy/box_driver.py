# Runs under MicroPython: runs firmware/shutbox/firmware/box.py's Box on a simulated clock (1 ms steps), with the
# inputs, host bytes and link behaviour of a scenario (JSON file in argv[1]); prints every line
# written with the time it was written, and counters.
import json
import sys
from binascii import unhexlify

from box import Box
from link import LineWriter


class Cfg:
    pass


with open(sys.argv[1]) as f:
    scenario = json.load(f)
cfg = Cfg()
for key, value in scenario["cfg"].items():
    setattr(cfg, key, tuple(value) if isinstance(value, list) else value)

state = {"t": 0, "bits": 0}
inputs = sorted(scenario.get("inputs", []))
host = sorted([t, unhexlify(data)] for t, data in scenario.get("host_hex", []))
blocked = scenario.get("not_writable", [])
slow = scenario.get("slow_writes", [])
written = []


def clock():
    return state["t"]


def read():
    return state["bits"]


def writable():
    for start, end in blocked:
        if start <= state["t"] < end:
            return False
    return True


partial = {"t": 0, "text": ""}


def write(data):
    # the writer may send a line a byte at a time: a line is recorded, at its first byte's time, once whole
    if not partial["text"]:
        partial["t"] = state["t"]
    partial["text"] += bytes(data).decode()
    if partial["text"].endswith("\n"):
        written.append([partial["t"], partial["text"]])
        partial["text"] = ""
    for start, end, cost in slow:
        if start <= state["t"] < end:
            state["t"] += cost


box = None
t = 0
until = scenario["until"]
while t <= until:
    state["t"] = t
    while inputs and inputs[0][0] <= t:
        state["bits"] = inputs.pop(0)[1]
    if box is None:
        box = Box(cfg, read, clock, LineWriter(write, clock, writable))
    while host and host[0][0] <= t:
        for byte in host.pop(0)[1]:
            box.feed(byte)
    box.tick(t)
    if not box.running:
        break
    t = max(t, state["t"]) + 1
print(json.dumps({"written": written, "scans": box.scans, "stalls": box.writer.stalls,
                  "running": box.running, "end": t}))
