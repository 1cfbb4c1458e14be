"""``shutbox card``: a one-page strategy card (PDF) printed from the exact solver for the rules.

ReportLab and the solver are imported only when the card is made, so registering the command costs nothing.
"""

from __future__ import annotations

import argparse

from shutbox.base.text import path_text
from shutbox.cli.commandspec import Command, out_file_flag
from shutbox.game.policy import OBJECTIVES, Setup
from shutbox.kit.model import Kit
from shutbox.print.paper import PAPERS

PAPER_CHOICES = tuple(PAPERS)
#: The rule settings a single player's odds depend on (the fields of :class:`Setup`).
CARD_SETTINGS = tuple(f"rules.{name}" for name in Setup.__dataclass_fields__)


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.print.card import write_card

    data = write_card(kit.rules, args.objective, args.paper, args.out)
    print(f"wrote {path_text(args.out)}: strategy card ({args.objective}) for {kit.rules.tiles} tiles on "
          f"{args.paper} paper, "
          f"{len(data.positions)} common positions")
    return 0


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--objective", choices=OBJECTIVES, default="shut",
                   help="shut: best chance to shut the box; score: lowest expected final score [default shut]")
    p.add_argument("--paper", type=str.lower, choices=PAPER_CHOICES, default="a4", help="paper size [default a4]")
    p.add_argument("--out", type=out_file_flag("--out", ".pdf"), required=True, metavar="FILE.pdf",
                   help="PDF to write (replaced when complete)")
    p.set_defaults(run=run)


COMMANDS = (
    Command("card", "print a one-page strategy card (PDF) from the exact solver",
            "A one-page strategy card for the rules: the chance from the start, the best move for every throw with "
            "everything open, and the best moves in the positions a turn most often reaches, every number computed "
            "by the exact solver.", run, CARD_SETTINGS, _arguments),
)
