"""Benchmark: the firmware on the emulated Pico (MicroPython's RP2040 port in rp2040js,
firmware/shutbox/firmware/emulator).

- boot: power-up to the first snapshot (the board's file system preloaded with the firmware), in device
  time (when the board sent it) and wall time (when the host had it);
- flip: a tile switch settling (after its bounce) to the change snapshot on the host, device and wall time,
  at the default debounce (30 ms) and scan (5 ms);
- deploy: ``shutbox firmware deploy`` onto a blank board, until it reports the board running again;
- pace: device seconds per wall second while the firmware streams (the emulator is slower than a chip).

Device times are what a real RP2040 would show (the same code, the same clock); wall times depend on how
fast this machine runs the emulator.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time

from shutbox.companion.sim.emulated import EmulatedBox
from shutbox.firmware.host.protocol import Snapshot, StreamDecoder
from shutbox.kit.model import build_kit

FLIPS = 10


def _reader(port: str):  # noqa: ANN202 - a pyserial object
    import serial

    return serial.serial_for_url(port, 115200, timeout=0.02)


def _next_snapshot(link, decoder: StreamDecoder, reason: str) -> float:  # noqa: ANN001
    while True:
        for message in decoder.feed(link.read(256)):
            if isinstance(message, Snapshot) and message.reason == reason:
                return time.monotonic()


def boot_and_flips() -> dict[str, object]:
    result: dict[str, object] = {}
    with EmulatedBox(build_kit({}), power=False) as box:
        pico = box.board
        link = _reader(pico.port)
        decoder = StreamDecoder()
        seen: dict[str, float] = {}
        watcher = threading.Thread(target=lambda: seen.update(device=pico.watch("why=boot")))
        watcher.start()
        time.sleep(0.2)  # the watch request is in before power-up
        start = time.monotonic()
        box.power_on()
        arrived = _next_snapshot(link, decoder, "boot")
        watcher.join()
        result["boot_device_ms"] = round(seen["device"] / 1000, 1)
        result["boot_wall_s"] = round(arrived - start, 2)

        device, wall = [], []
        for i in range(FLIPS):
            tile = 1 + i % 9
            shut = i // 9 % 2 == 0
            holder: dict[str, float] = {}
            watcher = threading.Thread(target=lambda h=holder: h.update(device=pico.watch("why=change")))
            watcher.start()
            time.sleep(0.05)
            sent = time.monotonic()
            settled = box.set_tile(tile, shut)
            arrived = _next_snapshot(link, decoder, "change")
            watcher.join()
            device.append((holder["device"] - settled) / 1000)
            wall.append(arrived - sent)
        result["flip_device_ms"] = {"median": round(statistics.median(device), 1), "max": round(max(device), 1)}
        result["flip_wall_s"] = {"median": round(statistics.median(wall), 3), "max": round(max(wall), 3)}
        t0, d0 = time.monotonic(), pico.device_time_us()
        time.sleep(3)
        result["pace_device_per_wall"] = round((pico.device_time_us() - d0) / 1e6 / (time.monotonic() - t0), 2)
        link.close()
    return result


def deploy() -> dict[str, object]:
    with EmulatedBox(build_kit({}), blank=True) as box:
        box.board.wait_event("usb", 30)
        time.sleep(1.0)  # the fresh board formats its file system at first boot
        d0, start = box.board.device_time_us(), time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "shutbox", "firmware", "deploy", "--port", box.port],
                              capture_output=True, text=True)
        wall = time.monotonic() - start
        if proc.returncode != 0:
            raise SystemExit(f"deploy failed: {proc.stderr}")
        return {"deploy_wall_s": round(wall, 1), "deploy_device_s": round((box.board.device_time_us() - d0) / 1e6, 1)}


def main() -> None:
    figures = {**boot_and_flips(), **deploy()}
    print(json.dumps(figures))
    flip_d, flip_w = figures["flip_device_ms"], figures["flip_wall_s"]
    assert isinstance(flip_d, dict) and isinstance(flip_w, dict)
    print(f"boot to first snapshot: {figures['boot_device_ms']} ms device, {figures['boot_wall_s']} s wall\n"
          f"flip to snapshot on the host: {flip_d['median']} ms device (max {flip_d['max']}), "
          f"{flip_w['median']} s wall (max {flip_w['max']})\n"
          f"deploy (blank board): {figures['deploy_wall_s']} s wall, {figures['deploy_device_s']} s device\n"
          f"emulator pace: {figures['pace_device_per_wall']} device s per wall s", file=sys.stderr)


if __name__ == "__main__":
    main()
