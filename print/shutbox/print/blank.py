"""Blank score pads to a PDF: the request checked and planned (:mod:`.plan`), then drawn (:mod:`.document`);
``shutbox scorepad`` writes one, ``shutbox kit`` the kit's pads on A4 and on US Letter."""

from __future__ import annotations

from pathlib import Path

from shutbox.kit.model import Kit, Rules
from shutbox.print.document import write_pdf
from shutbox.print.paper import PAPERS
from shutbox.print.plan import PadPlan, plan_blank

TITLE = "Shut the Box score pad"


def write_blank_pads(rules: Rules, out: Path, players: int | None = None, rounds: int | None = None,
                     paper: str = "a4", per_page: int = 1, pages: int = 1, names: str | None = None) -> PadPlan:
    """Check the request, then write ``pages`` copies of ``per_page`` blank pads a page to ``out``."""
    plan = plan_blank(rules, players, rounds, paper, per_page, pages, names)
    write_pdf(out, plan.grid, plan.page_list(per_page), TITLE,
              f"{rules.match} pad, {plan.players} players, {plan.rounds} rounds")
    return plan


def write_kit_pads(kit: Kit, folder: Path) -> list[str]:
    """``shutbox kit``: a blank pad for the kit's rules on A4 and on US Letter."""
    names = []
    for paper in PAPERS:
        name = f"scorepad-{paper}.pdf"
        write_blank_pads(kit.rules, folder / name, paper=paper)
        names.append(name)
    return names
