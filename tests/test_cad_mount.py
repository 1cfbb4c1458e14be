"""The camera mount (issue 47 item 6): its size, the box it fits, the tray in the stated camera's view from its
height, a clean print (the mesh check and PrusaSlicer), and ValueError for combinations that cannot work."""

from __future__ import annotations

import math

import pytest

from shutbox.cad.geometry.layout import CAMERA_HFOV, CAMERA_IMAGE, CAMERA_ROOM, camera_vfov, framing_height, layout
from shutbox.cad.geometry.mount import (
    CLIP_BASE,
    CLIP_DEPTH,
    SHELF_LENGTH,
    frames_tray,
    plan_mount,
    tray_corners,
)
from shutbox.kit.model import Kit, build_kit
from tests.conftest import CAD_WORKER, skip_module_without

KITS = {"default": {}, "long box, 12 tiles": {"rules.tiles": 12, "box.length_mm": 330.0, "printer.bed": "xl"},
        "deep box": {"box.width_mm": 220.0, "box.height_mm": 70.0, "box.wall_mm": 3.0}}


@pytest.mark.parametrize("name", KITS)
def test_the_lens_is_where_the_layout_says_and_the_stated_camera_frames_the_tray(name):
    lay = layout(build_kit(KITS[name]))
    plan = plan_mount(lay)
    x0, x1, y0, y1 = lay.tray
    assert plan.lens == pytest.approx(((x0 + x1) / 2, (y0 + y1) / 2, lay.tray_floor + lay.camera_height))
    assert plan.height == lay.camera_height == math.ceil(framing_height((x1 - x0, y1 - y0), CAMERA_HFOV,
                                                                        CAMERA_IMAGE, CAMERA_ROOM))
    assert frames_tray(plan, CAMERA_HFOV, CAMERA_IMAGE)
    # With 5 % room, a camera 5 % narrower still sees the tray; one that sees much less does not.
    assert frames_tray(plan, math.degrees(2 * math.atan(math.tan(math.radians(CAMERA_HFOV / 2)) / CAMERA_ROOM)))
    assert not frames_tray(plan, CAMERA_HFOV - 10)
    # The same camera lower down (half the height) does not see the corners: the check can fail.
    assert not frames_tray(plan_mount(lay, height=lay.camera_height / 2 + 40), CAMERA_HFOV)


def test_the_height_and_the_die_size_in_pixels_for_the_reader():
    lay = layout(Kit())
    assert lay.camera_height == 208.0  # the default box: 277 x 111 mm of tray, a 70-degree 720p camera
    focal = CAMERA_IMAGE[0] / 2 / math.tan(math.radians(CAMERA_HFOV / 2))
    assert lay.camera_die_px == pytest.approx(19.0 * focal / (208.0 - 19.0))
    assert 85 < lay.camera_die_px < 100
    # A die's top face seen from the lens: the die's pixels shrink as the lens goes up, as they must.
    taller = layout(build_kit({"box.length_mm": 330.0, "rules.tiles": 12}))
    assert taller.camera_height > lay.camera_height and taller.camera_die_px < lay.camera_die_px


def test_the_planned_size_is_the_shelf_and_the_post_as_printed():
    lay = layout(Kit())
    plan = plan_mount(lay)
    x0, x1, y0, y1, z0, z1 = plan.shelf
    assert (x1 - x0, z1 - z0) == (SHELF_LENGTH, 4.0)
    assert y0 < 0 < lay.wall < y1  # from outside the front wall to over the tray
    assert plan.bottom == lay.height - CLIP_DEPTH
    assert plan.size == pytest.approx((SHELF_LENGTH, y1 - y0, z1 - (lay.height - CLIP_DEPTH)))
    assert plan.leg_y[0] - plan.post_y[1] == pytest.approx(lay.wall + 0.6)  # the wall and 0.3 mm each side
    # The mount fits the kit's own bed (the part list refuses a bed that does not hold a part).
    assert all(a <= b for a, b in zip(sorted(plan.size[:2]), sorted(Kit().printer.bed_mm[:2]), strict=True))
    assert plan.size[2] <= Kit().printer.bed_mm[2]


