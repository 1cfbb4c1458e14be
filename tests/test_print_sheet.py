"""``shutbox scorepad --from-game``: a recorded game, replayed by the rules engine, as a completed sheet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pypdf import PdfReader

from shutbox.game.gamefile import load_game, save_game
from shutbox.kit.model import MATCHES, Rules
from shutbox.print.sheet import throw_text, write_game_sheet
from tests.print_support import GOLDEN, game_json, ink, page_texts, play, render


def fixture(match: str) -> Path:
    return GOLDEN / "games" / f"{match}.json"


@pytest.mark.slow
@pytest.mark.parametrize("match", MATCHES)
def test_sheet_shows_turns_scores_totals_and_winner(tmp_path, match):
    game = load_game(fixture(match))
    out = tmp_path / "sheet.pdf"
    pages = write_game_sheet(fixture(match), out, "a4")
    texts = page_texts(out)
    assert len(texts) == pages
    text = "\n".join(texts)
    assert "game sheet" in texts[0] and f"format: {match}" in texts[0]
    assert "Players: " + " and ".join([", ".join(game.players[:-1]), game.players[-1]]) in texts[0]
    lines = text.splitlines()
    for turn in game.turns:
        # each turn is a row: the player, the tiles 1..N, its throws, its score (and running total)
        row = next(line for line in lines if line.startswith(turn.player) and f"{turn.score}" in line.split())
        assert " ".join(str(t) for t in game.rules.tile_numbers) in row
    for r in game.rounds:
        label = "Game" if match == "long-game" else f"Round {r.number}"
        assert f"{label}:" in text
    winners = " and ".join(game.winners)
    if match == "tournament":
        assert f"{game.loser} loses · winner" in text and winners in text
    else:
        assert f"Winner: {winners}" in text or f"Winners: {winners}" in text
    if match in ("drop-out", "tournament"):
        totals = " · ".join(f"{p} {game.totals[p]}" + (" (out)" if p in game.eliminated else "")
                            for p in game.players)
        assert f"Totals: {totals}" in text
    if match == "long-game":
        assert "(shuts)" in text and "(uncovers)" in text


def test_throws_read_as_dice_and_tiles():
    game = load_game(fixture("round"))
    first = game.turns[0].throws[0]
    assert first.dice is not None and first.tiles is not None
    assert throw_text(first) == "+".join(map(str, first.dice)) + "→" + "+".join(
        map(str, sorted(first.tiles, reverse=True)))
    dead = game.turns[0].throws[-1]
    assert dead.dead and throw_text(dead).endswith("✗")


def test_sheet_of_a_hand_played_game_with_stakes(tmp_path):
    from shutbox.game.replay import Game

    game = Game(Rules(stake=0.5)).add_players("Ann", "Bob")
    game.throw(4, 5).shut(9).throw(4, 4).shut(8).throw(6, 6).shut(7, 5).throw(6, 6).shut(6, 4, 2).throw(6, 6)
    for tiles in ((9,), (8,), (7,), (6,), (5,), (4,), (3,), (2,), (1,)):
        game.shut(*tiles)  # Bob enters tiles without dice: each throw is their sum
    assert game.finished and game.winners == ("Bob",)
    src = save_game(game, tmp_path / "game.json")
    write_game_sheet(src, tmp_path / "sheet.pdf", "letter")
    (text,) = page_texts(tmp_path / "sheet.pdf")
    assert "4+5→9 · 4+4→8 · 6+6→7+5 · 6+6→6+4+2 · 6+6 ✗" in text
    assert "9→9 · 8→8" in text
    assert "Round 1: Bob shut the box and wins the round" in text
    assert "Winner: Bob" in text
    assert "Money: Ann −1.00 · Bob +1.00" in text
    page = PdfReader(tmp_path / "sheet.pdf").pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == (612.0, 792.0)


def test_unfinished_game_is_marked(tmp_path):
    from shutbox.game.replay import Game

    game = Game(Rules(match="drop-out")).add_players("Ann", "Bob").throw(3, 4).shut(7)
    src = save_game(game, tmp_path / "game.json")
    write_game_sheet(src, tmp_path / "sheet.pdf", "a4")
    (text,) = page_texts(tmp_path / "sheet.pdf")
    assert "Round 1: not finished" in text and "Game not finished" in text
    assert "3+4→7" in text


@pytest.mark.slow
def test_long_game_flows_onto_numbered_pages(tmp_path):
    rules = Rules(match="tournament", limit=600, tiles=12)
    game = play(rules, ["Ann", "Bob", "Cy", "Dee"], seed=5)
    assert game.finished
    src = save_game(game, tmp_path / "game.json")
    pages = write_game_sheet(src, tmp_path / "sheet.pdf", "a4")
    assert pages >= 3
    texts = page_texts(tmp_path / "sheet.pdf")
    for number, text in enumerate(texts, start=1):
        assert f"page {number} of {pages}" in text
    assert all("game sheet (continued)" in t for t in texts[1:])
    assert sum(t.count("Round ") for t in texts) >= len(game.rounds)
    images = render(tmp_path / "sheet.pdf", tmp_path)
    assert len(images) == pages
    assert all(ink(image) > 0.03 for image in images)


@pytest.mark.slow
def test_identical_game_gives_identical_bytes(cli, tmp_path):
    for name in ("a.pdf", "b.pdf"):
        cli("scorepad", "--from-game", str(fixture("drop-out")), "--out", str(tmp_path / name), check=True)
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("not json", "not valid JSON"),
        (json.dumps({"format": "other"}), "not a shutbox game file"),
        (json.dumps({"format": "shutbox-game", "version": 1, "settings": {"tiles": 55}, "events": []}),
         "55"),
        (json.dumps({"format": "shutbox-game", "version": 1, "settings": {},
                     "events": [{"v": 1, "type": "players", "names": ["A", "B"]},
                                {"v": 1, "type": "throw", "dice": [3, 4]},
                                {"v": 1, "type": "shut", "tiles": [6, 2]}]}), "event 3 (shut)"),
        (json.dumps({"format": "shutbox-game", "version": 1, "settings": {}, "events": []}),
         "the game has no players yet"),
    ],
)
def test_bad_game_file_is_one_line_exit_2_and_nothing_written(cli, tmp_path, content, needle):
    src = tmp_path / "game.json"
    src.write_text(content)
    out = tmp_path / "sheet.pdf"
    proc = cli("scorepad", "--from-game", str(src), "--out", str(out))
    assert proc.returncode == 2
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_rule_flags_are_refused_with_a_game(cli, tmp_path):
    proc = cli("scorepad", "--from-game", str(fixture("round")), "--match", "drop-out",
               "--out", str(tmp_path / "s.pdf"))
    assert proc.returncode == 2 and "--match drop-out: not allowed with --from-game" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("tiles", "dice"), [(36, 6), (54, 9)])
def test_large_set_sheet_wraps_the_tiles_and_totals_the_dice(tmp_path, tiles, dice):
    game = play(Rules(tiles=tiles, dice=dice, match="drop-out", limit=2000), ["Ann", "Bob"], 3)
    src = tmp_path / "game.json"
    src.write_text(game_json(game))
    out = tmp_path / "sheet.pdf"
    pages = write_game_sheet(src, out, "a4")
    text = " ".join(page_texts(out))
    assert f"Σ27: the total of the {dice} dice" in text
    words = text.split()
    for t in range(1, tiles + 1):  # every tile shown for every turn
        assert words.count(str(t)) >= len(game.turns)
    assert pages == len(page_texts(out))
    assert all(ink(image) > 0.03 for image in render(out, tmp_path))
