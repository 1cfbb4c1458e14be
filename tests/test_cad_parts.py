"""Single parts built directly: dice (pips, arrangement), tiles, a plain box without sensors, the cache."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from shutbox.cad.geometry.layout import layout
from shutbox.kit.model import build_kit
from tests.conftest import CAD_WORKER, first_fast, skip_module_without

skip_module_without("cadquery")
pytestmark = CAD_WORKER


def _pips_on_face(mesh, normal, size):
    """Count the pits on one face: a section just under the face, pits are the empty blobs."""
    from scipy import ndimage

    from shutbox.cad.checks.numbers import raster_section

    n = np.array(normal, dtype=float)
    # Turn the face to +z so a horizontal section cuts it.
    import trimesh

    rot = trimesh.geometry.align_vectors(n, [0, 0, 1])
    m = mesh.copy()
    m.apply_transform(rot)
    half = size / 2 - 2.2
    empty = raster_section(m, size / 2 - 0.3, (-half, half, -half, half))
    labels, count = ndimage.label(empty)  # pyright: ignore[reportGeneralTypeIssues]
    centres = ndimage.center_of_mass(empty, labels, range(1, count + 1))
    return count, centres, rot


@pytest.mark.parametrize("size", first_fast([19.0, 16.0], keep=1))  # `make check` builds one die, `make test` both
def test_die_pips_opposites_and_western_arrangement(size):
    from shutbox.cad.geometry.dice import FACES, build_die, face_axes
    from shutbox.cad.geometry.mesh import tessellate

    die = build_die(size)
    assert die.isValid()
    bb = die.BoundingBox()
    assert (bb.xlen, bb.ylen, bb.zlen) == pytest.approx((size, size, size), abs=1e-6)
    mesh = tessellate(die, 0.02, 10)
    assert mesh.is_watertight
    counts = {value: _pips_on_face(mesh, normal, size)[0] for value, normal in FACES.items()}
    assert counts == {v: v for v in range(1, 7)}
    for value, normal in FACES.items():
        opposite = next(v for v, n in FACES.items() if n == tuple(-c for c in normal))
        assert value + opposite == 7
    n1, n2, n3 = (np.array(FACES[v], dtype=float) for v in (1, 2, 3))
    corner = n1 + n2 + n3  # the corner the three faces share, seen from outside
    assert np.dot(np.cross(n2 - n1, n3 - n1), corner) > 0  # 1 -> 2 -> 3 counter-clockwise
    for normal in FACES.values():
        u, v = face_axes(normal)
        assert abs(u.dot(v)) < 1e-9


def test_tiles_carry_a_magnet_pocket_only_with_sensors():
    from shutbox.cad.geometry.tiles import build_tile

    with_sensors = layout(build_kit({"rules.tiles": 12}))
    plain = layout(build_kit({"rules.tiles": 12, "sensors.kind": "none"}))
    a, b = build_tile(with_sensors, 12), build_tile(plain, 12)
    assert a.isValid() and b.isValid()
    d, depth = with_sensors.magnet_pocket
    pocket = np.pi * (d / 2) ** 2 * depth
    assert b.Volume() - a.Volume() >= pocket * (1 - 1e-9)  # the pocket at least (exactly, since its roof is flat)
    bb = a.BoundingBox()
    assert (bb.xlen, bb.ylen, bb.zlen) == pytest.approx(
        (with_sensors.tile_foot, with_sensors.tile_length, with_sensors.tile_thickness), abs=1e-6)


@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.slow
def test_plain_box_with_twelve_tiles_in_one_piece(tmp_cache, tmp_path):
    from shutbox.cad.build.export import build_cad
    from shutbox.cad.checks.check import check_folder

    kit = build_kit({"rules.tiles": 12, "sensors.kind": "none", "printer.bed": "xl"})
    out = tmp_path / "plain"
    out.mkdir()
    manifest = build_cad(kit, out, ("stl",), progress=False)
    names = [p["name"] for p in manifest["parts"]]
    assert names == ["box", "gate-tiles-1-12"] + [f"tile-{k:02d}" for k in range(1, 13)] + ["die-19mm", "camera-mount"]
    assert manifest["parts"][0]["bbox_mm"] == pytest.approx([279.4, 183.7, 54.8], abs=0.01)
    failed = [f.line() for f in check_folder(out) if not f.ok]
    assert not failed
    assert not any("magnet" in line for line in (out / "build.md").read_text().splitlines() if "|" in line)


@pytest.mark.slow
def test_rebuild_after_a_dice_change_reuses_every_other_part(tmp_cache, tmp_path, capsys):
    from shutbox.cad.build.export import build_cad

    first = tmp_path / "a"
    first.mkdir()
    build_cad(build_kit({"printer.bed": "xl", "sensors.kind": "none"}), first, ("stl",))
    capsys.readouterr()
    second = tmp_path / "b"
    second.mkdir()
    manifest = build_cad(build_kit({"printer.bed": "xl", "sensors.kind": "none", "dice.size_mm": 16}), second,
                         ("stl",))
    lines = [line for line in capsys.readouterr().err.splitlines() if "] " in line]
    built = [line for line in lines if "built in" in line]
    assert len(built) == 1 and "die-16mm" in built[0]
    assert sum("(cached)" in line for line in lines) == len(manifest["parts"]) - 1
    entries = [p for p in (tmp_cache / "cad").iterdir() if (p / "entry.json").is_file()
               and json.loads((p / "entry.json").read_text())["name"] != "kit"]  # not the assembly + previews
    assert len(entries) == len(manifest["parts"]) + 1  # both dice sizes are kept
    assert json.loads((second / "manifest.json").read_text())["settings"]["dice"]["size_mm"] == 16
    assert os.environ["SHUTBOX_CACHE_DIR"] == str(tmp_cache)


def test_missing_font_is_an_error_not_a_silent_fallback(tmp_path, monkeypatch):
    from shutbox.base import typefaces
    from shutbox.base.errors import ShutboxError
    from shutbox.cad.geometry import shapes

    monkeypatch.setattr(typefaces.resources, "files", lambda package: tmp_path)
    shapes.font_path.cache_clear()
    try:
        with pytest.raises(ShutboxError, match="DejaVuSans-Bold.ttf is missing"):
            shapes.font_path()
    finally:
        monkeypatch.undo()
        shapes.font_path.cache_clear()
    assert shapes.font_path().name == "DejaVuSans-Bold.ttf"
    assert (shapes.font_path().parent / "LICENSE_DEJAVU").is_file()


def test_overhang_check_flags_a_part_that_needs_support(tmp_path):
    import trimesh

    from shutbox.cad.checks.check import check_mesh

    stem = trimesh.creation.box((5, 5, 10))
    stem.apply_translation((0, 0, 5))
    cap = trimesh.creation.box((20, 20, 2))
    cap.apply_translation((0, 0, 11))
    mushroom = trimesh.boolean.union([stem, cap], engine="manifold")
    mushroom.export(str(tmp_path / "mushroom.stl"))
    results = {f.check: f for f in check_mesh(tmp_path / "mushroom.stl", (250, 210, 220))}
    assert results["manifold"].ok and results["bed"].ok
    assert not results["overhang"].ok and "375.00 mm2" in results["overhang"].detail
    upright = trimesh.creation.box((20, 20, 2))
    upright.apply_translation((0, 0, 1))
    upright.export(str(tmp_path / "plate.stl"))
    assert all(f.ok for f in check_mesh(tmp_path / "plate.stl", (250, 210, 220)))


def test_overhang_check_accepts_a_bridge_up_to_the_span_and_no_longer(tmp_path):
    import trimesh

    from shutbox.cad.checks.check import check_mesh
    from shutbox.cad.geometry.layout import BRIDGE_SPAN

    def arch(gap: float) -> dict[str, bool]:
        posts = [trimesh.creation.box((3, 20, 10)) for _ in range(2)]
        posts[0].apply_translation((-gap / 2 - 1.5, 0, 5))
        posts[1].apply_translation((gap / 2 + 1.5, 0, 5))
        deck = trimesh.creation.box((gap + 6, 20, 2))
        deck.apply_translation((0, 0, 11))
        trimesh.boolean.union([*posts, deck], engine="manifold").export(str(tmp_path / "arch.stl"))
        return {f.check: f.ok for f in check_mesh(tmp_path / "arch.stl", (250, 210, 220))}

    assert arch(BRIDGE_SPAN - 2)["overhang"]
    assert not arch(BRIDGE_SPAN + 3)["overhang"]


@pytest.mark.slow
def test_detent_holds_the_tile_at_each_end_and_clicks_between():
    import cadquery as cq

    from shutbox.cad.geometry.box import build_box
    from shutbox.cad.geometry.tiles import build_tile, place_tile

    lay = layout(build_kit({"sensors.kind": "none"}))
    box = build_box(lay)
    tile = build_tile(lay, 5)
    c = lay.clearance
    for shut in (True, False):
        placed = place_tile(lay, tile, 5, shut=shut)
        assert box.intersect(placed).Volume() == pytest.approx(0.0, abs=1e-6)
        assert box.distance(placed) == pytest.approx(c, abs=1e-3)
    # Half way, the bump rides on the lane wall: the arm must flex by detent - clearance.
    half = place_tile(lay, tile, 5, shut=True).translate(cq.Vector(0, lay.travel / 2, 0))
    overlap = box.intersect(half)
    assert overlap.Volume() > 0.1
    bb = overlap.BoundingBox()
    assert bb.xlen == pytest.approx(lay.kit.tile_fit.detent_mm - c, abs=0.02)
    assert bb.xmin == pytest.approx(lay.lane_x(5) + lay.tile_width / 2 + c, abs=0.02)


def test_welding_closes_a_t_junction():
    import trimesh

    from shutbox.cad.geometry.mesh import close_t_junctions

    box = trimesh.creation.box((2, 2, 2))
    faces = box.faces.tolist()
    a, b, c = faces[0]
    mid = len(box.vertices)
    verts = np.vstack([box.vertices, (box.vertices[a] + box.vertices[b]) / 2])
    faces[0:1] = [[a, mid, c], [mid, b, c]]  # one side of edge a-b gets an extra vertex, the other does not
    broken = trimesh.Trimesh(verts, faces, process=False)
    assert not broken.is_watertight
    fixed = close_t_junctions(broken)
    assert fixed.is_watertight and fixed.is_winding_consistent
    assert fixed.volume == pytest.approx(8.0)


@pytest.mark.slow
def test_cached_parts_are_placed_for_the_current_box(tmp_cache, tmp_path):
    import cadquery as cq

    from shutbox.cad.build.export import build_cad

    for name, width in (("a", 183.7), ("b", 200.0)):
        out = tmp_path / name
        out.mkdir()
        kit = build_kit({"printer.bed": "xl", "sensors.kind": "none", "box.width_mm": width})
        build_cad(kit, out, ("stl",), progress=False)
    lay = layout(kit)
    assy = cq.Assembly.importStep(str(out / "assembly.step"))
    dice = [c.obj.moved(c.loc).BoundingBox() for c in assy.children
            if c.name.startswith("die") and isinstance(c.obj, cq.Shape)]
    for bb, (x, y) in zip(dice, lay.die_places(), strict=True):
        assert ((bb.xmin + bb.xmax) / 2, (bb.ymin + bb.ymax) / 2, bb.zmin) == pytest.approx((x, y, lay.tray_floor))


def test_finger_scoop_is_cut_to_its_depth():
    from shutbox.cad.checks.check import top_height
    from shutbox.cad.geometry.layout import MAGNET_AT, SCOOP_DEPTH
    from shutbox.cad.geometry.mesh import tessellate
    from shutbox.cad.geometry.tiles import build_tile

    lay = layout(build_kit({}))
    mesh = tessellate(build_tile(lay, 5), 0.02, 10)
    centre = top_height(mesh, 0.0, MAGNET_AT)
    edge = top_height(mesh, -lay.tile_width / 2 + 0.5, MAGNET_AT)
    assert edge == pytest.approx(lay.tile_thickness, abs=1e-6)
    assert edge - centre == pytest.approx(SCOOP_DEPTH, abs=0.02)


@pytest.mark.parametrize("size", [19.0, 12.5])
def test_die_pips_balance_face_against_face(size):
    """Each opposite pair of faces removes the same volume, so the solid's centre of mass is the cube's centre;
    with equal pips (the old design) the 6 face is lighter and the centre moves towards it."""
    import cadquery as cq

    from shutbox.cad.geometry.dice import PIPS, build_die, pip_radius

    for value in range(1, 7):
        removed = len(PIPS[value]) * pip_radius(size, value) ** 3
        opposite = len(PIPS[7 - value]) * pip_radius(size, 7 - value) ** 3
        assert removed == pytest.approx(opposite)
    centre = cq.Shape.centerOfMass(build_die(size))
    assert np.linalg.norm([centre.x, centre.y, centre.z]) < 0.0005 * size


@pytest.mark.slow
def test_sliced_die_is_fair_with_the_guides_settings(tmp_path):
    """Slice the die as the guide says (its PrintSettings, bed face) and weigh the G-code's extrusions."""
    from shutbox.cad.geometry.mesh import tessellate
    from tests.conftest import require_tool

    require_tool("prusa-slicer")
    from shutbox.cad.build.export import plan
    from shutbox.cad.geometry.mesh import write_mesh
    from shutbox.cad.geometry.parts import Builder, DieSpec
    from shutbox.cad.slicer.slicing import DEFAULT_ARGS, extrusion_centre, slice_part

    kit = build_kit({})
    lay, split, specs = plan(kit)
    die = next(s for s in specs if isinstance(s, DieSpec))
    printed = Builder(kit, lay, split).build(die)
    stl = tmp_path / "die.stl"
    write_mesh(tessellate(printed, kit.cad.chord_tolerance_mm, kit.cad.angular_tolerance_deg), stl)
    bed = (250.0, 210.0, 220.0)
    size = kit.dice.size_mm
    cube_centre = np.array([bed[0] / 2, bed[1] / 2, size / 2])  # slice_part centres the part on the bed
    sliced = slice_part(stl, tmp_path / "die.gcode", die.print_settings.slicer_args(), bed)
    assert sliced.support_lines == 0
    centre, filament = extrusion_centre(sliced.gcode)
    assert filament > 1000
    assert np.linalg.norm(centre - cube_centre) <= 0.05
    # The measurement sees what the issue saw: at sparse default infill the die's mass is off centre in z.
    sparse = slice_part(stl, tmp_path / "sparse.gcode", DEFAULT_ARGS, bed)
    uneven, _ = extrusion_centre(sparse.gcode)
    assert abs(uneven[2] - cube_centre[2]) > 0.15


