"""The box holds what it must: captive tiles, a detent that clicks, screw holes with plastic round them,
gates that close every lane, and box pieces that slice without support (OCCT booleans, PrusaSlicer)."""

from __future__ import annotations

import math

import pytest

from shutbox.cad.build.export import plan
from shutbox.cad.checks.holding import CAPTIVE_MM3, check_captive, check_detent, check_fasteners
from shutbox.cad.geometry.layout import DETENT_MARGIN, GATE_GAP, SCREW_EDGE, SCREW_HEAD, TAB_WIDTH, gates, layout
from shutbox.cad.geometry.parts import Builder
from shutbox.kit.model import BED_PRESETS, build_kit
from tests.conftest import require_tool, skip_module_without

skip_module_without("cadquery")


def _assembled(settings):
    """(kit, layout, plan, specs, [(name, kind, solid)]) with every part built and placed."""
    kit = build_kit(settings)
    lay, split, specs = plan(kit)
    builder = Builder(kit, lay, split)
    solids = []
    printed = {}
    for spec in specs:
        printed[spec.name] = builder.build(spec)
        for i, solid in enumerate(builder.place(spec, printed[spec.name])):
            solids.append((spec.name if spec.quantity == 1 else f"{spec.name}-{i + 1}", spec.kind, solid))
    return kit, lay, split, specs, solids, printed


@pytest.fixture(scope="module")
def default_kit():
    return _assembled({})


@pytest.mark.slow
def test_every_tile_is_captive_at_both_ends_of_its_travel(default_kit):
    _, lay, _, _, solids, _ = default_kit
    found = list(check_captive(solids, lay))
    assert len(found) == lay.tiles
    assert all(f.ok for f in found), [f.line() for f in found if not f.ok]


@pytest.mark.slow
def test_without_its_gates_a_tile_slides_out_at_the_back(default_kit):
    _, lay, _, _, solids, _ = default_kit
    no_gates = [s for s in solids if s[1] != "gate"]
    found = list(check_captive(no_gates, lay))
    assert not any(f.ok for f in found)
    # The sill still holds at "shut": the first two volumes (past shut) stay large, the last two (past open) are 0.
    volumes = [float(v) for v in found[0].detail.split("by ")[1].split(" mm3")[0].split(", ")]
    assert min(volumes[:2]) >= CAPTIVE_MM3 and max(volumes[2:]) == pytest.approx(0.0, abs=1e-3)


@pytest.mark.slow
def test_detent_catches_the_engagement_at_worst_case_play(default_kit):
    kit, lay, _, _, solids, _ = default_kit
    found = list(check_detent(solids, lay))
    assert all(f.ok for f in found), [f.line() for f in found if not f.ok]
    assert lay.engagement == pytest.approx(kit.tile_fit.detent_mm - 2 * kit.tile_fit.clearance_mm)
    assert lay.engagement >= DETENT_MARGIN - 1e-9  # the defaults satisfy the rule


@pytest.mark.slow
def test_screw_holes_keep_their_plastic_and_the_usb_opening_clear(default_kit):
    _, lay, split, _, solids, _ = default_kit
    found = list(check_fasteners(solids, lay, split.xs))
    assert len(found) == 4 + sum(len(g.screw_points(lay)) for g in gates(lay, split.xs))
    assert all(f.ok for f in found), [f.line() for f in found if not f.ok]


@pytest.mark.slow
def test_a_box_cut_at_the_trays_back_wall_is_held_by_screwed_tabs():
    """On the mini bed the box is cut along its length at the tray's back wall: each tray piece carries tabs
    that reach under the deck's front wall into slots in blocks behind it, so it cannot lift off the deck,
    and a screw from below through each tab into its block keeps it from sliding out. No glue."""
    import cadquery as cq

    from shutbox.cad.checks.measure import volume_in
    from shutbox.cad.geometry.split import wall_cut
    from shutbox.cad.guide.buildnotes import glued_joints

    kit, lay, split, specs, solids, _ = _assembled({"printer.bed": "mini"})
    assert split.ys == (wall_cut(lay),)
    tabs = [k for k in split.keys if k.tab]
    trays = [p for p in split.pieces if p.y1 == split.ys[0]]
    assert len(trays) == 2 and all(sum(p.x0 <= k.centre <= p.x1 for k in tabs) >= 2 for p in trays)
    found = [f for f in check_fasteners(solids, lay, split.xs, split.ys) if f.subject.startswith("tab screw")]
    assert len(found) == len(tabs) and all(f.ok for f in found), [f.line() for f in found if not f.ok]
    screws = [i for s in specs for i in s.fitted(kit, lay) if i.name.endswith(", 10 mm")]
    assert sum(i.quantity for i in screws) == len(tabs)
    assert glued_joints(specs, lay) is None
    decks = [shape for name, kind, shape in solids if kind == "box" and name.startswith("box-back")]
    for name, kind, tray in solids:
        if kind == "box" and name.startswith("box-front"):
            assert volume_in(decks, tray) < 1e-3  # assembled: clear of the deck pieces
            lifted = volume_in(decks, tray.translate(cq.Vector(0, 0, 1.0)))
            assert lifted >= 2 * TAB_WIDTH * 0.5, name  # its tabs run into the slots' roofs


