"""Keyed tiles: in the assembled kit every tile slides its whole travel the right way round (front to the
player, number upright) in any lane, and turned round or flipped over it meets material in the way; the same
check passes a tile whose key is filled in. The key prints without support and leaves the numbers alone."""

from __future__ import annotations

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.cad.checks.keys import check_keys, key_finding, lane_surroundings, tile_frame
from shutbox.cad.geometry.keys import KEY_BLOCK_MM3, groove_profile, groove_tool, key_room, rib_profile, rib_solid
from shutbox.cad.geometry.layout import KEY_WALL, layout
from shutbox.kit.model import build_kit
from tests.conftest import CAD_WORKER, skip_module_without

skip_module_without("cadquery")
pytestmark = CAD_WORKER


def _assembled(settings):
    from shutbox.cad.build.export import plan
    from shutbox.cad.geometry.parts import Builder

    kit = build_kit(settings)
    lay, split, specs = plan(kit)
    builder = Builder(kit, lay, split)
    solids = []
    for spec in specs:
        for i, solid in enumerate(builder.place(spec, builder.build(spec))):
            solids.append((spec.name if spec.quantity == 1 else f"{spec.name}-{i + 1}", spec.kind, solid))
    return lay, solids


@pytest.fixture(scope="module")
def default_kit():
    return _assembled({})


def _volumes(finding, label):
    part = finding.detail.split(f"{label}: ")[1].split(" mm3")[0]
    return [float(v) for v in part.split(", ")]


def _unkeyed_tile(lay, tile):
    """The tile with its groove filled in (what an unkeyed tile is)."""
    import cadquery as cq

    from shutbox.cad.geometry.tiles import tile_profile

    body = cq.Workplane("XZ").polyline(tile_profile(lay)).close().extrude(-lay.tile_length).findSolid()
    return tile.fuse(groove_tool(lay).intersect(body)).clean()


def _unkeyed_lane(lay, near, lane):
    """The box round a lane with its key rib planed off the lane floor."""
    import cadquery as cq

    rib = rib_solid(lay, lane)
    above = cq.Solid.makeBox(50.0, 500.0, 20.0, cq.Vector(lay.lane_x(lane) - 25.0, -100.0, lay.lane_floor))
    return [part.cut(rib.intersect(above)).clean() for part in near]


@pytest.mark.parametrize("tiles", [9, 10, 12])
def test_the_rib_is_the_groove_shrunk_by_the_clearance_and_the_key_keeps_its_walls(tiles):
    import cadquery as cq

    lay = layout(build_kit({"rules.tiles": tiles}))
    assert key_room(lay) >= KEY_WALL
    c = lay.clearance
    groove = cq.Workplane("XZ").polyline(groove_profile(lay)).close().extrude(-1.0).findSolid()
    tile = cq.Solid.makeBox(lay.tile_width, 1.0, lay.tile_thickness, cq.Vector(-lay.tile_width / 2, 0, 0)).cut(groove)
    rib = cq.Workplane("XZ").polyline(rib_profile(lay)).close().extrude(-1.0).findSolid()
    above_floor = rib.cut(cq.Solid.makeBox(50, 50, 50, cq.Vector(-25, -25, -c - 50)))
    assert tile.distance(above_floor) == pytest.approx(c)
    assert above_floor.BoundingBox().zmax + c >= 2.0  # the rib stands 2 mm over the lane floor
    assert max(x for x, _ in groove_profile(lay)) < 0  # on the side away from the detent arm (+x)


def test_a_magnet_that_leaves_the_key_no_room_is_refused_with_one_line():
    with pytest.raises(ShutboxError) as err:
        layout(build_kit({"rules.tiles": 12, "sensors.magnet_diameter_mm": 8}))
    message = str(err.value)
    assert message.startswith("--magnet-diameter 8: leaves no room for the key groove") and "allowed: <=" in message
    layout(build_kit({"rules.tiles": 12, "sensors.magnet_diameter_mm": 7.5}))  # what it allows fits


@pytest.mark.slow
def test_every_tile_slides_right_way_round_and_not_turned_round_or_flipped(default_kit):
    lay, solids = default_kit
    found = list(check_keys(solids, lay))
    assert len(found) == lay.tiles
    assert all(f.ok for f in found), [f.line() for f in found if not f.ok]
    gap = float(found[0].detail.split("at least ")[1].split(" mm")[0])
    assert gap == pytest.approx(lay.clearance, abs=1e-3)


