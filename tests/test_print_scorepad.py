"""``shutbox scorepad``: blank pads read back (text, page size, fonts), rendered, repeatable, bad input refused."""

from __future__ import annotations

import pdfplumber
import pytest
from pypdf import PdfReader

from shutbox.cli.commands.kit import GENERATORS
from shutbox.game.rules import one_die_when
from shutbox.game.turns import long_game_lengths, long_game_turn_rows
from shutbox.kit.model import MATCHES, SCORINGS, Kit, Rules
from shutbox.print.blank import write_blank_pads, write_kit_pads
from shutbox.print.paper import PAPERS
from tests.print_support import ink, page_texts, play, render

A4 = (595.28, 841.89)
LETTER = (612.0, 792.0)


def rules_for(match: str, scoring: str, **extra) -> Rules:
    """Rules for a format and scoring (digits scores pass the default limits, so they get a larger one)."""
    limit = 500_000 if scoring == "digits" and match in ("drop-out", "tournament") else None
    return Rules(match=match, scoring=scoring, limit=limit, **extra)


def tile_rows(text: str, tiles: int = 9) -> list[str]:
    numbers = [str(t) for t in range(1, tiles + 1)]
    return [line for line in text.splitlines() if line.split()[-tiles:] == numbers]


@pytest.mark.parametrize("match", [m for m in MATCHES if m != "long-game"])
@pytest.mark.parametrize("scoring", SCORINGS)
def test_every_format_and_scoring_reads_back(tmp_path, match, scoring):
    rules = rules_for(match, scoring)
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(rules, out, rounds=3)
    (text,) = page_texts(out)
    title = {"round": "Round", "drop-out": "Drop-out", "tournament": "Tournament"}[match]
    assert f"Shut the Box · {title} · blank pad" in text
    # the rule summary: tiles, one-die rule, scoring, format, limit
    assert f"Rules: 9 tiles · scoring: {scoring}" in text
    assert f"format: {match}" in text
    assert "one die: high-shut" in text
    assert (f"limit {rules.limit}" if rules.limit else "no limit") in text
    if match == "round":
        for r in range(1, 4):
            assert f"Round {r}" in text
        assert "Round 4" not in text  # --rounds means what it says
        assert len(tile_rows(text)) == plan.players * 3, text
        for name in ["Player 1", "Player 2", "Player 3", "Player 4"]:
            assert name in text
        # one result field (the Won column), no pool without a stake
        assert text.count("Won") == 3 and "Winner" not in text and "pool" not in text.lower()
    else:
        assert f"LIMIT {rules.limit}" in text
        assert text.count(f"/{rules.limit}") == plan.players * 3
        assert [line.split()[0] for line in text.splitlines() if line.split()[0].isdigit()][-1] == "3"
    if scoring == "digits" and match == "round":
        assert "digits" in text.split("Rules:")[1]


def test_round_pad_with_a_stake_names_the_pool_once_a_round(tmp_path):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(stake=0.5), out, players=3, rounds=2)
    (text,) = page_texts(out)
    assert text.count("pool 3 × 0.5 = 1.5 to the winner") == 2
    assert "Winner" not in text


def test_tiles_and_one_die_rules_are_printed(tmp_path):
    out = tmp_path / "pad.pdf"
    rules = Rules(tiles=12, one_die="sum-5", one_die_forced=True, max_tiles_per_throw=2, match="round", stake=0.5)
    write_blank_pads(rules, out, players=3, rounds=2)
    (text,) = page_texts(out)
    assert "Rules: 12 tiles" in text
    assert f"one die must be thrown {one_die_when(rules)}" in " ".join(text.split())
    assert "at most 2 tiles per throw" in text
    assert "pool 3 × 0.5 = 1.5" in text
    row = next(line for line in text.splitlines() if line.startswith("Player 1 1 2"))
    assert row.split()[2:] == [str(t) for t in range(1, 13)]