def test_guide_counts_come_from_the_kit():
    from shutbox.cad.build.export import plan
    from shutbox.cad.guide.buildnotes import build_notes

    kit = build_kit({"rules.tiles": 12, "firmware.tile_input": "74hc165", "sensors.magnet_diameter_mm": 5})
    lay, split, specs = plan(kit)
    notes = build_notes(kit, lay, split, specs)
    assert "| disc magnet, axially magnetised, N35 or stronger | 12 | 5 x 3 mm; one in each tile |" in notes
    assert "| reed switch, normally open, glass body | 12 |" in notes
    assert "| 74HC165 shift register, DIP-16 | 2 |" in notes
    assert "| resistor 10 kΩ, 1/4 W | 12 |" in notes
    assert "BOOTSEL" in notes and "shutbox firmware deploy" in notes and "shutbox monitor --test" in notes
    assert "the jaws, 2 mm from the seal" in notes
    plain = build_kit({"sensors.kind": "none", "printer.bed": "xl"})
    notes = build_notes(plain, *plan(plain))
    assert "magnet" not in notes and "74HC165" not in notes and "MicroPython" not in notes


def test_scoop_and_balance_checks_catch_a_flat_tile_and_an_unbalanced_die(tmp_path, monkeypatch):
    """The checks discriminate: a tile with a flat top (the scoop that never reached it) and a die with
    equal pips on every face (the 6 face lighter than the 1) fail."""
    import trimesh

    import shutbox.cad.geometry.dice as dice
    from shutbox.cad.checks.check import check_balance, check_scoop
    from shutbox.cad.geometry.layout import PIP_RATIO
    from shutbox.cad.geometry.mesh import tessellate, write_mesh
    from shutbox.cad.geometry.tiles import build_tile

    kit = build_kit({})
    lay = layout(kit)
    flat = trimesh.creation.box((lay.tile_foot, lay.tile_length, lay.tile_thickness))
    flat.apply_translation(-flat.bounds[0])
    flat.export(str(tmp_path / "flat.stl"))
    (finding,) = check_scoop(tmp_path / "flat.stl", kit, lay)
    assert not finding.ok and "0.00 mm deep" in finding.detail
    write_mesh(tessellate(build_tile(lay, 3), 0.05, 15), tmp_path / "tile.stl")
    assert check_scoop(tmp_path / "tile.stl", kit, lay)[0].ok
    monkeypatch.setattr(dice, "pip_radius", lambda size, value: size * PIP_RATIO)
    write_mesh(tessellate(dice.build_die(19.0), 0.05, 15), tmp_path / "equal.stl")
    (finding,) = check_balance(tmp_path / "equal.stl", kit, lay)
    assert not finding.ok and finding.detail.startswith("centre of mass 0.04")
    monkeypatch.undo()
    write_mesh(tessellate(dice.build_die(19.0), 0.05, 15), tmp_path / "balanced.stl")
    assert check_balance(tmp_path / "balanced.stl", kit, lay)[0].ok
