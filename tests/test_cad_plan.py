"""CAD planning without geometry: dimensions follow the kit, the bed splitter, refusals before building."""

from __future__ import annotations

import numpy as np
import pytest

from shutbox.base.errors import SettingsError, ShutboxError
from shutbox.cad.build.export import parse_formats, plan
from shutbox.cad.geometry.layout import DECK_SKIN, RIB_MIN, TILE_MIN_WIDTH, layout
from shutbox.cad.geometry.split import JOINT_DEPTH, allowed_x_cuts, at_wall, fits, plan_split, y_cut_range
from shutbox.kit.model import BED_PRESETS, build_kit
from tests.conftest import first_fast

EXPECTED_PIECES = {"mk4": 2, "mk3": 2, "core-one": 2, "mini": 4, "xl": 1, "ender3": 2, "bambu": 2}


@pytest.mark.parametrize("tiles", [9, 10, 12])
@pytest.mark.parametrize("bed", list(BED_PRESETS))
def test_splitter_fits_every_preset(tiles, bed):
    kit = build_kit({"rules.tiles": tiles, "printer.bed": bed})
    lay = layout(kit)
    split = plan_split(lay, kit.printer.bed_mm)
    assert len(split.pieces) == EXPECTED_PIECES[bed]
    bw, bh, bz = kit.printer.bed_mm
    for piece in split.pieces:
        a, b, h = piece.size
        assert h <= bz
        turned = (b, a) if piece.rotate else (a, b)
        assert turned[0] <= bw + 1e-9 and turned[1] <= bh + 1e-9, piece
    ribs = allowed_x_cuts(lay)
    assert all(any(abs(x - r) < 1e-9 for r in ribs) for x in split.xs), "x cuts must fall on ribs"
    lo, hi = y_cut_range(lay)
    assert all(lo <= y <= hi or at_wall(lay, y) for y in split.ys)  # in the tray, or at its back wall
    # The pieces tile the box exactly: spans without the keys add up to the box.
    row = [p for p in split.pieces if p.row == 0]
    assert sum(p.x1 - p.x0 for p in row) == pytest.approx(lay.length)
    column = [p for p in split.pieces if p.column == 0]
    assert sum(p.y1 - p.y0 for p in column) == pytest.approx(lay.width)
    for piece in split.pieces:
        # The deck keys point both ways: a piece reaches past each of its cuts across the box.
        has_right = any(q.column == piece.column + 1 for q in split.pieces)
        has_left = piece.column > 0
        assert piece.size[0] == pytest.approx(piece.x1 - piece.x0 + JOINT_DEPTH * (has_right + has_left))
    cuts = len(split.xs) * len(column) + len(split.ys) * len(row)
    assert (len(split.keys) >= cuts) and (cuts == 0) == (len(split.pieces) == 1)
    names = [p.name for p in split.pieces]
    assert len(set(names)) == len(names)


def test_split_only_when_needed_and_fewest_pieces():
    kit = build_kit({"printer.bed": "300x200x100"})  # box 279.4 x 183.7 fits as is
    assert len(plan_split(layout(kit), kit.printer.bed_mm).pieces) == 1
    kit = build_kit({"printer.bed": "200x300x100"})  # fits turned
    split = plan_split(layout(kit), kit.printer.bed_mm)
    assert len(split.pieces) == 1 and split.pieces[0].rotate
    kit = build_kit({"printer.bed": "120x120x80"})
    split = plan_split(layout(kit), kit.printer.bed_mm)
    assert all(fits(p.size, kit.printer.bed_mm) is not None for p in split.pieces)
    assert len(split.pieces) == 3 * 2


def test_tile_width_follows_from_tile_count():
    widths = [layout(build_kit({"rules.tiles": n})).tile_width for n in (9, 10, 12)]
    assert widths[0] > widths[1] > widths[2] >= TILE_MIN_WIDTH
    for n in (9, 10, 12):
        lay = layout(build_kit({"rules.tiles": n}))
        assert lay.rib == pytest.approx(RIB_MIN)
        assert lay.lane_x(n) + lay.pitch / 2 == pytest.approx(lay.length - lay.wall)
        assert lay.tile_z + lay.tile_thickness == pytest.approx(lay.height)  # flush with the box top


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({"tile_fit.clearance_mm": 0.45}, "--detent 0.8: a tile leaning away from its bump would slip past"),
        ({"tile_fit.clearance_mm": 0.3, "tile_fit.detent_mm": 0.85}, "allowed: >= 0.90 (2 x clearance + 0.3)"),
        ({"tile_fit.clearance_mm": 0.2, "tile_fit.detent_mm": 1.2}, "--detent 1.2: more than the detent arm"),
        ({"tile_fit.clearance_mm": 0.9, "tile_fit.detent_mm": 1.5}, "--clearance 0.9: tiles would rattle"),
        ({"rules.tiles": 12, "box.length_mm": 200}, "--box-length 200: too short for 12 tiles"),
        ({"box.width_mm": 100}, "--box-width 100: too narrow"),
        ({"box.height_mm": 20}, "--box-height 20: too low"),
        ({"printer.bed": "300x300x40"}, "the box is 54.8 mm tall"),
        ({"printer.bed": "15x15x15"}, "smaller than a die (19 x 19 x 19 mm)"),
        ({"printer.bed": "40x40x60"}, "too small to print the box"),
        ({"sensors.board_width_mm": 40}, "--board-width 40"),
        ({"sensors.magnet_diameter_mm": 10, "rules.tiles": 12}, "--magnet-diameter 10"),
    ],
)
def test_bad_combinations_are_refused_before_geometry(values, needle):
    with pytest.raises(ShutboxError) as err:
        plan(build_kit(values))
    message = str(err.value)
    assert needle in message and "\n" not in message and "allowed" in message


def test_negative_sizes_are_refused_by_the_model():
    for key in ("box.length_mm", "box.width_mm", "box.height_mm", "dice.size_mm", "tile_fit.clearance_mm"):
        with pytest.raises(SettingsError, match="allowed"):
            build_kit({key: -1})


def test_formats():
    assert parse_formats("stl,3mf,step") == ("stl", "3mf", "step")
    assert parse_formats(" STL ") == ("stl",)
    for bad in ("obj", "", "stl,obj"):
        with pytest.raises(ShutboxError, match="allowed"):
            parse_formats(bad)


@pytest.mark.parametrize(
    "args",
    first_fast([
        ["--clearance", "0.45"],
        ["--detent", "0.6"],
        ["--magnet-slack", "-1"],
        ["--cache-limit", "1"],
        ["--tiles", "12", "--box-length", "200"],
        ["--bed", "15x15x15"],
        ["--bed", "300x300x40"],
        ["--box-width", "-3"],
        ["--formats", "obj"],
    ]),
)
def test_cli_refuses_bad_input_with_one_line_and_writes_nothing(cli, tmp_path, args):
    out = tmp_path / "out"
    proc = cli("cad", *args, "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("tiles", [9, 10, 12])
def test_shut_tile_puts_its_magnet_over_the_switch(tiles):
    from shutbox.cad.geometry.layout import FLOOR_SKIN, MAGNET_AT

    lay = layout(build_kit({"rules.tiles": tiles}))
    assert lay.tile_y(shut=True) + MAGNET_AT == pytest.approx(lay.switch_y)
    assert lay.tile_y(shut=False) + MAGNET_AT - lay.switch_y == pytest.approx(lay.travel)
    # Magnet face to the glass's top end: the gap the guide states; the folded lead over the glass fits under
    # the lane floor with at least its skin to spare.
    assert lay.magnet_face - lay.reed_top == pytest.approx(lay.kit.sensors.reed_gap_mm)
    assert lay.shaft_ceiling == pytest.approx(lay.reed_top + lay.fold_rise)
    assert lay.lane_floor - lay.shaft_ceiling >= FLOOR_SKIN - 1e-9
    y0, y1 = lay.number_zone
    assert y1 < lay.switch_y - lay.shaft_radius  # the lane's number is not over a shaft
    assert y1 - y0 <= lay.travel  # and is covered by a shut tile


@pytest.mark.parametrize(("settings", "contact"), [
    ({}, "normally open"),
    ({"firmware.shut_level": "high"}, "normally closed"),  # pulled up, a press must open the contact
    ({"firmware.button_pin": "none"}, None),  # no button wired: none listed
])
def test_the_parts_list_names_the_button_contact_the_wiring_needs(settings, contact):
    from shutbox.cad.geometry.layout import BUTTON_PART, button_name

    kit = build_kit(settings)
    lay, _, specs = plan(kit)
    buttons = [item.name for spec in specs for item in spec.fitted(kit, lay) if item.name.startswith(BUTTON_PART)]
    assert buttons == ([button_name(contact == "normally closed")] if contact else [])
    if contact:
        assert contact in buttons[0]


def test_the_guide_asks_for_glue_only_where_no_gate_or_screw_holds_the_joint():
    from shutbox.cad.geometry.split import wall_cut
    from shutbox.cad.guide.buildnotes import build_notes, glued_joints

    kit = build_kit({})  # mk4: cut between lanes only, the gates hold it
    lay, split, specs = plan(kit)
    notes = build_notes(kit, lay, split, specs)
    assert glued_joints(specs, lay) is None and "CA (super) glue" not in notes
    assert "No glue: the gates screwed across the joints" in notes
    kit = build_kit({"printer.bed": "mini"})  # also cut at the tray's back wall: screwed tabs hold it
    lay, split, specs = plan(kit)
    assert split.ys == (wall_cut(lay),)
    notes = build_notes(kit, lay, split, specs)
    assert glued_joints(specs, lay) is None and "CA (super) glue" not in notes
    assert "drive an M3 x 10 mm countersunk screw up through each tab (4 in all)" in notes
    assert "| M3 countersunk screw, ISO 10642 / DIN 7991 (forms its thread in the printed 2.5 mm pilot), 10 mm | 4 |" \
        in notes
    kit = build_kit({"printer.bed": "170x120x220"})  # too shallow for the tray in one piece: cut across it
    lay, split, specs = plan(kit)
    assert split.ys and split.ys[0] < lay.tray[3] - 10.0
    notes = build_notes(kit, lay, split, specs)
    assert glued_joints(specs, lay) == "the joints across the tray"
    assert "| CA (super) glue or plastic glue | 1 | for the joints across the tray |" in notes
    assert "CA glue for the magnets and the joints across the tray" in notes
    assert "the joints across the tray have only floor keys, so glue them" in notes


@pytest.mark.parametrize("settings", [{}, {"cad.engrave_depth_mm": 2.0}, {"box.wall_mm": 6.0, "rules.tiles": 12},
                                      {"box.width_mm": 230.0}, {"box.wall_mm": 1.2, "box.width_mm": 150.0}])
def test_the_hollow_leaves_a_skin_under_the_numbers_the_lanes_and_the_gate_pockets(settings):
    """The hollow's roof is a skin under the engraved numbers in front of the spine, under the lane floor behind
    it, and under the gate pockets (which sit lower) from where they start; neither of its flat roofs bridges
    further than BRIDGE_SPAN (the deck keeps its depth whatever the box's width: the tray takes the rest)."""
    from shutbox.cad.geometry.layout import BRIDGE_SPAN, HOLLOW_RIB

    lay = layout(build_kit(settings))
    y0, y1 = lay.number_zone
    for y in np.linspace(lay.tray[3] + lay.wall, lay.width - lay.wall, 200):
        under = lay.lane_floor - (lay.engrave if y0 <= y <= y1 else 0.0)
        if y >= lay.lane_end:
            under = min(under, lay.gate_floor)
        assert lay.roof_at(float(y)) <= under - DECK_SKIN + 1e-9, y
    assert y1 < lay.switch_y and lay.roof_at(y1) == lay.hollow_roof
    spine = lay.switch_y - HOLLOW_RIB / 2, lay.switch_y + HOLLOW_RIB / 2
    assert spine[0] - (lay.tray[3] + lay.wall) <= BRIDGE_SPAN
    assert lay.width - lay.wall - spine[1] <= BRIDGE_SPAN
