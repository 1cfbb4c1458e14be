"""The microswitch option (``--sensors microswitch``, shutbox.cad.geometry.microswitch): a hinge-lever switch with its
tabs in a
pocket under each lane, worked by a cam under its tile; checked in the assembled box, and fed switches seated too
high or too low, a cam too short and a pocket too small, each of which must fail."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.cad.checks import switches
from shutbox.cad.geometry.layout import SQRT2, Layout, layout
from shutbox.kit.model import SENSOR_KINDS, build_kit
from tests.conftest import CAD_WORKER
from tests.test_cad_sensors import assembled_solids

pytestmark = CAD_WORKER

MICRO = {"sensors.kind": "microswitch"}


def _solids(settings: dict) -> tuple[list, Layout]:
    """A microswitch kit's box, tiles and cover placed as assembled."""
    return assembled_solids({**MICRO, **settings})


@pytest.fixture(scope="module")
def micro_kit():
    return _solids({})


def test_the_option_is_declared_once_and_the_cli_takes_it():
    from shutbox.cli.parser import main

    assert "microswitch" in SENSOR_KINDS
    kit = build_kit(MICRO)
    assert kit.sensors.lever and not kit.sensors.magnets
    assert main(["config", "show", "--sensors", "microswitch"]) == 0
    assert main(["config", "show", "--sensors", "microswitches"]) == 2


def test_a_tile_play_the_lever_cannot_take_is_refused():
    """The press sits half the overtravel past OP: a tile lifted by the lever to its flanks (clearance x sqrt 2) stays
    past OP up to a clearance of 0.42 mm; beyond that the kit is refused, with the limit."""
    from shutbox.cad.geometry import microswitch as m

    lay = layout(build_kit(MICRO))
    assert m.PRESS + lay.clearance * SQRT2 <= m.OPERATE
    assert m.PRESS - lay.clearance >= m.OPERATE - m.OVERTRAVEL
    layout(build_kit({**MICRO, "tile_fit.clearance_mm": 0.3, "tile_fit.detent_mm": 0.9}))  # the most the detent allows
    m.check_layout(replace(lay, clearance=0.42))
    with pytest.raises(ShutboxError, match=r"--clearance 0\.45: .*allowed: <= 0\.42"):
        m.check_layout(replace(lay, clearance=0.45))
    with pytest.raises(ShutboxError, match=r"--shift-board-height 20: the controller bay would reach"):
        layout(build_kit({**MICRO, "firmware.tile_input": "74hc165", "sensors.shift_board_height_mm": 20}))


def test_the_lever_model_puts_its_tip_where_asked():
    from shutbox.cad.geometry import microswitch as m

    for height in (m.PRESS, m.OPERATE, 10.6, m.FREE):
        assert m.tip_height(m.angle_for(height)) == pytest.approx(height, abs=1e-6)
    lay = layout(build_kit(MICRO))
    sw = m.switch(lay, 1)
    top = sw.lever.BoundingBox().zmax  # the lever's highest point is its tip's top edge
    assert top - m.holes_z(lay) == pytest.approx(m.PRESS, abs=1e-3)
    assert top == pytest.approx(lay.tile_z, abs=1e-3)  # where the tile's flat underside is


@pytest.mark.parametrize(("change", "why"), [
    ({"body": 0.5}, "seated in the box"),
    ({"pushed": 0.0}, "not resting on anything"),
    ({"pressed": 9.2}, "the cam does not press it past OP"),
    ({"pressed": 7.4}, "pressed past its overtravel"),
    ({"released": 9.5}, "not released when open"),
    ({"lever_open": 0.3}, "lever in the box"),
])
def test_the_verdict_fails_each_way_a_switch_can_fail(change, why):
    from shutbox.cad.geometry import microswitch as m

    lay = layout(build_kit(MICRO))
    good = {"body": 0.0, "pushed": 5.0, "pressed": m.PRESS, "released": 10.9, "lever_shut": 0.0, "lever_open": 0.0}
    assert switches.verdict(lay, good)[0]
    assert not switches.verdict(lay, {**good, **change})[0], why


def test_the_parts_list_and_guide_name_the_switch_and_no_magnets():
    from shutbox.cad.build.export import plan
    from shutbox.cad.guide.buildnotes import build_notes
    from shutbox.cad.guide.figures import figure_names

    kit = build_kit(MICRO)
    lay, split, specs = plan(kit)
    notes = build_notes(kit, lay, split, specs)
    assert "| microswitch, subminiature, hinge lever, SPDT" in notes
    assert "magnet" not in notes.split("## 2. Tools")[0]
    assert "reed" not in notes
    assert "8.2 mm over the mounting holes" in notes
    assert "microswitch.png" in figure_names(lay) and "magnets.png" not in figure_names(lay)
    assert "reed-leads.png" not in notes


def test_the_wiring_sheet_says_which_tabs():
    from shutbox.firmware.host.plan import pin_map
    from shutbox.firmware.host.wiring import wiring_markdown

    sheet = wiring_markdown(pin_map(build_kit(MICRO)))
    assert "C (common) tab" in sheet and "on the NO tab" in sheet and "the NC tab stays free" in sheet
    closed = wiring_markdown(pin_map(build_kit({**MICRO, "firmware.pull": "down", "firmware.shut_level": "low"})))
    assert "on the NC tab" in closed or "on the NO tab" in closed
    assert "C (common)" not in wiring_markdown(pin_map(build_kit({})))