def test_names_replace_the_blank_name_lines(tmp_path):
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(Rules(), out, rounds=2, names="Ann, Bob ,Cyrille")
    assert plan.players == 3
    (text,) = page_texts(out)
    assert "Player" not in text
    for name in ("Ann", "Bob", "Cyrille"):
        assert sum(line.startswith(f"{name} 1 2 3") for line in text.splitlines()) == 2
    out2 = tmp_path / "drop.pdf"
    write_blank_pads(Rules(match="drop-out"), out2, rounds=2, names="Ann,Bob")
    (text,) = page_texts(out2)
    assert "Names Ann Bob" in text


def test_three_up_fills_the_page(tmp_path):
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(Rules(), out, per_page=3)
    assert plan.grid.cols * plan.grid.rows == 3
    (image,) = render(out, tmp_path)
    w, h = image.size
    for third in range(3):
        assert ink(image, (0, h * third // 3, w, h * (third + 1) // 3)) > 0.02


@pytest.mark.slow
@pytest.mark.parametrize(("tiles", "dice"), [(36, 6), (54, 9)])
def test_large_sets_wrap_their_tiles_readably(tmp_path, tiles, dice):
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(Rules(tiles=tiles, dice=dice), out, rounds=2)
    (text,) = page_texts(out)
    assert f"Rules: {tiles} tiles · {dice} dice" in text
    words = text.split()
    for t in range(1, tiles + 1):  # every tile printed once per player and round
        assert words.count(str(t)) >= plan.players * 2
    with pdfplumber.open(out) as pdf:
        page = pdf.pages[0]
        boxes = [r for r in page.rects if abs(r["height"] - r["width"]) < r["height"] * 0.7 and r["height"] < 30]
    tile_boxes = [b for b in boxes if b["height"] >= 3.5 * 72 / 25.4]  # tile boxes at least 3.5 mm
    assert len(tile_boxes) >= plan.players * 2 * tiles


@pytest.mark.parametrize(("paper", "size"), [("a4", A4), ("letter", LETTER)])
def test_page_size_and_embedded_fonts(tmp_path, paper, size):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(), out, paper=paper, pages=2)
    reader = PdfReader(out)
    assert len(reader.pages) == 2
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(size, abs=0.01)
        fonts = page["/Resources"]["/Font"]  # pyright: ignore[reportIndexIssue] (pypdf types it as PdfObject)
        for ref in fonts.values():
            font = ref.get_object()
            descriptor = font["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor, f"{font['/BaseFont']} is not embedded"
            assert "DejaVuSans" in font["/BaseFont"]
    assert PAPERS[paper] == pytest.approx(size, abs=0.01)
    texts = page_texts(out)
    assert "page 1 of 2" in texts[0] and "page 2 of 2" in texts[1]


def test_pages_render_with_ink(tmp_path):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(match="drop-out"), out)
    (image,) = render(out, tmp_path)
    assert 0.02 < ink(image) < 0.5
    w, h = image.size
    assert ink(image, (0, 0, w, h // 3)) > 0.02  # header and the first rounds


@pytest.mark.slow
@pytest.mark.parametrize("per_page", [2, 4, 6])
def test_several_pads_per_page_with_cut_marks(tmp_path, per_page):
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(Rules(), out, players=2, rounds=1, per_page=per_page)
    (text,) = page_texts(out)
    assert text.count("Shut the Box · Round · blank pad") == per_page
    grid = plan.grid
    assert grid.cols * grid.rows == per_page
    with pdfplumber.open(out) as pdf:
        lines = pdf.pages[0].lines
    short = [ln for ln in lines if abs(max(abs(ln["x1"] - ln["x0"]), abs(ln["y1"] - ln["y0"])) - 8.5) < 0.2]
    assert len(short) >= 2 * ((grid.cols - 1) + (grid.rows - 1)), "cut marks missing"
    (image,) = render(out, tmp_path)
    w, h = image.size
    for index in range(per_page):
        col, row = index % grid.cols, index // grid.cols
        cell = (w * col // grid.cols, h * row // grid.rows, w * (col + 1) // grid.cols, h * (row + 1) // grid.rows)
        assert ink(image, cell) > 0.01, f"pad {index + 1} is blank"


@pytest.mark.slow
def test_identical_input_gives_identical_bytes(cli, tmp_path):
    args = ["scorepad", "--match", "tournament", "--scoring", "digits", "--limit", "99999999999", "--per-page", "2",
            "--players", "3"]
    first = cli(*args, "--out", str(tmp_path / "a.pdf"), check=True)
    second = cli(*args, "--out", str(tmp_path / "b.pdf"), cwd=tmp_path, check=True)
    assert first.returncode == second.returncode == 0
    data = (tmp_path / "a.pdf").read_bytes()
    assert data == (tmp_path / "b.pdf").read_bytes()
    assert data.startswith(b"%PDF-")
    assert len(data) < 80_000  # subset fonts, compressed pages


def test_small_file(tmp_path):
    out = tmp_path / "pad.pdf"
    write_blank_pads(Rules(tiles=12), out, per_page=2, pages=3)
    assert out.stat().st_size < 100_000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--players", "0"], "--players 0: allowed: a whole number from 1 to 64"),
        (["--players", "60"], "--players 60: more players than fit a round pad on a4 paper; allowed: 1 to "),
        (["--match", "drop-out", "--players", "40"], "--players 40: more players than fit a drop-out pad"),
        (["--match", "long-game", "--players", "3"], "--players 3: long-game is for two players; allowed: 2"),
        (["--paper", "b5"], "argument --paper: invalid choice: 'b5'"),
        (["--per-page", "0"], "--per-page 0: allowed: a whole number from 1 to 64"),
        (["--per-page", "40"], "--per-page 40: 40 pads do not fit one a4 page in a grid without an empty place"),
        (["--per-page", "5", "--rounds", "3"], "allowed: 1, 2"),
        (["--names", "Ann,,Bob"], "--names 'Ann,,Bob': an empty name"),
        (["--names", "Ann,ann"], "--names: 'ann' is listed twice"),
        (["--names", "Ann,Bob", "--players", "3"], "--players 3: --names gives 2 players"),
        (["--names", "Ann,B\x07b"], "holds a control character"),
        (["--names", "A" * 30], "is longer than 24 characters"),
        (["--match", "long-game", "--names", "Ann,Bob,Cy"], "--players 3: long-game is for two players"),
        (["--match", "long-game", "--rounds", "21"], "--rounds 21: games on a long-game pad; allowed: 1 to 20"),
        (["--match", "long-game", "--tiles", "13", "--dice", "3"], "--tiles 13: long-game pads are measured up to 12"),
        (["--rounds", "0"], "--rounds 0: allowed: a whole number from 1 to 500"),
        (["--rounds", "60"], "--rounds 60: more rounds than fit a round pad for 4 players on a4 paper"),
        (["--pages", "0"], "--pages 0: allowed: a whole number from 1 to 1000"),
        (["--pages", "5000"], "--pages 5000: allowed: a whole number from 1 to 1000"),
        (["--players", "1000000000"], "--players 1000000000: allowed: a whole number from 1 to 64"),
        (["--rounds", "1000000000"], "--rounds 1000000000: allowed: a whole number from 1 to 500"),
        (["--per-page", "1000000000"], "--per-page 1000000000: allowed: a whole number from 1 to 64"),
        (["--players", "two"], "--players two: allowed: a whole number from 1 to 64"),
        (["--tiles", "55"], "--tiles 55"),
        (["--from-game", "missing.json"], "missing.json: no such file"),
        (["--from-game", "missing.json", "--players", "2"], "--players 2: not allowed with --from-game"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(cli, tmp_path, args, needle):
    out = tmp_path / "pads" / "pad.pdf"
    proc = cli("scorepad", *args, "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert leftovers == [], leftovers


@pytest.mark.slow
def test_failed_run_keeps_the_old_file(cli, tmp_path):
    out = tmp_path / "pad.pdf"
    out.write_bytes(b"old")
    assert cli("scorepad", "--per-page", "99", "--out", str(out)).returncode == 2
    assert out.read_bytes() == b"old"


@pytest.mark.slow
def test_cli_reports_what_it_wrote(cli, tmp_path):
    proc = cli("scorepad", "--match", "drop-out", "--players", "5", "--per-page", "2", "--paper", "letter",
               "--out", str(tmp_path / "p.pdf"), check=True)
    assert "2 drop-out pads (5 players," in proc.stdout and "letter" in proc.stdout
    texts = page_texts(tmp_path / "p.pdf")
    assert texts[0].count("LIMIT 45") == 2


def test_kit_includes_a_pad_for_the_settings(tmp_path):
    assert ("scorepad", "shutbox.print.blank:write_kit_pads") in GENERATORS
    kit = Kit(rules=Rules(match="tournament", limit=150))
    files = write_kit_pads(kit, tmp_path)
    assert files == ["scorepad-a4.pdf", "scorepad-letter.pdf"]
    for name in files:
        (text,) = page_texts(tmp_path / name)
        assert "LIMIT 150" in text and "format: tournament" in text


def turn_numbers(texts: list[str], tiles: int) -> list[int]:
    """The turn labels of a long-game pad (two turns a line: a label and the tiles, twice)."""
    found = []
    numbers = [str(t) for t in range(1, tiles + 1)]
    for text in texts:
        for line in text.splitlines():
            words = line.split()
            if len(words) == 2 * (tiles + 1) and words[1:tiles + 1] == numbers == words[tiles + 2:]:
                found += [int(words[0]), int(words[tiles + 1])]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("tiles", [9, 10])
def test_long_game_pad_has_the_measured_turn_rows_and_continues_on_the_back(tmp_path, tiles):
    rules = Rules(match="long-game", tiles=tiles)
    needed = long_game_turn_rows(rules)
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(rules, out, names="Ann,Bob")
    assert plan.rounds == 1  # one game unless --rounds says more
    texts = page_texts(out)
    sides = len(plan.pad.sides)
    assert len(texts) == sides and sides % 2 == 0  # always a back: the rows carry on over the page
    assert f"{needed} turn rows a game: 99% of long games" in texts[0]
    assert "Ann shuts" in texts[0] and "Bob uncovers" in texts[0] and "Winner:" in texts[0]
    assert "left undone" not in " ".join(texts)
    numbers = turn_numbers(texts, tiles)
    assert sorted(numbers) == list(range(1, len(numbers) + 1)) and len(numbers) > needed
    assert all("blank pad (continued)" in t and "Game 1 (cont.)" in t for t in texts[1:])


@pytest.mark.slow
def test_long_game_rounds_are_games(tmp_path):
    out = tmp_path / "pad.pdf"
    plan = write_blank_pads(Rules(match="long-game"), out, rounds=2, per_page=2)
    text = " ".join(page_texts(out))
    assert "Game 1" in text and "Game 2" in text and "Game 3" not in text
    assert plan.grid.cols * plan.grid.rows == 2


@pytest.mark.slow
def test_long_game_length_is_exact_for_the_rules_engine(tmp_path):
    """The exact turn-count distribution agrees with long games played out by the rules engine."""
    rules = Rules(match="long-game")
    length = long_game_lengths(rules, "greedy-largest")
    assert sum(length.ends) == pytest.approx(1.0, abs=1e-8)
    played = [len(play(rules, ["A", "B"], seed).turns) for seed in range(400)]  # greedy-largest, one die when allowed
    mean = sum(played) / len(played)
    sd = (sum((n - mean) ** 2 for n in played) / len(played)) ** 0.5
    assert abs(mean - length.mean) < 4 * sd / len(played) ** 0.5
    within = sum(n <= length.quantile(0.9) for n in played) / len(played)
    assert 0.85 < within < 0.95
