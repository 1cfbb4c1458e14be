"""A picture for every step of the build guide, each one a file the build writes.

The steps are the numbered items of "Assemble", the wiring and closing of "Wire and solder" and the BOOTSEL press
of "Put MicroPython on the board" (the steps done by hand); the other sections are commands, run by
tests/test_build_guide_commands.py.
The guide's plan drawings (shutbox.cad.guide.figures: no CAD kernel) are drawn here for each kit and looked at as
numbers;
the rendered views are checked on the default kit's build in tests/test_cad_build.py.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from shutbox.cad.build.export import plan
from shutbox.cad.guide.buildnotes import build_notes
from shutbox.cad.guide.figures import FIGURES, draw_figures, figure_names
from shutbox.cad.guide.preview import kit_preview_names
from shutbox.kit.model import build_kit

KITS = {
    "default": {},
    "12 tiles on 74HC165s": {"rules.tiles": 12, "firmware.tile_input": "74hc165"},
    "mini bed, cut in four": {"printer.bed": "mini"},
    "xl bed, one piece": {"printer.bed": "xl", "rules.tiles": 10},
    "no sensors": {"sensors.kind": "none"},
    "microswitches": {"sensors.kind": "microswitch"},
}
IMAGE = re.compile(r"!\[[^\]]+\]\(preview/([^)]+)\)")


def _guide(settings: dict):
    kit = build_kit(settings)
    lay, split, specs = plan(kit)
    return kit, lay, split, build_notes(kit, lay, split, specs)


def section(notes: str, title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", notes, re.M | re.S)
    assert found is not None, title
    return found.group(1)


def numbered_steps(text: str) -> list[str]:
    """The numbered items of a section, each with the lines that follow it (its picture)."""
    return [m.group(0) for m in re.finditer(r"^\d+\. .*?(?=^\d+\. |\Z)", text, re.M | re.S)]


@pytest.mark.parametrize("name", KITS)
def test_every_step_has_a_picture_the_build_writes(name):
    kit, lay, split, notes = _guide(KITS[name])
    steps = numbered_steps(section(notes, "4. Assemble"))
    if lay.sensors:  # the sections done by hand that are not numbered assembly steps: one picture each at least
        wiring = section(notes, "5. Wire and solder")
        assert {"wiring.png", "cover.png"} <= set(IMAGE.findall(wiring))
        assert "bootsel.png" in IMAGE.findall(section(notes, "6. Put MicroPython on the board"))
    assert len(steps) >= (5 if lay.sensors else 2)
    bare = [step.split("\n")[0][:60] for step in steps if not IMAGE.search(step)]
    assert not bare, f"steps without a picture: {bare}"
    written = set(kit_preview_names(lay, len(split.pieces) > 1))
    referenced = set(IMAGE.findall(notes))
    assert referenced <= written, f"linked but not written: {referenced - written}"
    if lay.sensors:
        switch = {"magnets.png", "reed-leads.png"} if kit.sensors.magnets else {"microswitch.png"}
        assert {"switch-map.png", "wiring.png", "bootsel.png", *switch} <= referenced
    assert "felt.png" in referenced and "tiles.png" in referenced


def test_a_step_without_a_picture_is_found():
    """The check can fail: drop one step's picture and it is named."""
    _, _, _, notes = _guide({})
    broken = notes.replace("![A magnet in the pocket under a tile, from below and in section](preview/magnets.png)",
                           "")
    assert broken != notes
    steps = numbered_steps(section(broken, "4. Assemble"))
    assert [s for s in steps if not IMAGE.search(s)][0].startswith("2. Press a 6 x 3 mm magnet")


@pytest.mark.parametrize("name", KITS)
def test_the_plan_drawings_are_pictures(name, tmp_path):
    from PIL import Image

    _, lay, _, _ = _guide(KITS[name])
    names = draw_figures(lay, tmp_path)
    assert names == figure_names(lay) and set(names) <= set(FIGURES)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)
    for file in names:
        with Image.open(tmp_path / file) as image:
            assert image.format == "PNG" and min(image.size) > 300, file
            grey = np.asarray(image.convert("L"), dtype=float)
        assert grey.max() - grey.min() > 150, file
        background = np.mean(grey == grey[0, 0])
        assert 0.05 < background < 0.92, (file, background)  # a drawing fills the frame, and is not all ink
        assert grey[-5:, :].std() < 5 and grey[:, -5:].std() < 5, file  # nothing runs off the right or bottom


def test_the_switch_map_follows_the_pin_map(tmp_path):
    """Tile 1's shaft is drawn where the layout puts it: the pixel under its circle is the shaft's white fill,
    and the labels come from the pin map (changing --first-pin changes the picture)."""
    from PIL import Image

    _, lay, _, _ = _guide({})
    draw_figures(lay, tmp_path)
    _, other, _, _ = _guide({"firmware.first_pin": 6})
    (tmp_path / "other").mkdir()
    draw_figures(other, tmp_path / "other")
    a = np.asarray(Image.open(tmp_path / "switch-map.png").convert("L"))
    b = np.asarray(Image.open(tmp_path / "other" / "switch-map.png").convert("L"))
    assert a.shape == b.shape and (a != b).any()
    from shutbox.cad.guide.figures import MARGIN

    scale, top = 3.6, MARGIN + 70
    x, y = MARGIN + lay.lane_x(1) * scale, top + lay.switch_y * scale
    assert a[round(y), round(x)] == 255


def test_the_repository_guide_shows_the_sensors_seated_and_a_kit_guide_links_only_what_its_build_writes():
    """The two pictures rendered from the model with a box build each (shutbox.cad.guide.sensorviews) are in docs/img
    and
    the repository's guide links them; a kit's own guide does not, since its build does not render them."""
    from shutbox.cad.guide.figures import BAY_VIEW, REED_VIEW
    from tests.conftest import REPO

    kit = build_kit({})
    lay, split, specs = plan(kit)
    repo = build_notes(kit, lay, split, specs, images="img/cad-", seated=True)
    linked = re.findall(r"\]\(img/cad-([^)]+)\)", repo)
    assert REED_VIEW in linked and BAY_VIEW in linked
    assert all((REPO / "docs" / "img" / f"cad-{name}").is_file() for name in linked)
    own = set(IMAGE.findall(build_notes(kit, lay, split, specs)))
    assert not own & {REED_VIEW, BAY_VIEW} and own <= set(kit_preview_names(lay, len(split.pieces) > 1))