def test_a_microswitch_tile_has_the_channel_and_no_magnet_pocket():
    pytest.importorskip("cadquery")
    from shutbox.cad.geometry import microswitch as m
    from shutbox.cad.geometry.tiles import build_tile

    reed_lay, lay = layout(build_kit({})), layout(build_kit(MICRO))
    reed_tile, tile = build_tile(reed_lay, 1), build_tile(lay, 1)
    radius = reed_lay.magnet_pocket[0] / 2

    def pockets(shape) -> int:
        return sum(f.geomType() == "CYLINDER" and abs(f._geomAdaptor().Cylinder().Radius() - radius) < 1e-3
                   for f in shape.Faces())

    assert pockets(reed_tile) >= 1 and pockets(tile) == 0
    import cadquery as cq

    # Over the lever's tip of a shut tile the underside is flat (the cam); over an open tile's, the channel's roof.
    probe = cq.Solid.makeBox(1.0, 1.0, 3.0, cq.Vector(-0.5, m.TIP_AT - 0.5, -0.5))
    assert tile.intersect(probe).BoundingBox().zmin == pytest.approx(0.0, abs=1e-6)
    probe = cq.Solid.makeBox(1.0, 1.0, 3.0, cq.Vector(-0.5, m.TIP_AT - lay.travel - 0.5, -0.5))
    assert tile.intersect(probe).BoundingBox().zmin == pytest.approx(m.CHANNEL_DEPTH, abs=1e-6)


@pytest.mark.slow
def test_microswitches_seat_and_are_worked_by_their_tiles(micro_kit):
    from shutbox.cad.checks.sensors import check_sensors
    from shutbox.cad.checks.switches import check_switches
    from shutbox.cad.geometry.microswitch import OPERATE, PRESS

    solids, lay = micro_kit
    findings = list(check_switches(solids, lay))
    assert len(findings) == lay.tiles
    assert all(f.ok for f in findings), [f.line() for f in findings if not f.ok]
    assert f"holds the lever's tip {PRESS:.2f} mm over the holes" in findings[0].detail
    checks = {f.check for f in check_sensors(solids, lay)}
    assert checks == {"microswitch", "bay", "board"}  # no reed, no magnet
    assert OPERATE > PRESS


@pytest.mark.slow
@pytest.mark.parametrize("lift", [-0.1, 0.3])
def test_a_switch_seated_too_low_or_too_high_fails(micro_kit, lift):
    """Seated 0.1 mm low it runs into its ledges; 0.3 mm high it rests on nothing (and its lever is pressed too far)."""
    from shutbox.cad.checks.switches import check_switches

    solids, lay = micro_kit
    lane = next(check_switches(solids, lay, lift=lift))
    assert not lane.ok, lane.line()


@pytest.mark.slow
def test_a_cam_too_short_leaves_the_lever_unpressed(micro_kit):
    """A tile whose channel runs on past the lever's tip (its ramp ends 8 mm behind it, 1 mm from the tile's back
    end): the flat underside behind the ramp meets the lever too near its hinge to press its tip past the operating
    position. (3 mm behind still does: the lever is long.)"""
    import cadquery as cq

    from shutbox.cad.geometry import microswitch as m

    solids, lay = micro_kit
    short = []
    for name, kind, shape in solids:
        if name == "tile-01":
            bb = shape.BoundingBox()
            lane_x = lay.lane_x(1)
            front = lay.tile_y(False) if bb.ymin > lay.tile_y(True) + lay.travel / 2 else lay.tile_y(True)
            channel = m.channel_tool(lay, ramp=m.TIP_AT + 8.0).translate(cq.Vector(lane_x, front, lay.tile_z))
            shape = shape.cut(channel)
        short.append((name, kind, shape))
    lane = next(switches.check_switches(short, lay))
    assert not lane.ok, lane.line()
    got = float(lane.detail.split("holds the lever's tip ")[1].split(" mm")[0])
    assert got > m.OPERATE, lane.line()


@pytest.mark.slow
def test_a_pocket_too_small_fails(monkeypatch):
    from shutbox.cad.geometry import microswitch as m

    monkeypatch.setattr(m, "POCKET_PLAY", -0.1)
    solids, lay = _solids({"rules.tiles": 10})
    monkeypatch.undo()
    lane = next(switches.check_switches(solids, lay))
    assert not lane.ok and "0.000 mm3 in the box" not in lane.detail.split(";")[0], lane.line()


@pytest.mark.slow
def test_a_microswitch_kit_builds_watertight(tmp_path):
    """``shutbox cad --sensors microswitch`` writes every part as one closed body, with no overhang past 45 degrees."""
    from shutbox.cad.build.export import build_cad
    from shutbox.cad.checks.check import check_mesh

    kit = build_kit({**MICRO, "printer.bed": "xl"})
    manifest = build_cad(kit, tmp_path, ("stl",), progress=False)
    bed = kit.printer.bed_mm
    for part in manifest["parts"]:
        for finding in check_mesh(tmp_path / part["files"]["stl"], bed):
            assert finding.ok, finding.line()
    assert math.isclose(len([p for p in manifest["parts"] if p["name"].startswith("tile-")]), kit.rules.tiles)


@pytest.mark.slow
def test_the_keyed_tiles_still_slide_over_the_windows(micro_kit):
    """Each tile, with its channel, slides from open to shut keeping its clearance over the lane floor's window, and
    still does not go in turned round or flipped (shutbox.cad.geometry.keys)."""
    from shutbox.cad.checks.keys import check_keys

    solids, lay = micro_kit
    found = list(check_keys(solids, lay))
    assert len(found) == lay.tiles
    assert all(f.ok for f in found), [f.line() for f in found if not f.ok]
