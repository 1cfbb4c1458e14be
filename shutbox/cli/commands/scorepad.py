"""``shutbox scorepad``: printable score pads (PDF) for the kit's rules, blank or filled from a game.

ReportLab is imported only when a pad is drawn, so registering the command costs nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import path_text
from shutbox.cli.commandspec import Command, out_file_flag
from shutbox.game.formats import match_format
from shutbox.game.report import counted
from shutbox.kit.config import given_rule_flags
from shutbox.kit.model import Kit
from shutbox.print.paper import PAPERS

PAPER_CHOICES = tuple(PAPERS)


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    if args.from_game is not None:
        from shutbox.print.sheet import write_game_sheet

        given = [(flag, getattr(args, dest)) for flag, dest in (("--players", "players"), ("--rounds", "rounds"),
                 ("--per-page", "per_page"), ("--pages", "pages"), ("--names", "names"))]
        given += given_rule_flags(args)
        for flag, value in given:
            if value is not None:
                raise ShutboxError(f"{flag} {value}: not allowed with --from-game (the game file holds the players, "
                                   "rules and turns)")
        pages = write_game_sheet(args.from_game, args.out, args.paper)
        print(f"wrote {path_text(args.out)} ({pages} page{'s' if pages != 1 else ''})")
        return 0
    from shutbox.print.blank import write_blank_pads

    per_page = 1 if args.per_page is None else args.per_page
    pages = 1 if args.pages is None else args.pages
    plan = write_blank_pads(kit.rules, args.out, args.players, args.rounds, args.paper, per_page, pages, args.names)
    rounds = counted(plan.rounds, match_format(kit.rules).round_word)
    sides = len(plan.pad.sides)
    back = f"; each pad has {sides} sides, print double-sided" if sides > 1 else ""
    total = len(plan.page_list(per_page))
    print(f"wrote {path_text(args.out)}: {per_page} {kit.rules.match} pad{'s' if per_page != 1 else ''} "
          f"({counted(plan.players, 'player')}, {rounds}) per {args.paper} page, {counted(total, 'page')}{back}")
    return 0


def _count(flag: str) -> Callable[[str], int]:
    """An argparse ``type=`` for a pad count: a whole number from 1 to its limit (:data:`~shutbox.print.plan.
    COUNT_LIMITS`, read only when the flag is given: the planner is not imported to build the parser)."""

    def parse(text: str) -> int:
        from shutbox.base.bounded import whole_within
        from shutbox.print.plan import COUNT_LIMITS

        return whole_within(text, flag, 1, COUNT_LIMITS[flag])

    parse.__name__ = "whole number"
    return parse


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=_count("--players"), metavar="N",
                   help="players on each pad [whole number >= 1; default: the --names count, else 4 (long-game 2)]")
    p.add_argument("--names", metavar='"ANN,BOB,…"',
                   help="print these player names (comma-separated) instead of blank name lines; sets --players")
    p.add_argument("--rounds", type=_count("--rounds"), metavar="R",
                   help="rounds on each pad; long-game: games, each with the turn rows 99%% of long games need, "
                        "continued on the back [>= 1; default: as many rounds as fill the pad (up to 20), "
                        "long-game 1]")
    p.add_argument("--paper", type=str.lower, choices=PAPER_CHOICES, default="a4", help="paper size [default a4]")
    p.add_argument("--per-page", type=_count("--per-page"), metavar="K",
                   help="pads per page, cut apart along the marks [>= 1; default 1]")
    p.add_argument("--pages", type=_count("--pages"), metavar="P",
                   help="copies: pages of blank pads (a pad with a back prints its sides) [>= 1; default 1]")
    p.add_argument("--from-game", type=Path, metavar="FILE.json",
                   help="render this recorded game (the scorekeeper's event record) as a completed sheet")
    p.add_argument("--out", type=out_file_flag("--out", ".pdf"), required=True, metavar="FILE.pdf",
                   help="PDF to write (replaced when complete)")
    p.set_defaults(run=run)


COMMANDS = (
    Command("scorepad", "print score pads (PDF) for the rules",
            "Score pads for the rule settings: blank pads to fill in at the table, several to a page with cut "
            "marks, or (--from-game) a recorded game as a completed score sheet.", run, ("rules",), _arguments),
)
