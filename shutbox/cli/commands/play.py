"""``shutbox play``: live scoring from the box."""

from __future__ import annotations

import argparse
import queue
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.base.errors import ShutboxError
from shutbox.cli.commands import add_port_argument, add_web_argument, parse_players
from shutbox.cli.commandspec import Command
from shutbox.kit.config import given_rule_flags
from shutbox.kit.model import Kit, box_refusal

if TYPE_CHECKING:
    from shutbox.companion.live.display import SessionDisplay
    from shutbox.companion.live.session import LiveSession
    from shutbox.companion.store.database import GameStore

#: How long a new game waits for the box's first snapshot before starting without it.
BOX_WAIT_S = 3.0


class DiceFlag(argparse.Action):
    """``--dice``: a number is the rules' number of dice; anything else is a smart-dice SOURCE (``args.smart_dice``,
    :func:`shutbox.dice.ble.source.parse_source`)."""

    metavar_text = "N|SOURCE"
    extra_help = ("or smart dice that say each throw over Bluetooth: godice, pixels, godice:NAME1,NAME2 (these dice), "
                  "replay:FILE (docs/smartdice.md)")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        text = str(values)
        if text.strip().lstrip("+-").isdigit() or not text.strip():
            setattr(namespace, self.dest, text)  # the rule setting, checked with the others
            return
        from shutbox.dice.ble.source import parse_source

        try:
            namespace.smart_dice = parse_source(text, "--dice")
        except ShutboxError as exc:
            raise ShutboxError(f"{exc}; or a number of dice (the rules' --dice N)") from None


def _arguments(p: argparse.ArgumentParser) -> None:
    add_port_argument(p, none_help="none: no box, the tiles are typed ('shut 3 5') or tapped on the web page")
    p.add_argument("--players", metavar="NAMES", help='players in turn order, comma separated, e.g. "Ann,Bob"')
    p.add_argument("--db", type=Path, metavar="FILE", help="game database [default: games.sqlite3 in the user's "
                   "data folder]")
    p.add_argument("--resume", action="store_true", help="continue the latest unfinished game")
    p.add_argument("--hint", action="store_true", help="after each throw, show the solver's best move")
    p.add_argument("--camera", nargs="?", const="0", metavar="DEVICE",
                   help="watch the tray with a camera (OpenCV: a number, default 0, a device such as /dev/video0, a "
                   "video file or an image sequence such as frames/%%03d.jpg); the dice are read when they come to "
                   "rest and entered as the throw (docs/dice.md)")
    p.add_argument("--record", type=Path, metavar="FILE", help="with --dice SOURCE: also write everything the dice "
                   "said to FILE, a replay (JSON lines) for --dice replay:FILE or a bug report; never replaces a file")
    p.set_defaults(smart_dice=None)
    add_web_argument(p)


