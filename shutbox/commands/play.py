"""``shutbox play`` (live scoring from the box) and ``shutbox monitor`` (the box's snapshots as text or JSON)."""

from __future__ import annotations

import argparse
import json
import queue
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from shutbox.config import given_rule_flags
from shutbox.errors import ShutboxError
from shutbox.model import Kit

#: How long a new game waits for the box's first snapshot before starting without it.
BOX_WAIT_S = 3.0
PORT_HELP = "serial port of the box (a device such as /dev/ttyACM0, or auto: the one connected Pico) [default auto]"


def register(sub: argparse._SubParsersAction, common: list[argparse.ArgumentParser]) -> None:
    rule_flags = common[:1]
    p = sub.add_parser(
        "play", parents=rule_flags, help="keep score live from the box",
        description="Play on the box while the computer keeps score: type each throw ('3 5', or '4' for one "
                    "die); the tiles you shut on the box become the moves. Every event is saved before it "
                    "is shown; --resume continues the latest unfinished game.")
    p.add_argument("--port", default="auto", help=PORT_HELP)
    p.add_argument("--players", metavar="NAMES", help='players in turn order, comma separated, e.g. "Ann,Bob"')
    p.add_argument("--db", type=Path, metavar="FILE", help="game database [default: games.sqlite3 in the user's "
                   "data folder]")
    p.add_argument("--resume", action="store_true", help="continue the latest unfinished game")
    p.add_argument("--hint", action="store_true", help="after each throw, show the solver's best move")
    p.set_defaults(run=run_play)

    m = sub.add_parser(
        "monitor", parents=rule_flags, help="print each tile snapshot the box sends",
        description="Print every decoded tile snapshot from the box (for checking the wiring, or piping).")
    m.add_argument("--port", default="auto", help=PORT_HELP)
    m.add_argument("--json", action="store_true", help="one JSON object per line: seq, shut tiles, time, ...")
    m.add_argument("--count", type=int, metavar="N", help="stop after N snapshots [default: run until Ctrl-C]")
    m.set_defaults(run=run_monitor)


def parse_players(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if not any(names):
        raise ShutboxError(f"--players {text!r}: give the player names, comma separated, e.g. \"Ann,Bob\"")
    return names


def run_play(args: argparse.Namespace, kit: Kit) -> int:
    from shutbox.companion.link import BoxLink
    from shutbox.companion.session import LiveSession
    from shutbox.companion.store import GameStore, default_db_path
    from shutbox.companion.terminal import TextView, read_input
    from shutbox.game.replay import Game
    from shutbox.game.rules import IllegalMove

    db = args.db or default_db_path()
    view = TextView()
    events: queue.Queue[Any] = queue.Queue()
    session: LiveSession | None = None
    store: GameStore | None = None
    if args.resume:
        for flag, value in [("--players", args.players), *given_rule_flags(args)]:
            if value is not None:
                raise ShutboxError(f"{flag} {value}: not allowed with --resume (the saved game keeps its players "
                                   "and rules)")
        if not Path(db).exists():
            raise ShutboxError(f"--resume: no game database at {db} (start a game with --players)")
        store = GameStore(db)
        row = store.latest_unfinished()
        if row is None:
            store.close()
            raise ShutboxError(f"--resume: no unfinished game in {db} (start a game with --players)")
        session = LiveSession.resume(store, view, row.id, hint=args.hint)
        rules, names = session.rules, None
    else:
        if args.players is None:
            raise ShutboxError("--players is required to start a game, e.g. --players \"Ann,Bob\" "
                               "(or --resume to continue the latest unfinished one)")
        names = parse_players(args.players)
        try:
            Game(kit.rules).apply({"v": 1, "type": "players", "names": names})
        except IllegalMove as exc:
            raise ShutboxError(f"--players {args.players!r}: {exc}") from None
        rules = kit.rules
    link = BoxLink(args.port, rules.tiles, events.put)
    try:
        link.start()  # a port that cannot be opened stops here, before anything is written
        if session is not None:
            session.resumed()
        heard = _meet_the_box(events)  # so does a box with the wrong tile count
        if session is None:
            store = GameStore(db)
            session = LiveSession(rules, store, view, hint=args.hint)
        for item in heard:
            session.handle(item)
        if names is not None:
            session.start(names)
        read_input(sys.stdin, events.put)  # typed lines wait in the pipe until the box has been heard
        while not session.done:
            try:
                item = events.get(timeout=0.5)
            except queue.Empty:
                continue
            session.handle(item)
    except KeyboardInterrupt:
        if session is not None and session.game_id is not None:
            print(f"\ngame {session.game_id} is saved; `shutbox play --resume` continues it", flush=True)
        return 130
    finally:
        link.stop()
        if store is not None:
            store.close()
    assert session is not None
    if session.quit:
        print(f"game {session.game_id} is saved; `shutbox play --resume` continues it", flush=True)
    return 0


def _meet_the_box(events: queue.Queue[Any], wait_s: float = BOX_WAIT_S) -> list[Any]:
    """The link events up to the box's first snapshot (or ``wait_s``); the link's failure is raised."""
    from shutbox.companion.link import Failed, Received
    from shutbox.firmware.host.protocol import Snapshot

    heard: list[Any] = []
    deadline = time.monotonic() + wait_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            item = events.get(timeout=left)
        except queue.Empty:
            break
        if isinstance(item, Failed):
            raise item.error
        heard.append(item)
        if isinstance(item, Received) and isinstance(item.message, Snapshot):
            break
    return heard


def snapshot_record(message: Any, wall: float) -> dict[str, Any]:
    return {
        "seq": message.seq,
        "shut": sorted(message.shut_tiles),
        "time": datetime.fromtimestamp(wall).astimezone().isoformat(timespec="milliseconds"),
        "reason": message.reason,
        "button": message.button,
        "presses": message.presses,
    }


def run_monitor(args: argparse.Namespace, kit: Kit) -> int:
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