@pytest.mark.parametrize(("change", "said"), [
    ({"window": (0.0, 30.0)}, "both sides must be above 0"),
    ({"window": (110.0, 30.0)}, "in a shelf 120 mm long"),
    ({"post_width": 0.0}, "above 0 and no wider than the shelf"),
    ({"post_width": 130.0}, "no wider than the shelf"),
    ({"height": 60.0}, "too low for the post"),
    ({"window": (4.0, 4.0)}, "cuts off the corners of the tray"),
    ({"window": (30.0, 70.0)}, "reaches over the post's brace"),
])
def test_combinations_that_cannot_work_are_a_value_error(change, said):
    with pytest.raises(ValueError, match=said):
        plan_mount(layout(Kit()), **change)


@pytest.mark.parametrize(("args", "said"), [
    ((0.5, CAMERA_IMAGE), "allowed: 1 to 170"), ((175.0, CAMERA_IMAGE), "allowed: 1 to 170"),
    ((70.0, (720, 1280)), "long side first"), ((70.0, (0, 0)), "long side first"),
])
def test_a_camera_that_cannot_be_is_a_value_error(args, said):
    with pytest.raises(ValueError, match=said):
        camera_vfov(*args)
    with pytest.raises(ValueError, match="room 0.9"):
        framing_height((200.0, 100.0), 70.0, CAMERA_IMAGE, 0.9)
    with pytest.raises(ValueError, match="both sides must be above 0"):
        framing_height((0.0, 100.0), 70.0, CAMERA_IMAGE, 1.0)


# -- the part itself (CadQuery) ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built():
    skip_module_without("cadquery")
    from shutbox.cad.geometry.mount import build_mount, place_mount

    lay = layout(Kit())
    plan = plan_mount(lay)
    printed = build_mount(plan)
    return lay, plan, printed, place_mount(plan, printed)


@CAD_WORKER
def test_the_part_as_printed_is_its_planned_size_on_the_bed(built):
    lay, plan, printed, _ = built
    assert printed.isValid() and len(printed.Solids()) == 1
    bb = printed.BoundingBox()
    assert (bb.xmin, bb.ymin, bb.zmin) == pytest.approx((0, 0, 0), abs=1e-6)
    assert (bb.xlen, bb.ylen, bb.zlen) == pytest.approx(plan.size, abs=1e-6)
    # The shelf's top face (the lens's plane) is on the bed: its area, less the window, at z = 0.
    bottom = sum(f.Area() for f in printed.Faces() if f.Center().z < 1e-6 and abs(f.normalAt().z + 1) < 1e-6)
    x0, x1, y0, y1, _, _ = plan.shelf
    assert bottom == pytest.approx((x1 - x0) * (y1 - y0) - plan.window[0] * plan.window[1], rel=1e-6)


@CAD_WORKER
def test_it_sits_on_the_front_wall_at_the_box_height(built):
    lay, plan, _, fitted = built
    bb = fitted.BoundingBox()
    x0, x1, _, _, _, z1 = plan.shelf
    assert (bb.xmin, bb.xmax, bb.zmax) == pytest.approx((x0, x1, z1))
    assert bb.zmin == pytest.approx(lay.height - CLIP_DEPTH)
    import cadquery as cq

    # The clip's base rests on the wall's top: a slab of the wall's size, just under it, touches the base and
    # a slab 0.1 mm higher cuts into it.
    wall = cq.Solid.makeBox(lay.length, lay.wall, lay.height, cq.Vector(0, 0, 0))
    assert fitted.intersect(wall).Volume() == pytest.approx(0, abs=1e-6)
    assert fitted.distance(wall) == pytest.approx(0, abs=1e-6)
    higher = wall.translate(cq.Vector(0, 0, 0.1))
    assert fitted.intersect(higher).Volume() > 1
    base = [f for f in fitted.Faces() if abs(f.Center().z - lay.height) < 1e-6 and abs(f.normalAt().z + 1) < 1e-6]
    assert base, "no face of the clip rests on the wall's top"
    assert CLIP_BASE > 0


