"""``shutbox history``: the games the scorekeeper saved; ``history show ID --json`` prints one as a game file."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from shutbox.base.bounded import MAX_ID, whole_flag
from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.cli.commandspec import Command
from shutbox.kit.model import Kit

DB_HELP = "game database [default: games.sqlite3 in the user's data folder]"


def _list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, metavar="FILE", help=DB_HELP)


def _show_arguments(show: argparse.ArgumentParser) -> None:
    show.add_argument("id", type=whole_flag("game", 1, MAX_ID, " (see `shutbox history`)"), metavar="ID",
                      help="the game's number (see `shutbox history`)")
    show.add_argument("--json", action="store_true", help="print the game file JSON (settings and event record)")
    show.add_argument("--db", type=Path, metavar="FILE", default=argparse.SUPPRESS, help=DB_HELP)
    show.add_argument("--readings", type=Path, metavar="DIR", help="also write the pictures the camera (or a phone) "
                      "read the throws from, one JPEG per throw: DIR/game-ID-event-N.jpg")


def _db(args: argparse.Namespace) -> Path:
    from shutbox.companion.store.database import default_db_path

    return Path(args.db) if args.db is not None else default_db_path()


def run_list(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.companion.store.database import Unreadable, open_read_only
    from shutbox.game.gamefile import rules_from_settings
    from shutbox.game.replay import Game
    from shutbox.game.report import game_result_text
    from shutbox.game.rules import IllegalMove

    db = _db(args)
    if not db.exists():
        print(f"no games saved yet ({shown(str(db), 200)} does not exist)")
        return 0
    with open_read_only(db) as store:
        rows = store.listing()
        if not rows:
            print(f"no games saved yet in {shown(str(db), 200)}")
            return 0
        print(f"{'id':>4}  {'started':16}  {'players':24}  {'rules':22}  {'events':>6}  result")
        for row in rows:
            if isinstance(row, Unreadable):
                print(f"{shown(row.id, 4):>4}  {'?':16}  {'?':24}  {'?':22}  {'?':>6}  unreadable: "
                      f"{shown(row.problem.split(': ', 1)[-1], 100)}")
                continue
            try:
                rules = rules_from_settings(row.settings, f"game {row.id}")
                game = Game.from_events(rules, store.events(row.id))
                status = game_result_text(game).removeprefix("game over: ") if game.finished else \
                    "unfinished (shutbox play --resume)"
                kind = f"{rules.match}, {rules.tiles} tiles"
            except (ShutboxError, IllegalMove) as exc:
                status, kind = f"unreadable: {shown(str(exc), 100)}", "?"
            started = datetime.fromtimestamp(row.created).strftime("%Y-%m-%d %H:%M")
            players = shown(", ".join(row.players), 24)[:24]
            print(f"{row.id:>4}  {started:16}  {players:24}  {kind:22}  {row.events:>6}  {status}")
    return 0


def run_show(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.companion.store.database import open_read_only
    from shutbox.game.gamefile import game_from_dict, game_to_dict
    from shutbox.game.replay import PHASE_WORDS
    from shutbox.game.report import game_result_text, standing_lines, throw_text, tiles_text
    from shutbox.game.rules import plus, rules_text

    db = _db(args)
    if not db.exists():
        raise ShutboxError(f"game {args.id}: no such game ({shown(str(db), 200)} does not exist; "
                           "see `shutbox history`)")
    with open_read_only(db) as store:
        row = store.game(args.id)
        data = {"format": "shutbox-game", "version": 1, "settings": row.settings, "events": store.events(row.id)}
        readings = store.readings(row.id)
    game = game_from_dict(data, f"game {row.id}")
    write_readings(getattr(args, "readings", None), row.id, readings)
    if args.json:
        print(json.dumps(game_to_dict(game), indent=1))
        return 0
    rules = game.rules
    print(f"game {row.id}: {', '.join(game.players)} — {rules_text(rules)}")
    for turn in game.turns:
        moves = []
        verb = PHASE_WORDS[turn.phase].done
        for t in turn.throws:
            if t.total is None and t.tiles is not None:
                moves.append(f"{verb} {plus(t.tiles)} with no throw entered")
                continue
            if t.total is None:
                moves.append("ended unverified: a throw with no move, not entered")
                continue
            thrown = throw_text(list(t.dice) if t.dice else None, t.total)
            moves.append(thrown + (f" → {verb} {plus(t.tiles)}" if t.tiles else " (no move)" if t.dead else ""))
        end = ("SHUT THE BOX" if turn.shut_box else f"score {turn.score}") if turn.ended else "in progress"
        end += " (unverified)" if turn.unverified else ""
        print(f"  round {turn.round}, turn {turn.number}: {turn.player} ({turn.phase}) — {'; '.join(moves) or '-'}"
              f" — left {tiles_text(turn.left)} — {end}")
    for line in standing_lines(game):
        print(f"  {line}")
    if not game.finished:
        print(f"  {game_result_text(game)}")
    for line in reading_lines(readings):
        print(f"  {line}")
    return 0


def reading_lines(readings: list[Any]) -> list[str]:
    """One line per throw read rather than typed: which event, what was read, by what (the camera or a phone,
    whose picture is kept, or smart dice)."""
    lines = []
    for r in readings:
        kept = f", picture kept ({max(1, len(r.image) // 1024)} KB; `--readings DIR` writes it)" if r.image else ""
        lines.append(f"throw (event {r.seq}) read by the {r.source}: {' + '.join(map(str, r.dice))}{kept}")
    return lines


def write_readings(folder: Path | None, game_id: int, readings: list[Any]) -> None:
    """Write each reading's picture into ``folder`` (made if missing; None: not asked for); a file of the same
    name is not replaced."""
    from shutbox.base.output import out_file

    if folder is None:
        return
    if folder.exists() and not folder.is_dir():
        raise ShutboxError(f"--readings {shown(str(folder), 200)}: is a file; give a folder")
    for r in (r for r in readings if r.image):  # smart dice keep no picture
        target = folder / f"game-{game_id}-event-{r.seq}.jpg"
        if target.exists():
            if target.read_bytes() == r.image:
                continue
            raise ShutboxError(f"--readings {shown(str(target), 200)}: exists; not replaced (choose another folder)")
        with out_file(target, "--readings") as tmp:
            tmp.write_bytes(r.image)


COMMANDS = (
    Command("history", "list the saved games, or show one",
            "List the games saved by `shutbox play` and `shutbox sim --db`, or show one (`history show ID --json` "
            "prints the game file `shutbox scorepad --from-game` reads).", run_list, (), _list_arguments, actions=(
                Command("show", "one game, turn by turn (or --json: its game file)",
                        "Show one saved game turn by turn, or with --json print its game file.", run_show, (),
                        _show_arguments),
            )),
)
