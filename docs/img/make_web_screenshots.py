"""Regenerate docs/img/web-phone.png and docs/img/web-tv.png: a drop-out game in progress on the simulated box,
the page in headless Chromium at phone width and in TV large-type mode.

Run from anywhere: .venv/bin/python docs/img/make_web_screenshots.py
"""

import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shutbox.kit.model import build_kit  # noqa: E402
from tests.web_support import LiveTable, browser  # noqa: E402

KIT = build_kit({"firmware.debounce_ms": 5, "firmware.scan_ms": 1, "rules.match": "drop-out", "rules.limit": 45})


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, browser() as chromium, \
            LiveTable(KIT, Path(tmp) / "g.sqlite3", ["Ann", "Bob", "Cy"]) as table:
        assert table.sim is not None
        table.sim.session.auto_hint = True

        def throw(a: int, b: int) -> None:
            answer = httpx.post(table.local_url + "api/throw", json={"dice": [a, b]})
            assert answer.status_code == 200, answer.text

        def flip(*tiles: int, shut: bool = True) -> None:
            for tile in tiles:
                table.box.set_tile(tile, shut)
                time.sleep(0.08)

        for tiles in ((9, 3), (8, 4), (7, 5)):  # Ann: three moves, then a dead 6 + 6 scores 9
            throw(6, 6)
            flip(*tiles)
        throw(6, 6)
        time.sleep(0.2)
        flip(3, 4, 5, 7, 8, 9, shut=False)
        throw(5, 3)  # Bob: shuts 8, then is half-way through a 10
        flip(8)
        throw(6, 4)
        flip(6)
        time.sleep(0.4)
        for name, viewport, query, scale in (("web-phone", (390, 844), "", 2), ("web-tv", (1920, 1080), "?tv=1", 1)):
            page = chromium.new_page(viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=scale)
            page.goto(table.local_url + query)
            page.wait_for_selector("#tile-8[data-state=shut]")
            time.sleep(0.3)
            page.screenshot(path=str(ROOT / "docs" / "img" / f"{name}.png"), full_page=not query)


if __name__ == "__main__":
    main()