@pytest.mark.slow
def test_fastener_check_catches_a_countersink_off_its_part(default_kit):
    import cadquery as cq

    _, lay, split, _, solids, _ = default_kit
    moved = [(n, k, s.translate(cq.Vector(2.5, 0, 0)) if k == "cover" else s) for n, k, s in solids]
    found = [f for f in check_fasteners(moved, lay, split.xs) if f.subject.startswith("cover")]
    assert found and not any(f.ok for f in found)


@pytest.mark.slow
def test_gate_is_printed_top_down_and_its_countersinks_sit_inside_it(default_kit):
    _, lay, split, _, _, printed = default_kit
    for gate in gates(lay, split.xs):
        bb = printed[gate.name].BoundingBox()
        assert (bb.xmin, bb.ymin, bb.zmin) == pytest.approx((GATE_GAP, GATE_GAP, 0.0))
        assert bb.zlen == pytest.approx(lay.height - lay.gate_floor)
        depth = lay.width - lay.lane_end - GATE_GAP
        assert depth / 2 - SCREW_HEAD / 2 >= 1.6  # countersink margin front and back


@pytest.mark.parametrize("tiles", [9, 10, 12])
@pytest.mark.parametrize("bed", list(BED_PRESETS))
def test_gates_close_every_lane_once_and_fit_the_bed(tiles, bed):
    kit = build_kit({"rules.tiles": tiles, "printer.bed": bed})
    lay, split, specs = plan(kit)
    found = gates(lay, split.xs)
    lanes = [n for g in found for n in range(g.first, g.last + 1)]
    assert lanes == list(range(1, tiles + 1))
    for x in split.xs:  # every cut runs through a gate screwed down on both sides of it: it locks the pieces
        gate = next(g for g in found if g.x0 < x < g.x1)
        sides = [sx < x for sx, _ in gate.screw_points(lay)]
        assert True in sides and False in sides
    for g in found:
        assert max(g.x1 - g.x0, lay.width - lay.lane_end) <= max(kit.printer.bed_mm[:2])
    assert sorted(s.name for s in specs if s.kind == "gate") == sorted(g.name for g in found)


@pytest.mark.parametrize("tiles", [9, 10, 12])
def test_cover_screws_sit_inside_their_flanges_clear_of_the_usb_opening(tiles):
    from shutbox.cad.geometry.layout import (
        COVER_FLANGE_X,
        COVER_GAP,
        SCREW_CLEAR,
        SCREW_PILOT,
        SEAT_TOOTH,
        USB_CLEAR,
        USB_WIDTH,
        WALL_MIN,
    )

    lay = layout(build_kit({"rules.tiles": tiles}))
    w, h = lay.cover_size
    oy = lay.cover_origin[1]
    for x, y in lay.screw_points():
        assert min(x, w - x, y, h - y) == pytest.approx(SCREW_EDGE)  # countersink + 1.6 mm inside the cover
        assert min(x, w - x) + SCREW_CLEAR / 2 + 1.6 <= COVER_FLANGE_X  # clear of the controller bay
        usb_gap = abs(oy + y - lay.usb_y) - USB_WIDTH / 2 - SCREW_PILOT / 2
        assert usb_gap >= USB_CLEAR
        for tx, ty in lay.seat_teeth():  # the notches for the seat's teeth keep clear of the countersink's plastic
            assert math.dist((x, y), (tx, ty)) - SEAT_TOOTH - COVER_GAP >= SCREW_HEAD / 2 + WALL_MIN


def test_magnet_pocket_slack_is_a_setting():
    lay = layout(build_kit({}))
    assert lay.magnet_pocket == pytest.approx((6.5, 3.5))  # 6 x 3 mm magnet, 0.5 mm slack by default
    lay = layout(build_kit({"sensors.magnet_slack_mm": 0.3}))
    assert lay.magnet_pocket == pytest.approx((6.3, 3.3))


#: A known fault, left open with issue 42 (docs/pcb.md): PrusaSlicer supports part of the flat roof of the circuit
#: board's neck slot through the controller bay's front wall, on the one box piece that holds it (0.45 g on the
#: default kit). At most this much, on at most one box piece; every other box piece and every gate gets none.
NECK_SLOT_SUPPORT_G = 0.5


