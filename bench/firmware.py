"""Benchmark: the firmware's free memory after start and the cost of one scan, on unix MicroPython.

Runs the real firmware modules under the unix port with the fake ``machine`` (firmware/shutbox/firmware/sim) and a
heap the size of a Pico's (``-X heapsize``). The unix port is 64-bit, so objects take more room
than on the RP2040 (memory figures are an upper bound) and the CPU is far faster (times are a lower
bound; an RP2040 at 125 MHz runs MicroPython bytecode roughly 20-50x slower).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from shutbox.companion.sim.box import find_micropython, sim_dir
from shutbox.firmware.host.bundle import firmware_dir
from shutbox.firmware.host.plan import config_module, pin_map
from shutbox.kit.model import build_kit

HEAP = "192K"  # about what gc.mem_free() shows on a Pico at the REPL
SCANS = 20000

DEVICE = r"""
import gc, json, sys
from time import ticks_diff, ticks_ms, ticks_us
gc.collect()
base_alloc = gc.mem_alloc()
import boxcfg, inputs, wire
from box import Box
from link import LineWriter

sent = []
read = inputs.make_reader(boxcfg)
box = Box(boxcfg, read, ticks_ms, LineWriter(sent.append, ticks_ms))
gc.collect()
after_start = {"mem_free": gc.mem_free(), "mem_alloc": gc.mem_alloc(), "firmware_alloc": gc.mem_alloc() - base_alloc}

def per_call(fn, n):
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    start = ticks_us()
    for _ in range(n):
        fn()
    took = ticks_diff(ticks_us(), start)
    grown = gc.mem_alloc() - before
    gc.enable()
    return took / n, grown / n

now = ticks_ms()
scan_us, scan_bytes = per_call(lambda: box.scan(now), N)
read_us, read_bytes = per_call(read, N)
deb = box.inputs
debounce_us, debounce_bytes = per_call(lambda: deb.update(0b101, now), N)
snap_us, snap_bytes = per_call(lambda: wire.snapshot(1, 0b100010001, boxcfg.TILES, False, 0, "beat"), 50)
print(json.dumps({"start": after_start, "scan_us": scan_us, "scan_bytes": scan_bytes, "read_us": read_us,
                  "read_bytes": read_bytes, "debounce_us": debounce_us, "debounce_bytes": debounce_bytes,
                  "snapshot_line_us": snap_us, "snapshot_line_bytes": snap_bytes}))
"""


def measure(settings: dict[str, object]) -> dict:
    kit = build_kit(settings)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "boxcfg.py").write_text(config_module(pin_map(kit)))
        script = Path(tmp) / "bench.py"
        script.write_text(f"N = {SCANS}\n" + DEVICE)
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(map(str, [sim_dir(), tmp, firmware_dir()])))
        env.pop("SHUTBOX_SIM_CTL", None)
        proc = subprocess.run([find_micropython(), "-X", f"heapsize={HEAP}", str(script)], capture_output=True,
                              text=True, env=env, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark failed:\n{proc.stdout}{proc.stderr}")
    return json.loads(proc.stdout)


def main() -> int:
    cases = {
        "9 tiles on GPIO + button": {},
        "12 tiles on GPIO + button": {"rules.tiles": 12},
        "12 tiles on 2x74HC165 + button": {"rules.tiles": 12, "firmware.tile_input": "74hc165"},
    }
    print(f"firmware on unix MicroPython, heap {HEAP}, fake machine pins; {SCANS} scans per figure")
    for name, settings in cases.items():
        r = measure(settings)
        start = r["start"]
        print(f"{name}: after start mem_free {start['mem_free']} B (firmware objects {start['firmware_alloc']} B); "
              f"one scan {r['scan_us']:.2f} us ({r['read_us']:.2f} us reading pins, "
              f"{r['debounce_us']:.2f} us debounce), {r['scan_bytes']:.1f} B allocated per scan; "
              f"snapshot line {r['snapshot_line_us']:.1f} us, {r['snapshot_line_bytes']:.0f} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