@pytest.mark.slow
def test_any_tile_goes_into_another_lane_only_the_right_way_round(default_kit):
    """Every lane is keyed alike: tile 6 reads upright in lane 9 too, and not turned round."""
    lay, solids = default_kit
    tiles = [s for s in solids if s[1] == "tile"]
    found = list(check_keys(tiles[5:6] + [s for s in solids if s[1] != "tile"], lay, {tiles[5][0]: lay.tiles}))
    assert len(found) == 1 and found[0].ok and found[0].subject.endswith(f"lane {lay.tiles}"), found[0].line()


@pytest.mark.slow
def test_the_check_fails_an_unkeyed_tile(default_kit):
    """Fill the groove in: the tile no longer slides over the rib. Plane the rib off as well: now it goes in
    turned round (only the detent arm's bump would be in the way, and the arm gives way)."""
    lay, solids = default_kit
    lane = 6
    placed = next(s for name, kind, s in solids if kind == "tile" and name == "tile-06")
    tile = tile_frame(lay, placed, lane)
    near = lane_surroundings(solids, lay, lane)
    keyed = key_finding(near, tile, lay, lane, "tile-06")
    assert keyed.ok, keyed.line()
    assert min(_volumes(keyed, "turned round")) >= KEY_BLOCK_MM3
    filled = _unkeyed_tile(lay, tile)
    in_keyed_lane = key_finding(near, filled, lay, lane, "unkeyed")
    assert not in_keyed_lane.ok and "at least 0.000 mm" in in_keyed_lane.detail, in_keyed_lane.line()
    unkeyed = key_finding(_unkeyed_lane(lay, near, lane), filled, lay, lane, "unkeyed")
    assert not unkeyed.ok, unkeyed.line()
    assert max(_volumes(unkeyed, "turned round")) < 1.0  # nothing stops it going in backwards
    assert min(_volumes(unkeyed, "flipped")) >= KEY_BLOCK_MM3  # the dovetail alone stops it upside down


def test_the_tiles_number_is_untouched_by_the_groove():
    """The groove is cut from the underside only: the tile's top (number, scoop) is the same with and without."""
    import cadquery as cq

    from shutbox.cad.geometry.tiles import build_tile

    lay = layout(build_kit({"rules.tiles": 12}))
    tile = build_tile(lay, 12)
    top = cq.Solid.makeBox(50, 50, 2.0, cq.Vector(-25, -5, lay.tile_thickness - 2.0))
    groove = groove_tool(lay)
    assert groove.intersect(top).Volume() == pytest.approx(0.0, abs=1e-9)
    assert groove.BoundingBox().zmax <= lay.tile_thickness - lay.engrave - 3.0
    assert tile.intersect(groove).Volume() == pytest.approx(0.0, abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("tiles", [9, 12])
def test_a_keyed_tile_slices_without_support_or_long_bridges(tiles, tmp_path):
    """Printed foot down, the groove's 45-degree roof needs no support (PrusaSlicer, support on: auto, 40
    degrees) and no bridge over it; the part check finds no overhang either."""
    from shutbox.cad.geometry.tiles import build_tile
    from tests.conftest import require_tool

    require_tool("prusa-slicer")
    from shutbox.cad.checks.check import check_mesh
    from shutbox.cad.geometry.mesh import tessellate, write_mesh
    from shutbox.cad.slicer.sliced import sliced_findings

    kit = build_kit({"rules.tiles": tiles})
    lay = layout(kit)
    stl = tmp_path / "tile.stl"
    write_mesh(tessellate(build_tile(lay, tiles), kit.cad.chord_tolerance_mm, kit.cad.angular_tolerance_deg), stl)
    found = {f.check: f for f in sliced_findings(stl, tmp_path, kit.printer.bed_mm)}
    assert found["support"].ok and found["bridge"].ok, [f.line() for f in found.values()]
    meshed = list(check_mesh(stl, kit.printer.bed_mm))
    assert all(f.ok for f in meshed), [f.line() for f in meshed]
