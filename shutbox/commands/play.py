"""``shutbox play``: live scoring from the box."""

from __future__ import annotations

import argparse
import queue
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.commands import add_port_argument
from shutbox.commandspec import Command
from shutbox.config import given_rule_flags
from shutbox.errors import ShutboxError
from shutbox.model import Kit

if TYPE_CHECKING:
    from shutbox.companion.session import LiveSession, View
    from shutbox.companion.store import GameStore

#: How long a new game waits for the box's first snapshot before starting without it.
BOX_WAIT_S = 3.0


def _arguments(p: argparse.ArgumentParser) -> None:
    add_port_argument(p)
    p.add_argument("--players", metavar="NAMES", help='players in turn order, comma separated, e.g. "Ann,Bob"')
    p.add_argument("--db", type=Path, metavar="FILE", help="game database [default: games.sqlite3 in the user's "
                   "data folder]")
    p.add_argument("--resume", action="store_true", help="continue the latest unfinished game")
    p.add_argument("--hint", action="store_true", help="after each throw, show the solver's best move")


def parse_players(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if not any(names):
        raise ShutboxError(f"--players {text!r}: give the player names, comma separated, e.g. \"Ann,Bob\"")
    return names


def run_play(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.companion.link import BoxLink
    from shutbox.companion.session import LiveSession
    from shutbox.companion.store import GameStore, default_db_path
    from shutbox.companion.terminal import TextView, read_input

    db = args.db or default_db_path()
    view = TextView()
    events: queue.Queue[Any] = queue.Queue()
    session: LiveSession | None = None
    store: GameStore | None = None
    names: list[str] | None = None
    if args.resume:
        store, session = _resume(args, Path(db), view)
        rules = session.rules
    else:
        names, rules = _new_game_players(args, kit), kit.rules
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
        _play(session, events)
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


def _resume(args: argparse.Namespace, db: Path, view: View) -> tuple[GameStore, LiveSession]:
    """The store and the session of the latest unfinished game (``--resume``)."""
    from shutbox.companion.session import LiveSession
    from shutbox.companion.store import GameStore

    for flag, value in [("--players", args.players), *given_rule_flags(args)]:
        if value is not None:
            raise ShutboxError(f"{flag} {value}: not allowed with --resume (the saved game keeps its players "
                               "and rules)")
    if not db.exists():
        raise ShutboxError(f"--resume: no game database at {db} (start a game with --players)")
    store = GameStore(db)
    row = store.latest_unfinished()
    if row is None:
        store.close()
        raise ShutboxError(f"--resume: no unfinished game in {db} (start a game with --players)")
    return store, LiveSession.resume(store, view, row.id, hint=args.hint)


def _new_game_players(args: argparse.Namespace, kit: Kit) -> list[str]:
    """The players of a new game, checked against the rules before anything is opened."""
    from shutbox.game import events as ev
    from shutbox.game.replay import Game
    from shutbox.game.rules import IllegalMove

    if args.players is None:
        raise ShutboxError("--players is required to start a game, e.g. --players \"Ann,Bob\" "
                           "(or --resume to continue the latest unfinished one)")
    names = parse_players(args.players)
    try:
        Game(kit.rules).apply(ev.players(names))
    except IllegalMove as exc:
        raise ShutboxError(f"--players {args.players!r}: {exc}") from None
    return names


def _play(session: LiveSession, events: queue.Queue[Any]) -> None:
    """Hand every link event and typed line to the session until the game is done or left."""
    while not session.done:
        try:
            item = events.get(timeout=0.5)
        except queue.Empty:
            continue
        session.handle(item)


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


COMMANDS = (
    Command("play", "keep score live from the box",
            "Play on the box while the computer keeps score: type each throw ('3 5', or '4' for one die); the "
            "tiles you shut on the box become the moves. Every event is saved before it is shown; --resume "
            "continues the latest unfinished game.", run_play, ("rules",), _arguments),
)