def support_only_under_the_neck_slot(box_grams: list[float]) -> bool:
    """Whether the box pieces' support (grams each) is no more than the neck slot's known fault."""
    supported = [g for g in box_grams if g > 0.0]
    return len(supported) <= 1 and all(g <= NECK_SLOT_SUPPORT_G for g in supported)


def test_the_neck_slot_allowance_is_that_and_no_more():
    assert support_only_under_the_neck_slot([0.0, 0.45, 0.0])
    assert not support_only_under_the_neck_slot([0.45, 0.1])
    assert not support_only_under_the_neck_slot([0.8])


@pytest.mark.slow
def test_box_pieces_and_gates_bridge_at_most_45_mm_and_stay_lean(default_kit, tmp_path):
    """Sliced as a user slices (PrusaSlicer's built-in settings, support on: auto, 40 degrees), no bridge move of
    a box piece or gate runs over 45 mm of air (the cross ribs and the gate wall hold every roof), and the box
    stays lean: hollow under the deck, a skin under the lane floor, arched ribs, walls round the bay."""
    require_tool("prusa-slicer")
    from shutbox.cad.geometry.mesh import tessellate, write_mesh
    from shutbox.cad.slicer.sliced import BRIDGE_MAX, slice_with_support

    kit, _, _, specs, _, printed = default_kit
    longest, box_support = {}, {}
    for spec in specs:
        if spec.kind not in ("box", "gate"):
            continue
        stl = tmp_path / f"{spec.name}.stl"
        write_mesh(tessellate(printed[spec.name], 0.1, 20.0), stl)
        result = slice_with_support(stl, tmp_path / f"{spec.name}.gcode", kit.printer.bed_mm)
        longest[spec.name] = result.longest
        if spec.kind == "box":
            box_support[spec.name] = result.support_grams
        else:
            assert result.support_grams == 0.0, spec.name
    assert support_only_under_the_neck_slot(list(box_support.values())), box_support
    assert max(longest.values()) <= BRIDGE_MAX, longest


def _sliced(shape, name: str, tmp_path, bed):
    """A part sliced with support on (PrusaSlicer's built-in settings): its support grams and longest bridge."""
    from shutbox.cad.geometry.mesh import tessellate, write_mesh
    from shutbox.cad.slicer.sliced import slice_with_support

    stl = tmp_path / f"{name}.stl"
    write_mesh(tessellate(shape, 0.1, 20.0), stl)
    return slice_with_support(stl, tmp_path / f"{name}.gcode", bed)


@pytest.mark.slow
def test_box_pieces_get_no_support_with_support_on(default_kit, tmp_path):
    """The piece with the controller bay included: the seat's teeth put plastic under the corners where the flange
    slabs' perimeters turn (without them it got 0.08 g of support there)."""
    require_tool("prusa-slicer")
    kit, _, _, specs, _, printed = default_kit
    grams = {spec.name: _sliced(printed[spec.name], spec.name, tmp_path, kit.printer.bed_mm).support_grams
             for spec in specs if spec.kind == "box"}
    assert support_only_under_the_neck_slot(list(grams.values())), grams


@pytest.mark.slow
def test_tiles_die_and_cover_get_no_support_with_support_on(default_kit, tmp_path):
    """The default kit's other parts: a tile (they differ only in their numbers), the die and the cover (its
    notches for the seat's teeth included) slice without support and bridge no more than 45 mm."""
    require_tool("prusa-slicer")
    from shutbox.cad.slicer.sliced import BRIDGE_MAX

    kit, _, _, specs, _, printed = default_kit
    names = [next(s.name for s in specs if s.kind == "tile")] + [s.name for s in specs if s.kind in ("die", "cover")]
    for name in names:
        result = _sliced(printed[name], name, tmp_path, kit.printer.bed_mm)
        assert result.support_grams == 0.0 and result.longest <= BRIDGE_MAX, (name, result.support_grams,
                                                                              result.longest)


#: The beds whose box pieces the slow tests slice and assemble: two pieces (mk4, the default kit), four (mini)
#: and one (a 300 mm bed).
SLICED_BEDS = ("mk4", "mini", "300x300x300")


def _split_family(bed: str):
    kit = build_kit({"printer.bed": bed})
    _, split, specs = plan(kit)
    pieces = [(p.name, p.x0, p.x1, p.y0, p.y1, p.rotate) for p in split.pieces]
    return split.xs, split.ys, pieces, sorted(s.name for s in specs if s.kind == "gate")


