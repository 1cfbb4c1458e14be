"""``shutbox monitor``: every tile snapshot the box sends, as text or JSON lines."""

from __future__ import annotations

import argparse
import json
import queue
import sys
from datetime import datetime
from typing import Any

from shutbox.commands import add_port_argument
from shutbox.commandspec import Command
from shutbox.errors import ShutboxError
from shutbox.model import Kit


def _arguments(m: argparse.ArgumentParser) -> None:
    add_port_argument(m)
    m.add_argument("--json", action="store_true", help="one JSON object per line: seq, shut tiles, time, ...")
    m.add_argument("--count", type=int, metavar="N", help="stop after N snapshots [default: run until Ctrl-C]")


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
    from shutbox.companion.link import BoxLink, Connected, Disconnected, Failed, Noise, Received
    from shutbox.firmware.host.protocol import Hello, Snapshot

    if args.count is not None and args.count < 1:
        raise ShutboxError(f"--count {args.count}: must be a whole number >= 1")
    events: queue.Queue[Any] = queue.Queue()
    seen = 0
    try:
        with BoxLink(args.port, kit.rules.tiles, events.put):
            while args.count is None or seen < args.count:
                item = events.get()
                if isinstance(item, Failed):
                    raise item.error
                if isinstance(item, Received) and isinstance(item.message, Snapshot):
                    seen += 1
                    record = snapshot_record(item.message, item.wall)
                    if args.json:
                        print(json.dumps(record), flush=True)
                    else:
                        shut = " ".join(map(str, record["shut"])) or "none"
                        print(f"{record['time'][11:23]}  #{record['seq']:04d}  shut: {shut}  ({record['reason']}"
                              f"{', button pressed' if record['button'] else ''})", flush=True)
                elif isinstance(item, Received) and isinstance(item.message, Hello):
                    h = item.message
                    print(f"box: firmware {h.firmware}, {h.tiles} tiles, board {h.board}, input {h.tile_input}, "
                          f"debounce {h.debounce_ms} ms", file=sys.stderr, flush=True)
                elif isinstance(item, Noise):
                    print(f"rejected line: {item.rejected}", file=sys.stderr, flush=True)
                elif isinstance(item, (Connected, Disconnected)):
                    what = f"connected to {item.device}" if isinstance(item, Connected) else \
                        f"lost {item.device} ({item.reason}); waiting for it"
                    print(what, file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        return 130
    return 0


COMMANDS = (
    Command("monitor", "print each tile snapshot the box sends",
            "Print every decoded tile snapshot from the box (for checking the wiring, or piping).", run_monitor,
            ("rules.tiles",), _arguments),
)
