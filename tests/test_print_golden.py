"""Score pads and game sheets compared with golden PDFs in ``tests/golden/print/``.

Regenerate after an intended change: ``SHUTBOX_UPDATE_GOLDEN=1 .venv/bin/python -m pytest
tests/test_print_golden.py`` (this also replays the fixture games in ``games/`` afresh with the
rules engine), then look at the PDFs before committing them.
"""

from __future__ import annotations

import pytest

from shutbox.kit.model import MATCHES, SCORINGS, Rules
from shutbox.print.blank import write_blank_pads
from shutbox.print.card import write_card
from shutbox.print.sheet import write_game_sheet
from tests.print_support import GOLDEN, UPDATE, check_golden, game_json, ink, play, render

GAMES = {
    "round": (Rules(match="round", stake=0.5), ["Ann", "Bob", "Cy"], 1),
    "drop-out": (Rules(match="drop-out", stake=0.5), ["Ann", "Bob", "Cy"], 1),
    "tournament": (Rules(match="tournament", scoring="digits", tiles=10, limit=500000), ["Ann", "Bob", "Cy"], 2),
    "long-game": (Rules(match="long-game"), ["Ann", "Bob"], 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("match", MATCHES)
@pytest.mark.parametrize("scoring", SCORINGS)
def test_blank_pad_matches_golden(tmp_path, match, scoring):
    out = tmp_path / "pad.pdf"
    limit = 500_000 if scoring == "digits" and match in ("drop-out", "tournament") else None
    write_blank_pads(Rules(match=match, scoring=scoring, limit=limit), out)
    check_golden(out, f"pad-{match}-{scoring}.pdf")
    assert all(ink(image) > 0.03 for image in render(out, tmp_path)), "a page is blank"


def test_four_up_letter_pad_matches_golden(tmp_path):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(tiles=10, stake=1.0), out, players=3, rounds=2, paper="letter", per_page=4, pages=2)
    check_golden(out, "pad-round-letter-4up.pdf")


@pytest.mark.slow
def test_long_game_pad_with_names_and_a_back_matches_golden(tmp_path):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(match="long-game", tiles=10), out, names="Ann,Bob")
    check_golden(out, "pad-long-game-10-names.pdf")


def test_three_up_pad_with_a_stake_matches_golden(tmp_path):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(stake=1.0), out, names="Ann,Bob,Cy", per_page=3)
    check_golden(out, "pad-round-3up-stake.pdf")


@pytest.mark.parametrize("objective", ["shut", "score"])
def test_strategy_card_matches_golden(tmp_path, objective):
    out = tmp_path / "card.pdf"
    write_card(Rules(), objective, "a4", out)
    check_golden(out, f"card-{objective}.pdf")


@pytest.mark.parametrize("match", MATCHES)
def test_game_sheet_matches_golden(tmp_path, match):
    source = GOLDEN / "games" / f"{match}.json"
    if UPDATE:
        rules, names, seed = GAMES[match]
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(game_json(play(rules, names, seed)))
    out = tmp_path / "sheet.pdf"
    write_game_sheet(source, out, "a4")
    check_golden(out, f"sheet-{match}.pdf")
    assert all(ink(image) > 0.03 for image in render(out, tmp_path))