@CAD_WORKER
def test_nothing_of_the_mount_is_in_the_way_of_the_camera(built):
    """A ray from the lens to each corner of the tray, and to points along its edges, misses the mount."""
    import cadquery as cq

    lay, plan, _, fitted = built
    x, y, z = plan.lens
    lens = cq.Vector(x, y, z - 1e-3)
    x0, x1, y0, y1 = plan.tray
    points = [*(cq.Vector(*c) for c in tray_corners(plan))]
    points += [cq.Vector(x0 + (x1 - x0) * k / 8, yy, plan.floor) for k in range(9) for yy in (y0, y1)]
    for target in points:
        assert fitted.distance(cq.Edge.makeLine(lens, target)) > 0.5, target
    # The check can fail: a ray to the post's own foot is blocked.
    assert fitted.distance(cq.Edge.makeLine(lens, cq.Vector(x, plan.post_y[0] + 1, lay.height))) < 1e-6


@pytest.mark.slow
def test_it_fits_the_box_it_clips_on(tmp_path):
    """Against the default kit's box as built: no plastic in common, and the clip touching the wall."""
    skip_module_without("cadquery")
    from shutbox.cad.build.export import plan as plan_kit
    from shutbox.cad.geometry.mount import build_mount, place_mount
    from shutbox.cad.geometry.parts import Builder

    kit = Kit()
    lay, split, _ = plan_kit(kit)
    box = Builder(kit, lay, split).whole_box()
    mount = plan_mount(lay)
    fitted = place_mount(mount, build_mount(mount))
    assert fitted.intersect(box).Volume() == pytest.approx(0, abs=1e-3)
    assert fitted.distance(box) < 0.31  # resting on the wall, 0.3 mm of play at its faces


@pytest.mark.slow
def test_it_prints_without_support_as_the_slicer_sees_it(tmp_path):
    """The mesh check and PrusaSlicer (support on), as tests/test_cad_sliced.py checks the other parts."""
    import shutil

    skip_module_without("cadquery")
    if shutil.which("prusa-slicer") is None:
        pytest.skip("PrusaSlicer is not installed")
    from shutbox.cad.checks.check import check_mesh
    from shutbox.cad.geometry.mesh import tessellate
    from shutbox.cad.geometry.mount import build_mount
    from shutbox.cad.slicer.sliced import sliced_findings

    kit = Kit()
    mesh = tessellate(build_mount(plan_mount(layout(kit))), 0.05, 0.3)
    path = tmp_path / "camera-mount.stl"
    mesh.export(str(path))
    findings = list(check_mesh(path, kit.printer.bed_mm))
    assert findings and all(f.ok for f in findings), [f for f in findings if not f.ok]
    sliced = {f.check: f for f in sliced_findings(path, tmp_path, kit.printer.bed_mm)}
    assert sliced["support"].ok, sliced["support"].detail
    assert sliced["bridge"].ok, sliced["bridge"].detail


def test_the_guide_lists_the_mount_and_the_camera_at_the_layouts_height():
    from shutbox.cad.build.export import plan as plan_kit
    from shutbox.cad.guide.buildnotes import build_notes

    kit = Kit()
    lay, split, specs = plan_kit(kit)
    notes = build_notes(kit, lay, split, specs)
    size = plan_mount(lay).size
    assert f"| printed: camera-mount | 1 | {size[0]:.1f} x {size[1]:.1f} x {size[2]:.1f} |" in notes
    assert f"shelf, {lay.camera_height:g} mm over the dice |" in notes
    section = notes.split("## Camera mount (optional)", 1)[1].split("\n## ", 1)[0]
    assert f"The lens is then {lay.camera_height:g} mm above the felt" in section
    assert f"about {lay.camera_die_px:.0f} px across" in section and "(preview/camera-over-tray.png)" in section