@pytest.mark.parametrize("bed", list(BED_PRESETS))
def test_every_bed_preset_splits_the_box_as_one_of_the_sliced_beds(bed):
    """The bed enters the box's geometry only through its split (cuts, pieces, turns) and gates: every preset splits
    the box as one of ``SLICED_BEDS`` does, so what the slow tests slice and assemble is every bed's box."""
    assert _split_family(bed) in [_split_family(b) for b in SLICED_BEDS], bed


@pytest.mark.slow
@pytest.mark.parametrize("bed", ["mini", "300x300x300"])
def test_box_pieces_and_gates_print_clean_and_hold_on_the_bed(bed, tmp_path):
    """On the mini bed (four pieces: tray pieces tabbed and screwed under the deck) and a 300 mm bed (one piece),
    no box piece or gate gets support with support on, none bridges over 45 mm, and every box piece
    is held in all six directions (a one-piece box has no joint to hold)."""
    require_tool("prusa-slicer")
    from shutbox.cad.checks.holding import check_joints
    from shutbox.cad.slicer.sliced import BRIDGE_MAX

    kit, lay, split, specs, solids, printed = _assembled({"printer.bed": bed})
    found = {}
    for spec in specs:
        if spec.kind in ("box", "gate"):
            result = _sliced(printed[spec.name], spec.name, tmp_path, kit.printer.bed_mm)
            found[spec.name] = (round(result.support_grams, 3), round(result.longest, 1))
    # The tab slots' roofs get none (their pilot holes start a membrane over them), the bay's flange slabs none (the
    # seat's teeth under their corners).
    kinds = {spec.name: spec.kind for spec in specs}
    assert all(span <= BRIDGE_MAX for _, span in found.values()), found
    assert all(g == 0.0 for name, (g, _) in found.items() if kinds[name] == "gate"), found
    assert support_only_under_the_neck_slot([g for name, (g, _) in found.items() if kinds[name] == "box"]), found
    joints = list(check_joints(solids, lay))
    assert len(joints) == (len(split.pieces) if len(split.pieces) > 1 else 0)
    assert all(f.ok for f in joints), [f.line() for f in joints if not f.ok]


@pytest.mark.slow
@pytest.mark.parametrize("bed", ["mk4", "mini"])
def test_keys_and_pockets_carry_lead_in_and_elephants_foot_relief(bed):
    import cadquery as cq

    from shutbox.cad.geometry.split import RELIEF, key_solid, plan_split

    kit = build_kit({"printer.bed": bed})
    lay = layout(kit)
    split = plan_split(lay, kit.printer.bed_mm)
    g = kit.cad.joint_clearance_mm

    def section(shape, z):
        return shape.intersect(cq.Solid.makeBox(500, 500, 0.01, cq.Vector(-100, -100, z))).Volume() / 0.01

    assert split.keys
    for key in split.keys:
        solid, pocket = key_solid(key), key_solid(key, g)
        assert solid.isValid() and pocket.isValid()
        foot, body = section(solid, 0.02), section(solid, RELIEF + 0.2)
        mouth, inside = section(pocket, 0.02), section(pocket, RELIEF + 0.2)
        assert foot < body - 1.0  # the key's foot is chamfered in
        assert mouth > inside + 1.0  # the pocket's mouth flares out


@pytest.mark.slow
def test_end_turn_button_has_its_hole_panel_and_room_and_is_in_the_parts_list(default_kit):
    from shutbox.cad.checks.holding import check_button
    from shutbox.cad.geometry.layout import button_name

    kit, lay, _, specs, solids, _ = default_kit
    found = list(check_button(solids, lay))
    assert len(found) == 1 and found[0].ok, found[0].line()
    items = [item for spec in specs for item in spec.fitted(kit, lay)]
    assert [item.quantity for item in items if item.name == button_name(False)] == [1]


@pytest.mark.slow
def test_every_box_piece_is_held_in_all_six_directions_with_its_gates(default_kit):
    """Each box piece moved 1 mm each way runs into another piece, a gate screwed across the cut, or the table."""
    from shutbox.cad.checks.holding import check_joints

    _, lay, _, _, solids, _ = default_kit
    findings = list(check_joints(solids, lay))
    assert len(findings) == 2 and all(f.ok for f in findings), [f.line() for f in findings]


@pytest.mark.slow
def test_box_pieces_lock_each_other_against_lifting_without_the_gates(default_kit):
    """The two deck keys across a cut point opposite ways, each under the other piece's sloped pocket roof: the
    pieces hold each other in all six directions even before the gates are screwed on."""
    from shutbox.cad.checks.holding import check_joints

    _, lay, _, _, solids, _ = default_kit
    assert all(f.ok for f in check_joints(solids, lay, ("box",)))
