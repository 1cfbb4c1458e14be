"""Helpers for the score-pad tests: read PDFs back, render them, play seeded games, compare goldens.

Golden files live in ``tests/golden/print/``. To regenerate them after an intended change, run
``SHUTBOX_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_print_golden.py`` and look at the
new PDFs before committing them.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import zlib
from pathlib import Path

import pdfplumber
import reportlab
from PIL import Image
from pypdf import PdfReader

from shutbox.game.gamefile import game_to_dict
from shutbox.game.replay import Game
from shutbox.kit.model import Rules
from tests.conftest import REPO, require_tool

GOLDEN = REPO / "tests" / "golden" / "print"
UPDATE = os.environ.get("SHUTBOX_UPDATE_GOLDEN") == "1"
#: The byte-for-byte comparison holds for the ReportLab and zlib that made the goldens; with others
#: the drawing (decompressed page content) must still match exactly.
TOOLCHAIN = {"reportlab": reportlab.Version, "zlib": zlib.ZLIB_RUNTIME_VERSION}


def page_texts(path: Path) -> list[str]:
    with pdfplumber.open(path) as pdf:
        return [page.extract_text() or "" for page in pdf.pages]


def render(path: Path, folder: Path, dpi: int = 40) -> list[Image.Image]:
    """Every page as a greyscale image, via poppler's ``pdftoppm``."""
    exe = require_tool("pdftoppm")
    prefix = folder / f"render-{path.stem}"
    subprocess.run([exe, "-r", str(dpi), "-gray", "-png", str(path), str(prefix)], check=True)
    return [Image.open(p).convert("L") for p in sorted(folder.glob(f"render-{path.stem}*.png"))]


def ink(image: Image.Image, box: tuple[int, int, int, int] | None = None) -> float:
    """Fraction of pixels that are not white."""
    part = image.crop(box) if box else image
    histogram = part.histogram()
    return 1.0 - sum(histogram[240:]) / sum(histogram)


def play(rules: Rules, names: list[str], seed: int, max_throws: int = 5000) -> Game:
    """A complete game played by the rules engine with seeded dice: one die whenever allowed, and the
    engine's first legal move for each throw."""
    rng = random.Random(seed)
    game = Game(rules).add_players(*names)
    for _ in range(max_throws):
        if game.finished:
            break
        dice = 1 if 1 in game.dice_counts() else max(game.dice_counts())
        game.throw(*(rng.randint(1, 6) for _ in range(dice)))
        moves = game.legal_moves()
        if moves:
            (game.uncover if game.phase == "uncover" else game.shut)(*moves[0])
    return game


def game_json(game: Game) -> str:
    return json.dumps(game_to_dict(game), indent=1) + "\n"


def drawing(path: Path) -> list[bytes]:
    """The decompressed content stream of every page (the drawing, independent of compression)."""
    streams = []
    for page in PdfReader(path).pages:
        contents = page.get_contents()
        assert contents is not None, "a page without content"
        streams.append(contents.get_data())
    return streams


def check_golden(made: Path, name: str) -> None:
    """``made`` equals the golden PDF ``name`` (rewritten instead when SHUTBOX_UPDATE_GOLDEN=1)."""
    golden = GOLDEN / name
    toolchain_file = GOLDEN / "toolchain.json"
    if UPDATE:  # an intended change: what can still be checked is that the new golden is a sound PDF
        pages = drawing(made)
        assert pages and all(pages), f"{name}: a page draws nothing"
        assert all(text.strip() for text in page_texts(made)), f"{name}: a page has no text"
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(made.read_bytes())
        toolchain_file.write_text(json.dumps(TOOLCHAIN, indent=1) + "\n")
        assert drawing(golden) == pages
        return
    assert golden.exists(), f"no golden {golden}; make it with SHUTBOX_UPDATE_GOLDEN=1"
    assert drawing(made) == drawing(golden), f"{name}: the drawing differs from the golden"
    if json.loads(toolchain_file.read_text()) == TOOLCHAIN:
        assert made.read_bytes() == golden.read_bytes(), f"{name}: bytes differ from the golden"
