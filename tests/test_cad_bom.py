"""The build guide's bill of materials against the model, for every bed preset, tile count, tile input and sensor
kind. The expected counts come from the kit's settings and the layout's geometry (where each shaft, pilot hole and
recess is), never from the parts list's own code; the guide's table is read back from its Markdown.

The fast tests plan each kit (no solids). The slow one builds the box's cutting tools and the screwed parts of one
kit per kind of split and counts the screw holes in them, which proves the fast tests' screw positions are the
holes the build cuts.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pytest

from shutbox.cad.build.export import plan
from shutbox.cad.geometry.layout import COVER_SCREW, GATE_SCREW, TAB_SCREW, Layout, gates
from shutbox.cad.geometry.split import SplitPlan
from shutbox.cad.guide.buildnotes import build_notes
from shutbox.kit.model import BED_PRESETS, SENSOR_KINDS, TILE_INPUTS, Kit, build_kit

TILE_COUNTS = (9, 10, 12)
#: What the guide calls each sensor kind's switch (a kind added to the model must be named here).
SWITCH_WORDS = {"reed": "reed switch", "microswitch": "microswitch"}
SCREW = re.compile(r"^M3 countersunk screw\b.*, (\d+(?:\.\d+)?) mm$")


@dataclass(frozen=True)
class Row:
    name: str
    quantity: int
    note: str


def bom(notes: str) -> list[Row]:
    """The rows of the guide's "What to buy" table."""
    section = notes.split("## 1. What to buy", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in section.splitlines()[2:]:
        name, quantity, note = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows.append(Row(name, int(quantity), note))
    return rows


def printed(notes: str) -> dict[str, int]:
    """Printed part name -> copies, from the guide's printed-parts table."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| printed: (\S+) \| (\d+) \|", notes, re.M)}


def total(rows: list[Row], starts: str) -> int:
    return sum(r.quantity for r in rows if r.name.startswith(starts))


def kit_for(bed: str, tiles: int, tile_input: str, sensors: str) -> Kit:
    return build_kit({"printer.bed": bed, "rules.tiles": tiles, "firmware.tile_input": tile_input,
                      "sensors.kind": sensors})


def expected_screws(lay: Layout, split: SplitPlan) -> dict[float, int]:
    """Screw length -> how many, from where the build cuts their pilot holes: two behind each gate's end lanes
    (one when a gate covers one lane), four in the cover's corners, one per screwed tab of a box cut at the
    tray's back wall."""
    screws: dict[float, int] = {}
    gate_holes = sum(len({g.first, g.last}) for g in gates(lay, split.xs))
    screws[GATE_SCREW] = gate_holes
    if lay.sensors:
        screws[COVER_SCREW] = screws.get(COVER_SCREW, 0) + 4
    tabs = sum(k.tab for k in split.keys)
    if tabs:
        screws[TAB_SCREW] = screws.get(TAB_SCREW, 0) + tabs
    return screws


def manhattan_wire_mm(lay: Layout) -> float:
    """Each switch's run down from where its wires leave it (a reed's shaft top, a microswitch's tabs), across to
    the bay and along to it, plus the shared return along the lanes: the least wire the box can be wired with."""
    x0, x1, y0, y1 = lay.cavity
    bay = ((x0 + x1) / 2, (y0 + y1) / 2)
    y, z = (lay.switch_y, lay.shaft_top) if not lay.kit.sensors.lever else lay.wire_start
    runs = [z + abs(lay.lane_x(n) - bay[0]) + abs(y - bay[1]) for n in range(1, lay.tiles + 1)]
    return sum(runs) + (lay.lane_x(lay.tiles) - lay.lane_x(1))


CASES = [(bed, n, ti, kind) for bed in BED_PRESETS for n in TILE_COUNTS for ti in TILE_INPUTS for kind in SENSOR_KINDS
         if kind != "none" or ti == TILE_INPUTS[0]]


@pytest.mark.parametrize(("bed", "tiles", "tile_input", "sensors"), CASES)
def test_bill_of_materials_follows_the_model(bed, tiles, tile_input, sensors):
    kit = kit_for(bed, tiles, tile_input, sensors)
    lay, split, specs = plan(kit)
    notes = build_notes(kit, lay, split, specs)
    rows = bom(notes)
    names = [r.name for r in rows]
    assert len(names) == len(set(names)), f"a row twice: {names}"
    n = kit.rules.tiles
    assert sum(s.kind == "tile" for s in specs) == n
    parts = printed(notes)
    assert sorted(p for p in parts if p.startswith("tile-")) == [f"tile-{k:02d}" for k in range(1, n + 1)]
    assert all(parts[f"tile-{k:02d}"] == 1 for k in range(1, n + 1))
    assert parts[f"die-{kit.dice.size_mm:g}mm"] == 2
    assert sum(p.startswith("box") for p in parts) == len(split.pieces)

    # Screws: every length the build drills a pilot for, as many as it drills.
    screws = {float(m.group(1)): r.quantity for r in rows if (m := SCREW.match(r.name))}
    assert screws == expected_screws(lay, split)

    # The felt: a little smaller than the recess the tray has for it (the recess lies inside the tray).
    felt = next(r for r in rows if r.name.startswith("felt"))
    sized = re.match(r"(\d+) x (\d+) mm, ([\d.]+) mm thick", felt.note)
    assert sized is not None, felt.note
    fx, fy, thick = (float(v) for v in sized.groups())
    tx0, tx1, ty0, ty1 = lay.tray
    rx, ry = lay.felt
    assert rx < tx1 - tx0 and ry < ty1 - ty0
    assert 0 < rx - fx <= 1.0 and 0 < ry - fy <= 1.0, (felt.note, lay.felt)
    assert thick == kit.box.felt_mm and felt.quantity == 1

    if sensors == "none":
        assert not [r for r in rows if re.search(r"switch|magnet|Pico|74HC165|wire|USB|resistor", r.name)], names
        return
    word = SWITCH_WORDS.get(sensors)
    assert word is not None, f"sensor kind {sensors!r}: say in SWITCH_WORDS what the guide calls its switch"
    assert total(rows, word) == n, f"{bed}, {n} tiles: {total(rows, word)} x {word}"
    switch = next(r for r in rows if r.name.startswith(word))
    if kit.sensors.magnets:
        assert total(rows, "disc magnet") == n
        magnet = next(r for r in rows if r.name.startswith("disc magnet"))
        assert f"{kit.sensors.magnet_grade} or stronger" in magnet.name
        assert f"{kit.sensors.magnet_diameter_mm:g} x {kit.sensors.magnet_height_mm:g} mm" in magnet.note
        assert f"close at {kit.sensors.reed_operate_mm:g} mm" in switch.note, switch.note
    else:  # a microswitch is worked by its tile's cam: no magnets; its size is the pocket's
        from shutbox.cad.geometry.microswitch import HEIGHT, LENGTH, WIDTH

        assert total(rows, "disc magnet") == 0, names
        assert f"{LENGTH:g} x {WIDTH:g} x {HEIGHT:g} mm body" in switch.note, switch.note
    board = {"pico": "Raspberry Pi Pico (RP2040)", "pico2": "Raspberry Pi Pico 2 (RP2350)"}[kit.firmware.board]
    assert total(rows, board) == 1
    chips = math.ceil(n / 8) if tile_input == "74hc165" else 0
    assert total(rows, "74HC165") == chips
    assert total(rows, "100 nF") == chips
    board = [r for r in rows if r.name.startswith("perfboard")]  # the 74HC165s' board, sized as the bay holds it
    assert len(board) == (1 if chips else 0)
    if chips:
        assert lay.shift_board
        assert f"{kit.sensors.shift_board_length_mm:g} x {kit.sensors.shift_board_width_mm:g} mm" in board[0].note
    # A 74HC165's inputs have no pull resistors of their own: one per tile; the Pico's own pulls need none.
    assert total(rows, "resistor") == (n if tile_input == "74hc165" else 0)
    assert total(rows, "momentary push button") + total(rows, "12 mm panel push button") == 1
    assert total(rows, "micro-USB data cable") == 1
    wire = next(r for r in rows if r.name.startswith("hook-up wire"))
    length = re.search(r"\(([\d.]+) m\)", wire.name)
    assert length is not None, wire.name
    metres = float(length.group(1))
    least = manhattan_wire_mm(lay) / 1000
    assert least <= metres <= 1.5 * least + 0.5, (metres, least)
    assert f"{n + 1} runs" in wire.note


def test_the_mini_bed_lists_one_reed_per_tile():
    """The issue's case: the mini bed's box is cut in four (along its length too), and the front pieces hold no
    switches; the guide once listed 18 reeds for 9 tiles."""
    kit = kit_for("mini", 9, "gpio", "reed")
    lay, split, specs = plan(kit)
    assert len(split.pieces) == 4 and split.ys
    assert total(bom(build_notes(kit, lay, split, specs)), "reed switch") == 9


def test_the_magnet_and_reed_rows_follow_their_settings():
    kit = build_kit({"sensors.magnet_grade": "N42", "sensors.reed_operate_mm": 9, "sensors.reed_release_mm": 14})
    rows = bom(build_notes(kit, *plan(kit)))
    assert total(rows, "disc magnet, axially magnetised, N42 or stronger") == 9
    assert "close at 9 mm and open by 14 mm" in next(r for r in rows if r.name.startswith("reed switch")).note


def test_the_table_reader_sees_a_wrong_count():
    """The check can fail: a guide with one reed too many is caught."""
    kit = kit_for("mk4", 9, "gpio", "reed")
    lay, split, specs = plan(kit)
    notes = build_notes(kit, lay, split, specs)
    row = "| reed switch, normally open, glass body |"
    bad = notes.replace(f"{row} 9 |", f"{row} 18 |")
    assert bad != notes
    assert total(bom(bad), "reed switch") == 18
    assert expected_screws(lay, split) == {GATE_SCREW: 6, COVER_SCREW: 4}


def _faces_of_radius(shape, radius: float) -> int:
    """Cylindrical faces of ``shape`` with this radius: the holes (or pilot tools) it has."""
    count = 0
    for face in shape.Faces():
        if face.geomType() == "CYLINDER" and abs(face._geomAdaptor().Cylinder().Radius() - radius) < 1e-3:
            count += 1
    return count


@pytest.mark.slow
@pytest.mark.parametrize("bed", ["mk4", "mini", "xl"])  # cut in two, in four (with tabs), not cut
def test_screws_listed_are_the_holes_the_build_cuts(bed, monkeypatch):
    """The box's cutting tools (built without the slow booleans) hold a pilot hole for every screw listed, and the
    gates and the cover as built have a clearance hole for each of theirs."""
    pytest.importorskip("cadquery")
    import cadquery as cq

    import shutbox.cad.geometry.box as box
    from shutbox.cad.geometry.boardfit import STRIP_SCREW
    from shutbox.cad.geometry.cover import build_cover
    from shutbox.cad.geometry.layout import SCREW_CLEAR, SCREW_PILOT

    kit = kit_for(bed, 9, "gpio", "reed")
    lay, split, specs = plan(kit)
    rows = bom(build_notes(kit, lay, split, specs))
    screws = {float(m.group(1)): r.quantity for r in rows if (m := SCREW.match(r.name))}
    strip = sum(r.quantity for r in rows if r.name == STRIP_SCREW)  # the circuit board's, into its blocks
    tools: list[cq.Shape] = []
    monkeypatch.setattr(box, "cut_all", lambda body, cut: tools.extend(cut) or body)
    monkeypatch.setattr(box, "hollows", lambda *a, **k: cq.Solid.makeBox(1, 1, 1))  # booleans, no screw holes
    monkeypatch.setattr(box, "text_solid", lambda *a, **k: cq.Solid.makeBox(1, 1, 1))
    box.build_box(lay, split.xs, split.ys)
    pilots = sum(_faces_of_radius(tool, SCREW_PILOT / 2) > 0 for tool in tools)
    assert pilots == sum(screws.values()) + strip, (pilots, screws, strip)
    monkeypatch.undo()
    gate_holes = sum(_faces_of_radius(box.build_gate(lay, g), SCREW_CLEAR / 2) for g in gates(lay, split.xs))
    assert gate_holes == screws[GATE_SCREW]
    assert _faces_of_radius(build_cover(lay), SCREW_CLEAR / 2) == screws[COVER_SCREW]
    assert screws.get(TAB_SCREW, 0) == (4 if bed == "mini" else 0)


@pytest.mark.parametrize("settings", [{"printer.bed": "mini"}, {"sensors.kind": "microswitch"}])
def test_the_guide_is_written_without_cadquery(settings):
    """Planning a kit and writing its guide (what every test here does, for each case) loads no CAD kernel, with
    either kind of switch (an unchanged rebuild plans the kit and finds it in the cache)."""
    import subprocess
    import sys

    code = ("import sys; from shutbox.kit.model import build_kit; from shutbox.cad.build.export import plan; "
            f"from shutbox.cad.guide.buildnotes import build_notes; kit = build_kit({settings!r}); "
            "build_notes(kit, *plan(kit)); print('cadquery' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr
