"""The sensors seated as drawn (shutbox.cad.geometry.sensors): reed switches with their leads folded as the guide says,
in their shafts in the assembled box, at the gap the guide states; the magnet's pull against the reed's rated
distances; the bay for the controller and the 74HC165 board."""

from __future__ import annotations

import numpy as np
import pytest

from shutbox.base.errors import ShutboxError
from shutbox.cad.geometry.layout import FLOOR_SKIN, Layout, layout
from shutbox.kit.model import build_kit
from tests.conftest import CAD_WORKER

pytestmark = CAD_WORKER


def assembled_solids(settings: dict) -> tuple[list, Layout]:
    """The box (one piece on the XL bed), tiles and cover of a kit, placed as assembled."""
    from shutbox.cad.build.export import plan
    from shutbox.cad.geometry.parts import Builder

    kit = build_kit({"printer.bed": "xl", **settings})
    lay, split, specs = plan(kit)
    builder = Builder(kit, lay, split)
    solids = []
    for spec in specs:
        if spec.kind in ("box", "tile", "cover"):
            for placed in builder.place(spec, builder.build(spec)):
                solids.append((spec.name, spec.kind, placed))
    return solids, lay


@pytest.fixture(scope="module")
def default_kit():
    return assembled_solids({})


def test_field_agrees_with_the_closed_form_on_the_axis():
    from shutbox.cad.geometry.sensors import axial_field, field

    for distance in (1.0, 5.0, 12.0):
        on_axis = field(1.2, 6.0, 3.0, np.zeros(3), np.array([0.0, 0.0, 1.5 + distance]))
        assert on_axis[2] == pytest.approx(axial_field(1.2, 6.0, 3.0, distance), rel=2e-3)
        assert abs(on_axis[0]) < 1e-9 and abs(on_axis[1]) < 1e-9
    # About 45 mT 5 mm from a 6 x 3 mm N35 disc's face (magnet makers' calculators give 40-50 mT).
    assert 0.040 < axial_field(1.17, 6.0, 3.0, 5.0) < 0.050


def test_the_default_magnet_closes_a_shut_tiles_reed_and_leaves_an_open_ones_open():
    from shutbox.cad.checks.sensors import check_pull
    from shutbox.cad.geometry.sensors import reach, switch_fields

    lay = layout(build_kit({}))
    findings = {f.subject: f for f in check_pull(lay)}
    assert set(findings) == {"shut tile", "open tile", "shut neighbour"}
    assert all(f.ok for f in findings.values()), [f.line() for f in findings.values()]
    operate, release = switch_fields(lay.kit)
    assert lay.kit.sensors.reed_gap_mm < reach(lay.kit, operate) < lay.travel  # closes shut, well within its reach
    assert reach(lay.kit, release) < lay.travel  # the open tile's magnet is beyond where the reed releases


@pytest.mark.parametrize(("settings", "failing"), [
    ({"sensors.magnet_diameter_mm": 2, "sensors.magnet_height_mm": 1}, "shut tile"),  # a weak magnet
    ({"sensors.reed_gap_mm": 12, "sensors.reed_operate_mm": 5}, "shut tile"),  # too far for an insensitive reed
    ({"sensors.reed_release_mm": 60}, "open tile"),  # a reed that only opens far away: reads shut when open
])
def test_the_pull_check_fails_a_magnet_that_cannot_do_it(settings, failing):
    from shutbox.cad.checks.sensors import check_pull

    findings = {f.subject: f for f in check_pull(layout(build_kit({"box.height_mm": 60, **settings})))}
    assert not findings[failing].ok, findings[failing].line()


def test_the_gap_is_the_stated_one_and_too_small_a_gap_is_refused():
    lay = layout(build_kit({"sensors.reed_gap_mm": 6}))
    assert lay.magnet_face - lay.reed_top == pytest.approx(6.0)
    assert lay.lane_floor - lay.shaft_ceiling >= FLOOR_SKIN
    with pytest.raises(ShutboxError, match=r"--reed-gap 3: the reed switch's folded lead .* allowed: >= 4\.75"):
        layout(build_kit({"sensors.reed_gap_mm": 3}))
    with pytest.raises(ShutboxError, match=r"--reed-release 7: .* allowed: > --reed-operate 7\.5"):
        layout(build_kit({"sensors.reed_release_mm": 7}))


@pytest.mark.parametrize(("settings", "wanted"), [
    ({}, False), ({"rules.tiles": 10}, False), ({"rules.tiles": 12}, True),
    ({"firmware.tile_input": "74hc165"}, True), ({"sensors.kind": "none", "rules.tiles": 12}, False),
])
def test_the_74hc165_board_has_room_only_when_needed(settings, wanted):
    lay = layout(build_kit(settings))
    assert lay.shift_board is wanted
    if lay.sensors:
        s = lay.kit.sensors
        x0, x1, _, _ = lay.cavity
        assert x1 - x0 == pytest.approx(s.board_length_mm + 4.0 + (s.shift_board_length_mm + 4.0) * wanted)


@pytest.mark.slow
def test_reeds_seat_in_the_assembled_box_at_the_stated_gap(default_kit):
    from shutbox.cad.checks.sensors import check_reeds

    solids, lay = default_kit
    findings = list(check_reeds(solids, lay))
    assert len(findings) == lay.tiles
    assert all(f.ok for f in findings), [f.line() for f in findings if not f.ok]
    assert "glass 5.00 mm from the shut tile's magnet" in findings[0].detail


@pytest.mark.slow
@pytest.mark.parametrize("gap", [4.9, 5.6])
def test_a_reed_that_does_not_sit_as_drawn_fails(default_kit, gap):
    """The same box, checked for a switch that would sit 0.1 mm higher (into the ceiling) or 0.6 mm lower (not
    stopped by anything)."""
    from shutbox.cad.checks.sensors import check_reeds

    solids, lay = default_kit
    other = layout(build_kit({"printer.bed": "xl", "sensors.reed_gap_mm": gap}))
    lane = next(check_reeds(solids, other))
    assert not lane.ok, lane.line()


@pytest.mark.slow
def test_the_old_shaft_puts_the_folded_lead_into_its_cone(monkeypatch):
    """The shaft as it was (a 45-degree cone straight over the glass's top end, 1 mm under the lane floor): the folded
    lead runs into the cone, as the issue found."""
    from shutbox.cad.checks.sensors import check_reeds
    from shutbox.cad.geometry import sensors
    from shutbox.cad.geometry.shapes import coned_hole

    def old_shaft(lay, x):
        r = lay.kit.sensors.reed_diameter_mm / 2 + 0.75
        return coned_hole(x, lay.switch_y, r, -1.0, lay.lane_floor - FLOOR_SKIN - r)

    monkeypatch.setattr(sensors, "shaft_tool", old_shaft)  # what sensors.switch_pockets cuts for each lane
    solids, lay = assembled_solids({"rules.tiles": 10})
    lane = next(check_reeds(solids, lay))
    assert not lane.ok and "0.000 mm3 in the box" not in lane.detail, lane.line()


@pytest.mark.slow
def test_the_bay_takes_both_boards_with_their_wire_ways():
    from shutbox.cad.checks.sensors import check_bay
    from shutbox.cad.geometry.sensors import shift_board

    solids, lay = assembled_solids({"firmware.tile_input": "74hc165"})
    findings = list(check_bay(solids, lay))
    assert [f.subject for f in findings] == ["controller board", "74HC165 board", "wire ways"]
    assert all(f.ok for f in findings), [f.line() for f in findings]
    # Fed a board that does not fit: 6 mm wider than the bay was built for, it runs into the box.
    cover = next(shape for _, kind, shape in solids if kind == "cover")
    assert shift_board(lay).intersect(cover).Volume() < 1e-3  # it rests on the rails, between the end stops
    boxes = [shape for _, kind, shape in solids if kind == "box"]
    assert sum(b.intersect(cover).Volume() for b in boxes) < 1e-3  # the rails and stops clear the seat's slabs
    wide = layout(build_kit({"printer.bed": "xl", "firmware.tile_input": "74hc165",
                             "sensors.shift_board_width_mm": lay.kit.sensors.shift_board_width_mm + 6}))
    board = next(f for f in check_bay(solids, wide) if f.subject == "74HC165 board")
    assert not board.ok and "0.000 mm3 in the box" not in board.detail, board.line()
