"""``shutbox sim``: play a script (or a random demo game) on the real firmware, scored by the real scorekeeper."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from shutbox.base.bounded import MAX_ID, real_flag, whole_flag
from shutbox.base.errors import ShutboxError
from shutbox.cli.commands import add_web_argument, parse_players
from shutbox.cli.commandspec import FIRMWARE_SETTINGS, Command
from shutbox.kit.model import Kit, box_refusal

if TYPE_CHECKING:
    from shutbox.companion.live.terminal import Notes
    from shutbox.companion.sim.script import Action
    from shutbox.game.replay import Game


#: The demo's speed, times human speed: from a hundredth (a move every couple of minutes) to a thousand.
MIN_SPEED, MAX_SPEED = 0.01, 1000.0


def _arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--script", type=Path, metavar="FILE", help="the script to play")
    what.add_argument("--demo", action="store_true", help="play a random game at human speed")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object at the end: players (name, score, shut_box), winner, turns")
    p.add_argument("--speed", type=real_flag("--speed", MIN_SPEED, MAX_SPEED), default=1.0, metavar="X",
                   help=f"demo speed: X times human speed [{MIN_SPEED:g} to {MAX_SPEED:g}; default 1]")
    p.add_argument("--seed", type=whole_flag("--seed", 0, MAX_ID), metavar="N",
                   help="demo dice seed [default: random]")
    p.add_argument("--players", metavar="NAMES", help='demo players, comma separated [default "Ann,Bob"]')
    p.add_argument("--hint", action="store_true", help="show the solver's best move after each throw")
    p.add_argument("--emulator", action="store_true",
                   help="run the built firmware on MicroPython's RP2040 port in an emulated Pico (needs Node.js and "
                   "'npm ci' in firmware/shutbox/firmware/emulator) instead of on the unix port")
    p.add_argument("--db", type=Path, metavar="FILE", help="save the game in this database [default: not kept]")
    add_web_argument(p)


def _what_to_play(args: argparse.Namespace, kit: Kit) -> tuple[list[Action], list[str]]:
    """The script's actions (none for the demo) and the demo's players, checked before anything starts."""
    from shutbox.companion.sim.script import read_script

    actions = []
    if args.script is not None:
        for flag, value in (("--players", args.players), ("--seed", args.seed)):
            if value is not None:
                raise ShutboxError(f"{flag} {value}: only for --demo (the script names the players)")
        actions = read_script(args.script, kit.rules)
    names = ["Ann", "Bob"]
    if args.players is not None:
        names = parse_players(args.players)
    if args.web is not None:
        from shutbox.companion.web.scoreboard import parse_web

        parse_web(args.web)
    return actions, names


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    import random
    import sys

    from shutbox.companion.live.display import SessionDisplay, show_review
    from shutbox.companion.live.session import Views
    from shutbox.companion.live.terminal import Notes
    from shutbox.companion.sim.game import SimTable, open_store

    refusal = box_refusal(kit.rules, "the simulated box")
    if refusal is not None:
        raise ShutboxError(refusal)
    actions, names = _what_to_play(args, kit)
    notes = Notes()
    store = open_store(args.db)
    shown: SessionDisplay | None = None
    printed = False
    try:
        with SimTable(kit, store, notes, hint=args.hint, emulator=args.emulator) as sim:
            shown = SessionDisplay(sim.events.put, args.web, read_stdin=not args.json and sys.stdin.isatty(),
                                   db=args.db)
            shown.open_web(sys.stderr if args.json else None)  # --json: stdout holds the one object only
            if not args.json:  # --json: only the notes (and the page), then one object
                shown.open_input(sim.session.help)
                sim.session.view = shown.view
            elif shown.web is not None:
                sim.session.view = Views(notes, shown.web)
            if args.demo:
                sim.demo(names, random.Random(args.seed), pause_s=1.0 / args.speed)
            else:
                sim.play(actions, str(args.script))
            if shown.web is not None or shown.interactive:  # the summary on the screen and the page
                show_review(sim.session, piped=False, kept=args.db is not None)
            game = sim.session.game
            assert game is not None
            if shown.web is not None and (args.demo or shown.interactive):
                if args.json:
                    _print_json(game, notes)
                    printed = True
                until = "you press Enter (or Ctrl-C)" if shown.interactive else "Ctrl-C"
                sim.linger(f"the game is over; the scoreboard stays at {shown.web.url} until {until}")
    finally:
        if shown is not None:
            shown.close()
        store.close()
    assert game is not None
    if args.json and not printed:
        _print_json(game, notes)
    return 0


def _print_json(game: Game, notes: Notes) -> None:
    """The one JSON object of ``--json``: the game's result and the messages that matter."""
    from shutbox.game.report import result

    record = result(game)
    record["messages"] = [{"kind": kind, "text": text} for kind, text in notes.items
                          if kind in ("flag", "refused", "win", "turn", "round")]
    print(json.dumps(record), flush=True)


COMMANDS = (
    Command("sim", "play a scripted or random game on a simulated box",
            "Run the real firmware in the MicroPython interpreter with simulated switches, connect it over a "
            "pseudo-terminal to the real scorekeeper, and play a script (--script) or a random game (--demo). "
            "Script lines: 'players NAME [NAME ...]', 'throw A [B]', 'total N', 'shut T [T ...]', 'open T [T ...]' "
            "or 'open all', 'end', 'press' (the box's button), 'undo', 'hint'; '#' starts a comment. The simulated "
            "box is a box attached: throws are optional (the button ends a turn) unless --throws required.", run,
            ("rules", "play", *FIRMWARE_SETTINGS), _arguments),
)
