"""Regenerate docs/img/web-review.png and docs/img/web-stats-phone.png: the review page's step-through of a
saved drop-out game (a blunder shown) at desktop width, and the stats page on a phone, in headless Chromium.

Run from anywhere: .venv/bin/python docs/img/make_review_screenshots.py
"""

import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shutbox.companion.store.database import GameStore  # noqa: E402
from shutbox.companion.web.review import ReviewPages  # noqa: E402
from shutbox.companion.web.scoreboard import WebBoard  # noqa: E402
from shutbox.kit.model import Rules  # noqa: E402
from tests.review_support import long_enough  # noqa: E402
from tests.test_review_cli import _mistake_game  # noqa: E402
from tests.test_web_review import _save  # noqa: E402
from tests.web_support import browser  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        with GameStore(db) as store:
            _save(store, _mistake_game())
            _save(store, long_enough(Rules(match="drop-out", limit=60), ["Ann", "Bob", "Cy"], 10))
        with WebBoard("127.0.0.1", 0, lambda item: None, pages=ReviewPages(db)) as web, browser() as chromium:
            url = f"http://127.0.0.1:{web.port}"
            steps = httpx.get(f"{url}/api/review/2", timeout=60).json()["steps"]
            blunder = next(i for i, s in enumerate(steps) if s["grade"] == "blunder")
            page = chromium.new_page(viewport={"width": 1280, "height": 860})
            page.goto(f"{url}/review?game=2&step={blunder + 1}")
            page.wait_for_selector("#moves li.here")
            page.screenshot(path=str(ROOT / "docs" / "img" / "web-review.png"))
            page.close()
            page = chromium.new_page(viewport={"width": 390, "height": 520})
            page.goto(f"{url}/stats")
            page.wait_for_selector("#boardbody tr")
            page.screenshot(path=str(ROOT / "docs" / "img" / "web-stats-phone.png"))
            page.close()


if __name__ == "__main__":
    main()
