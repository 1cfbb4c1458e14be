"""The phone's photo on the web page: a file input that opens the camera (capture="environment"), the photo
posted, read and entered as the throw, kept with the game; headless Chromium from Debian's ``chromium``."""

from __future__ import annotations

import time

import httpx
import pytest

from shutbox.kit.model import build_kit
from tests.test_dice_camera import two_dice_file
from tests.test_web_scoreboard import FAST_KIT
from tests.web_support import LiveTable


@pytest.fixture
def table(tmp_path):
    with LiveTable(build_kit(FAST_KIT), tmp_path / "games.sqlite3", ["Ann", "Bob"]) as live:
        yield live


@pytest.mark.slow  # a browser
def test_a_photo_taken_on_the_page_is_read_and_entered_as_the_throw(chromium, table, tmp_path):
    from shutbox.companion.store.database import GameStore

    path, want = two_dice_file()
    photo = tmp_path / "tray.jpg"
    photo.write_bytes(path.read_bytes())
    page = chromium.new_page()
    page.goto(table.local_url)
    page.wait_for_selector("#tile-9[data-state=open]")
    assert page.get_attribute("#photo", "capture") == "environment"
    assert page.get_attribute("#photo", "accept") == "image/*"
    page.set_input_files("#photo", str(photo))
    page.wait_for_function(f"document.getElementById('total').textContent === '= {sum(want)}'", timeout=30000)
    assert table.events()[-1] == {"type": "throw", "dice": want}
    assert page.locator("#dice .die").count() == 2
    # the reading is kept just after the throw is entered (and shown): on a busy machine, a moment later
    deadline = time.monotonic() + 10
    while True:
        with GameStore(table.db) as store:
            kept = store.readings(1)
        if kept or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [(k.dice, k.source) for k in kept] == [(want, "phone")]
    page.close()


def test_a_photo_that_is_no_picture_or_reads_unsure_is_refused_and_nothing_recorded(table):
    url = table.local_url + "api/photo"
    answer = httpx.post(url, content=b"not a picture", headers={"Content-Type": "image/jpeg"})
    assert answer.status_code == 400 and "not a picture" in answer.json()["error"]
    answer = httpx.post(url, content=b"{}", headers={"Content-Type": "application/json"})
    assert answer.status_code == 415
    import cv2
    import numpy as np

    blank = cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))[1].tobytes()
    answer = httpx.post(url, content=blank, headers={"Content-Type": "image/jpeg"})
    assert answer.status_code == 409 and answer.json()["dice"] == []
    assert "no dice seen" in answer.json()["messages"][-1]["text"]
    assert [e["type"] for e in table.events()] == ["players"]


def test_a_rate_limited_photo_says_when_to_try_again(tmp_path):
    from shutbox.companion.web.guard import WRONG_CODES

    with LiveTable(build_kit(FAST_KIT), tmp_path / "g.sqlite3", ["Ann", "Bob"], join_code="ABCDEF") as live:
        url = live.local_url + "api/photo"
        jpeg = {"Content-Type": "image/jpeg"}
        for _ in range(WRONG_CODES):
            assert httpx.post(url + "?code=WRONG1", content=b"x", headers=jpeg).status_code == 403
        answer = httpx.post(url + "?code=ABCDEF", content=b"x", headers=jpeg)
        assert answer.status_code == 429 and "wait" in answer.json()["error"]
        assert 1 <= int(answer.headers["Retry-After"]) <= 60
        assert [e["type"] for e in live.events()] == ["players"]
