"""The kit studio in a real browser (headless Chromium from Debian's ``chromium``, driven by playwright): the form
refuses an invalid value beside its field in the command line's words; tiles 12 and the bed mini change the 3D
preview; the download is the kit, whose manifest says 12 tiles and mini."""

from __future__ import annotations

import json
import zipfile

import pytest

from shutbox.kit.model import SECTIONS, SETTINGS
from shutbox.studio.schema import Refusal, check_settings
from shutbox.studio.server import Studio

pytestmark = pytest.mark.slow

#: A cold CAD build of a kit takes about a minute on two idle cores; give a busy machine five.
BUILD_TIMEOUT_MS = 300_000


@pytest.fixture
def studio():
    lines: list[str] = []
    with Studio("127.0.0.1", 0, workers=2, say=lines.append) as running:
        running.lines = lines  # type: ignore[attr-defined]
        yield running


def cli_words(values: dict) -> str:
    try:
        check_settings(values)
    except Refusal as exc:
        return exc.message
    raise AssertionError(f"{values} is not refused")


def test_the_studio_designs_a_12_tile_kit_for_a_mini_and_downloads_it(chromium, studio, tmp_path):
    page = chromium.new_page(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    page.goto(f"http://127.0.0.1:{studio.port}/")
    page.wait_for_selector("#f-rules-tiles")
    assert page.title() == "Shut the Box kit studio"
    assert page.locator("fieldset").count() == len(SECTIONS) and page.locator(".field").count() == len(SETTINGS)

    # An invalid value: refused beside its field, in the words `shutbox kit --tiles 13` prints.
    page.fill("#f-rules-tiles", "13")
    page.wait_for_selector(".field[data-key='rules.tiles'].invalid", timeout=10_000)
    assert page.inner_text("#e-rules-tiles") == cli_words({"rules.tiles": "13"})
    assert page.inner_text("#e-rules-tiles").startswith("--tiles 13: the kit (box, firmware and dice) is built for")
    assert page.locator(".field.invalid").count() == 1
    page.fill("#f-rules-tiles", "9")
    page.wait_for_selector(".field.invalid", state="detached", timeout=10_000)

    # The default kit's preview, then tiles 12 and a mini's bed: the preview changes.
    page.wait_for_selector("#view[data-tiles='9']", timeout=BUILD_TIMEOUT_MS)
    first_build = page.get_attribute("#view", "data-build")
    before = page.locator("#view").screenshot()
    page.fill("#f-rules-tiles", "12")
    page.fill("#f-printer-bed", "mini")
    page.wait_for_selector("#view[data-tiles='12']", timeout=BUILD_TIMEOUT_MS)
    assert page.get_attribute("#view", "data-build") != first_build
    assert int(page.get_attribute("#view", "data-parts") or 0) > 12 + 2
    page.wait_for_timeout(500)
    assert page.locator("#view").screenshot() != before

    # The download: the kit of these settings.
    page.wait_for_selector("#download[aria-disabled=false]", timeout=BUILD_TIMEOUT_MS)
    with page.expect_download(timeout=60_000) as download:
        page.click("#download")
    saved = tmp_path / "kit.zip"
    download.value.save_as(saved)
    with zipfile.ZipFile(saved) as archive:
        names = archive.namelist()
        manifest = json.loads(archive.read("shutbox-kit/manifest.json"))
        toml = archive.read("shutbox-kit/shutbox.toml").decode()
    assert manifest["settings"]["rules"]["tiles"] == 12
    assert manifest["settings"]["printer"]["bed"] == "mini"
    assert "tiles = 12" in toml and 'bed = "mini"' in toml
    assert sum(1 for n in names if n.startswith("shutbox-kit/cad/stl/tile-")) == 12
    for wanted in ("cad/build.md", "cad/assembly.step", "firmware/bundle.json"):
        assert f"shutbox-kit/{wanted}" in names
    assert any(n.startswith("shutbox-kit/scorepad/") for n in names)
    assert any(n.startswith("shutbox-kit/card/") for n in names)
    assert any(n.endswith(".3mf") for n in names) and any(n.startswith("shutbox-kit/cad/project/") for n in names)
    assert page.inner_text("#progress").startswith("ready: ")
    page.close()
    assert [line for line in studio.lines if "refused" in line] == [
        f"studio: refused POST /api/builds from 127.0.0.1: 400, {cli_words({'rules.tiles': '13'})}"]
