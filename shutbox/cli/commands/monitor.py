"""``shutbox monitor``: every tile snapshot the box sends, as text or JSON lines."""

from __future__ import annotations

import argparse
import json
import queue
import sys
import time
from datetime import datetime
from typing import Any

from shutbox.base.bounded import real_flag, whole_flag
from shutbox.base.errors import ShutboxError
from shutbox.cli.commands import add_port_argument
from shutbox.cli.commandspec import FIRMWARE_SETTINGS, Command
from shutbox.kit.model import Kit

#: Most snapshots ``--count`` waits for; the longest a wiring-test step waits, seconds.
MAX_COUNT, MAX_STEP_S = 10**9, 3600.0
#: Seconds of silence (the firmware sends a heartbeat every second) after which ``monitor`` says so, once.
SILENT_S = 5.0


def _arguments(m: argparse.ArgumentParser) -> None:
    add_port_argument(m)
    m.add_argument("--json", action="store_true", help="one JSON object per line: seq, shut tiles, time, ...")
    m.add_argument("--count", type=whole_flag("--count", 1, MAX_COUNT), metavar="N",
                   help="stop after N snapshots [default: run until Ctrl-C]")
    m.add_argument("--test", action="store_true", help="wiring test: shut and open each tile in turn, then press "
                   "the button, as told; reports swapped, dead, stuck and noisy switches with the pin to check "
                   "(exit status 1 when a fault is found)")
    m.add_argument("--step-timeout", type=real_flag("--step-timeout", 0, MAX_STEP_S), default=20.0, metavar="S",
                   help="wiring test: seconds to wait for each step before calling it dead [default 20]")


def snapshot_record(message: Any, wall: float) -> dict[str, Any]:
    return {
        "seq": message.seq,
        "shut": sorted(message.shut_tiles),
        "time": datetime.fromtimestamp(wall).astimezone().isoformat(timespec="milliseconds"),
        "reason": message.reason,
        "button": message.button,
        "presses": message.presses,
    }


def run_monitor(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.companion.live.link import BoxLink, Failed, Noise, Received, silent_text
    from shutbox.firmware.host.protocol import Snapshot

    if args.test:
        return _wiring_test(args, kit)
    events: queue.Queue[Any] = queue.Queue()
    seen = 0
    try:
        with BoxLink(args.port, kit.rules.tiles, events.put):
            heard, said = time.monotonic(), False
            while args.count is None or seen < args.count:
                try:
                    item = events.get(timeout=0.25)
                except queue.Empty:
                    if not said and time.monotonic() - heard >= SILENT_S:
                        said = True
                        print(silent_text(args.port, SILENT_S), file=sys.stderr, flush=True)
                    continue
                if not isinstance(item, Noise):  # a line, a REPL, a crash or a (re)connection: not silent
                    heard, said = time.monotonic(), False
                if isinstance(item, Failed):
                    raise item.error
                if isinstance(item, Received) and isinstance(item.message, Snapshot):
                    seen += 1
                    _print_snapshot(snapshot_record(item.message, item.wall), args.json)
                else:
                    _say(item, args.port)
    except KeyboardInterrupt:
        return 130
    return 0


def _say(item: Any, port: str) -> None:
    """One line on stderr for what the link heard besides a snapshot."""
    from shutbox.companion.live.link import AtRepl, Connected, Disconnected, Noise, Received, crash_text, repl_text
    from shutbox.firmware.host.protocol import Crash, Hello

    text = ""
    if isinstance(item, Received) and isinstance(item.message, Hello):
        h = item.message
        text = (f"box: firmware {h.firmware}, {h.tiles} tiles, board {h.board}, input {h.tile_input}, "
                f"debounce {h.debounce_ms} ms")
    elif isinstance(item, Received) and isinstance(item.message, Crash):
        text = crash_text(port, item.message)
    elif isinstance(item, AtRepl):
        text = repl_text(port)
    elif isinstance(item, Noise):
        text = f"rejected line: {item.rejected}"
    elif isinstance(item, Connected):
        text = f"connected to {item.device}"
    elif isinstance(item, Disconnected):
        text = f"lost {item.device} ({item.reason}); waiting for it"
    if text:
        print(text, file=sys.stderr, flush=True)


def _print_snapshot(record: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(record), flush=True)
        return
    shut = " ".join(map(str, record["shut"])) or "none"
    print(f"{record['time'][11:23]}  #{record['seq']:04d}  shut: {shut}  ({record['reason']}"
          f"{', button pressed' if record['button'] else ''})", flush=True)


def _wiring_test(args: argparse.Namespace, kit: Kit) -> int:
    """``monitor --test``: walk through the tiles and the button, then report what to fix."""
    from shutbox.companion.live.link import BoxLink, Failed, Received
    from shutbox.companion.live.wiringtest import run_wiring_test
    from shutbox.firmware.host.plan import pin_map
    from shutbox.firmware.host.protocol import Snapshot

    if args.count is not None or args.json:
        raise ShutboxError("--test: not with --count or --json (the wiring test runs until every tile was tried)")
    if not 0.5 <= args.step_timeout <= 600 or args.step_timeout != args.step_timeout:
        raise ShutboxError(f"--step-timeout {args.step_timeout:g}: allowed 0.5 to 600 seconds")
    pins = pin_map(kit)
    events: queue.Queue[Any] = queue.Queue()

    def read(timeout: float) -> Snapshot | None:
        try:
            item = events.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(item, Failed):
            raise item.error
        return item.message if isinstance(item, Received) and isinstance(item.message, Snapshot) else None

    def say(text: str) -> None:
        print(f"> {text}", flush=True)

    try:
        with BoxLink(args.port, kit.rules.tiles, events.put):
            try:
                findings = run_wiring_test(pins, read, say, step_s=args.step_timeout)
            except TimeoutError:
                raise ShutboxError(f"--port {args.port}: the box sent no snapshot; is the shutbox firmware "
                                   "running on it?") from None
    except KeyboardInterrupt:
        return 130
    return _report(findings, kit.rules.tiles, pins.button is not None)


def _report(findings: list[Any], tiles: int, button: bool) -> int:
    if not findings:
        print(f"wiring OK: {tiles} tiles{' and the button' if button else ''} read right", flush=True)
        return 0
    print(f"wiring test: {len(findings)} problem{'s' if len(findings) != 1 else ''}", flush=True)
    for finding in findings:
        print(f"  {finding.kind}: {finding.text}", flush=True)
    return 1


COMMANDS = (
    Command("monitor", "print each tile snapshot the box sends",
            "Print every decoded tile snapshot from the box (for checking the wiring, or piping). --test walks "
            "through each tile and the button and says which GPIO and header pin to check.", run_monitor,
            ("rules.tiles", *FIRMWARE_SETTINGS), _arguments),
)