def run_play(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.companion.live.smartdice import recording

    if args.record is not None and args.smart_dice is None:
        raise ShutboxError(f"--record {args.record}: only with --dice SOURCE (smart dice)")
    with recording(args.record) as record:
        return _run_play(args, kit, record)


def _run_play(args: argparse.Namespace, kit: Kit | None, record: Any) -> int:
    assert kit is not None
    from shutbox.companion.live.camera import check_camera
    from shutbox.companion.live.display import SessionDisplay, show_review
    from shutbox.companion.live.link import BoxLink
    from shutbox.companion.live.session import LiveSession
    from shutbox.companion.store.database import GameStore, default_db_path

    db = args.db or default_db_path()
    boxless = args.port == "none"
    refusal = None if boxless or args.resume else box_refusal(kit.rules, "the kit's box")
    if refusal is not None:
        raise ShutboxError(refusal)
    events: queue.Queue[Any] = queue.Queue()
    table = SessionDisplay(events.put, args.web, db=Path(db))
    store, session, names = _resume(args, kit, Path(db), table, boxless) if args.resume else \
        (None, None, _new_game_players(args, kit))
    rules = session.rules if session is not None else kit.rules
    link: BoxLink | None = None
    check_camera(args.camera)  # a camera that cannot be opened stops here, before anything is written
    dice_source = _dice_source(args)  # so does a replay that cannot be read
    try:
        if not boxless:
            link = BoxLink(args.port, rules.tiles, events.put)
            _start_link(link)  # a port that cannot be opened stops here, before anything is written
        table.open_web()  # so does an address that cannot be listened on
        heard = _meet_the_box(events) if link is not None else []  # and a box with the wrong tile count
        if session is None:
            store = GameStore(db)
            session = LiveSession(rules, store, table.view, hint=args.hint, boxless=boxless,
                                  throws=kit.play.throws_for(boxless))
        _begin(session, table, names, heard)
        table.open_camera(args.camera, session)
        table.open_dice(dice_source, len(dice_source.names) or rules.dice if dice_source else 0, session, record)
        _play(session, events, table)
        show_review(session, piped=not table.interactive)
        if table.web is not None and session.game is not None and session.game.finished:
            _linger(session, events, table)
    except KeyboardInterrupt:
        table.close()
        if session is not None and session.game_id is not None:
            print(f"\ngame {session.game_id} is saved; `shutbox play --resume` continues it", flush=True)
        return 130
    finally:
        table.close()
        if link is not None:
            link.stop()
        if store is not None:
            store.close()
    assert session is not None
    if session.quit:
        print(f"game {session.game_id} is saved; `shutbox play --resume` continues it", flush=True)
    return 0


def _dice_source(args: argparse.Namespace) -> Any:
    """The smart-dice SOURCE of ``--dice`` (None: none): its replay read and checked, or the radio tried."""
    source = args.smart_dice
    if source is not None and source.path is not None:
        from shutbox.dice.ble.record import read_replay

        read_replay(source.path)
    elif source is not None:
        from shutbox.dice.ble.protocol import PROTOCOLS
        from shutbox.dice.ble.radio import radio_refusal

        refusal = radio_refusal(PROTOCOLS[source.kind])
        if refusal is not None:
            raise ShutboxError(f"--dice {source.kind}: {refusal}")
    return source


def _start_link(link: Any) -> None:
    """Open the box's port; with no box found, also say how to play without one."""
    from shutbox.firmware.host.deploy import NoBoard

    try:
        link.start()
    except NoBoard as exc:
        raise ShutboxError(f"{exc}; no wired box? `--port none` plays without one (type the throws and the "
                           "tiles you shut)") from None


def _begin(session: LiveSession, table: SessionDisplay, names: list[str] | None, heard: list[Any]) -> None:
    """Show the session, hand it what the box said so far, and start the new game (or say which goes on)."""
    table.open_input(session.help)
    session.view = table.view
    if names is None:
        session.resumed()
    for item in heard:
        session.handle(item)
    if names is not None:
        session.start(names)


def _resume(args: argparse.Namespace, kit: Kit, db: Path, table: SessionDisplay, boxless: bool) \
        -> tuple[GameStore, LiveSession, None]:
    """The store and the session of the latest unfinished game (``--resume``)."""
    from shutbox.companion.live.session import LiveSession
    from shutbox.companion.store.database import GameStore

    for flag, value in [("--players", args.players), *given_rule_flags(args)]:
        if value is not None:
            raise ShutboxError(f"{flag} {value}: not allowed with --resume (the saved game keeps its players "
                               "and rules)")
    if not db.exists():
        raise ShutboxError(f"--resume: no game database at {db} (start a game with --players)")
    store = GameStore(db)
    try:
        row = store.latest_unfinished()
        if row is None:
            raise ShutboxError(f"--resume: no unfinished game in {db} (start a game with --players)")
        return store, LiveSession.resume(store, table.view, row.id, hint=args.hint, boxless=boxless,
                                         throws=kit.play.throws_for(boxless)), None
    except BaseException:  # refused: let go of the game (and its lock file) before saying why
        store.close()
        raise


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


def _play(session: LiveSession, events: queue.Queue[Any], table: SessionDisplay | None = None) -> None:
    """Hand every link event, typed line and dice reading to the session until the game is done or left."""
    while not session.done:
        try:
            item = events.get(timeout=0.5)
        except queue.Empty:
            continue
        session.handle(item)
        if table is not None:
            table.ready(item, session)


def _linger(session: LiveSession, events: queue.Queue[Any], table: SessionDisplay) -> None:
    """After the game: keep the scoreboard up until Enter (or the end of the input); the page's posts are
    still answered (the game is over)."""
    from shutbox.companion.live.session import InputClosed, Remote, Typed

    table.terminal.note("info", f"the game is over; the scoreboard stays at {table.web.url if table.web else ''} "
                                "until you press Enter")
    while True:
        item = events.get()
        if isinstance(item, (Typed, InputClosed)):
            return
        if isinstance(item, Remote):
            session.handle(item)


def _meet_the_box(events: queue.Queue[Any], wait_s: float = BOX_WAIT_S) -> list[Any]:
    """The link events up to the box's first snapshot (or ``wait_s``); the link's failure is raised."""
    from shutbox.companion.live.link import Failed, Received
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
            "Play on the box while the computer keeps score: the tiles you shut on the box are the moves and its "
            "button ends the turn (throws optional; a throw typed first, '3 5' or '4' for one die, is checked "
            "against them). --throws required (the default with --port none: no box, type or tap the tiles) "
            "takes every throw typed first. Every event is saved before it is shown; --resume continues the "
            "latest unfinished game; --web serves a live scoreboard for phones and a TV; --camera reads the throws "
            "from the tray, --dice SOURCE from smart dice.", run_play, ("rules", "play"), _arguments,
            setting_actions=(("rules.dice", DiceFlag),)),
)
