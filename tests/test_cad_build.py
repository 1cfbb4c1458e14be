"""CAD build of the default kit (built once per session): files, manifest, solids, meshes, checks, slicing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shutbox.cad.geometry.layout import JOINT_DEPTH, layout
from shutbox.kit.model import build_kit
from tests.conftest import require_tool, skip_module_without

skip_module_without("cadquery")  # the fast test here needs none of it


def _placed(child):
    """An assembly child's solid where the assembly puts it."""
    import cadquery as cq

    obj = child.obj
    assert isinstance(obj, cq.Shape), child.name
    moved = obj.moved(child.loc)
    assert isinstance(moved, (cq.Solid, cq.Compound)), child.name
    return moved


def _match(pattern: str, text: str, flags: int = 0) -> str:
    found = re.search(pattern, text, flags)
    assert found is not None, pattern
    return found.group(1)


@pytest.fixture(scope="session")
def cad_cache(tmp_path_factory):
    old = os.environ.get("SHUTBOX_CACHE_DIR")
    path = tmp_path_factory.mktemp("cad-cache")
    os.environ["SHUTBOX_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("SHUTBOX_CACHE_DIR", None)
    else:
        os.environ["SHUTBOX_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def built(cad_cache, tmp_path_factory):
    """The default kit (9 tiles, mk4 bed, reed sensors), all three formats, built through the CLI."""
    out = tmp_path_factory.mktemp("cad") / "out"
    env = {**os.environ, "SHUTBOX_CACHE_DIR": str(cad_cache)}
    proc = subprocess.run([sys.executable, "-m", "shutbox", "cad", "--out", str(out)], capture_output=True,
                          text=True, env=env, cwd=out.parent, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


@pytest.fixture(scope="session")
def manifest(built):
    return json.loads((built[0] / "manifest.json").read_text())


@pytest.fixture(scope="session")
def findings(built):
    from shutbox.cad.checks.check import check_folder

    return check_folder(built[0])


@pytest.mark.slow
def test_build_reports_progress_and_its_own_check(built):
    _, proc = built
    assert re.search(r"\[1/\d+\].*box-tiles-1-4", proc.stderr)
    assert "0 failed" in proc.stdout


@pytest.mark.slow
def test_parts_and_quantities(manifest):
    parts = {p["name"]: p for p in manifest["parts"]}
    assert [n for n in parts if n.startswith("box")] == ["box-tiles-1-4", "box-tiles-5-9"]
    assert [n for n in parts if n.startswith("tile")] == [f"tile-{k:02d}" for k in range(1, 10)]
    assert parts["die-19mm"]["quantity"] == 2
    assert parts["electronics-cover"]["quantity"] == 1
    assert all(p["quantity"] == 1 for n, p in parts.items() if n != "die-19mm")
    assert manifest["settings"]["rules"]["tiles"] == 9
    assert manifest["bed_mm"] == [250.0, 210.0, 220.0]
    assert set(manifest["formats"]) == {"stl", "3mf", "step"}
    for p in manifest["parts"]:
        assert set(p["files"]) == {"stl", "3mf", "step"}
        assert p["files"]["stl"] == f"stl/{p['name']}.stl"


@pytest.mark.slow
def test_bounding_boxes(built, manifest):
    from shutbox.cad.geometry.mesh import load_mesh

    out, _ = built
    lay = layout(build_kit({}))
    parts = {p["name"]: p for p in manifest["parts"]}
    for p in manifest["parts"]:
        mesh = load_mesh(out / p["files"]["stl"])
        assert np.allclose(mesh.bounds[1] - mesh.bounds[0], p["bbox_mm"], atol=0.01)
    assert parts["die-19mm"]["bbox_mm"] == pytest.approx([19, 19, 19], abs=0.01)
    tile = parts["tile-05"]["bbox_mm"]
    assert tile == pytest.approx([lay.tile_foot, lay.tile_length, lay.tile_thickness], abs=0.01)
    left, right = parts["box-tiles-1-4"]["bbox_mm"], parts["box-tiles-5-9"]["bbox_mm"]
    cut = manifest["split"]["cuts_x_mm"][0]
    # each piece carries a deck key across the cut (they point opposite ways, so neither lifts off)
    assert left == pytest.approx([cut + JOINT_DEPTH, lay.width, lay.height], abs=0.01)
    assert right == pytest.approx([lay.length - cut + JOINT_DEPTH, lay.width, lay.height], abs=0.01)


@pytest.mark.slow
def test_every_check_passes(findings):
    failed = [f.line() for f in findings if not f.ok]
    assert not failed
    kinds = {f.check for f in findings}
    assert {"manifold", "bed", "overhang", "solid", "interference", "clearance", "tiles", "number"} <= kinds
    assert sum(f.check == "clearance" for f in findings) == 9
    assert sum(f.check == "number" for f in findings) == 18  # 9 tiles + 9 lanes


@pytest.mark.slow
def test_assembly_holds_separate_named_solids(built):
    import cadquery as cq

    assy = cq.Assembly.importStep(str(built[0] / "assembly.step"))
    names = [c.name for c in assy.children]
    assert names[:2] == ["box-tiles-1-4", "box-tiles-5-9"]
    assert [n for n in names if n.startswith("tile")] == [f"tile-{k:02d}" for k in range(1, 10)]
    assert {"die-19mm-1", "die-19mm-2", "electronics-cover"} <= set(names)
    assert all(len(_placed(c).Solids()) == 1 for c in assy.children)


@pytest.mark.slow
def test_meshes_open_in_prusaslicer_as_one_manifold_object(built, manifest):
    slicer = require_tool("prusa-slicer")
    out, _ = built
    for p in manifest["parts"]:
        for fmt in ("stl", "3mf"):
            info = subprocess.run([slicer, "--info", str(out / p["files"][fmt])], capture_output=True, text=True,
                                  timeout=120).stdout
            assert "manifold = yes" in info, (p["name"], fmt, info)
            assert re.search(r"number_of_parts =\s+1\b", info), (p["name"], fmt, info)
            size = [float(_match(rf"size_{axis} = ([\d.]+)", info)) for axis in "xyz"]
            assert size == pytest.approx(p["bbox_mm"], abs=0.01), (p["name"], fmt)  # millimetres, as exported


@pytest.mark.slow
def test_a_die_slices_in_prusaslicer(built, manifest, tmp_path):
    slicer = require_tool("prusa-slicer")
    out, _ = built
    gcode = tmp_path / "die.gcode"
    die = next(p for p in manifest["parts"] if p["kind"] == "die")
    proc = subprocess.run(
        [slicer, "--export-gcode", str(out / die["files"]["3mf"]), "--output", str(gcode),
         "--bed-shape", "0x0,250x0,250x210,0x210", "--max-print-height", "220", "--center", "125,105",
         "--nozzle-diameter", "0.4", "--filament-diameter", "1.75", "--layer-height", "0.15",
         "--first-layer-height", "0.2", "--perimeters", "4", "--fill-density", "20%", "--fill-pattern", "gyroid",
         "--temperature", "215", "--bed-temperature", "60"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = gcode.read_text()
    layers = text.count(";LAYER_CHANGE")
    assert layers == pytest.approx(1 + (19 - 0.2) / 0.15, abs=2)
    assert "; support_material = 0" in text
    assert re.search(r"^; estimated printing time \(normal mode\) = ", text, re.M)
    used = float(_match(r"^; filament used \[mm\] = ([\d.]+)", text, re.M))
    assert used > 100  # a real toolpath, not an empty object


@pytest.mark.slow
def test_previews_are_pictures(built, manifest):
    from PIL import Image

    out, _ = built
    from shutbox.cad.geometry.layout import layout
    from shutbox.cad.guide.figures import FIGURES
    from shutbox.kit.model import Kit

    views = {"preview/assembly.png", "preview/underside.png", "preview/exploded.png", "preview/tiles.png",
             "preview/wiring.png", "preview/reed-leads.png",
             *(f"preview/{name}" for name, (wanted, _) in FIGURES.items() if wanted(layout(Kit())))}
    assert views <= set(manifest["previews"])
    for rel in manifest["previews"]:
        with Image.open(out / rel) as image:
            assert image.format == "PNG"
            grey = np.asarray(image.convert("L"), dtype=float)
            assert grey.max() - grey.min() > 120, rel
            assert grey.std() > 12, rel  # a drawing, not a flat background
            background = np.mean(grey == grey[0, 0])
            drawing = rel.endswith(("wiring.png", "reed-leads.png", *FIGURES))  # drawings on paper
            assert 0.05 < background < (0.92 if drawing else 0.85), rel  # something fills the frame


@pytest.mark.slow
def test_tile_close_up_shows_legible_numbers(built):
    """The open tile's lane number and the shut tile's own number stand out from their surfaces: the strokes
    (traced edges) are dark against the light tile and lane."""
    from PIL import Image

    with Image.open(built[0] / "preview" / "tiles.png") as image:
        grey = np.asarray(image.convert("L"), dtype=float)
    h, w = grey.shape
    for x0, x1, y0, y1 in ((0.38, 0.55, 0.42, 0.62), (0.58, 0.72, 0.42, 0.58)):  # tile 1's top, lane 2's floor
        patch = grey[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]
        surface = np.percentile(patch, 60)
        strokes = np.percentile(patch, 3)
        assert surface - strokes > 40, (x0, y0, surface, strokes)


@pytest.mark.slow
def test_build_notes_quantities_follow_the_model(built):
    notes = (built[0] / "build.md").read_text()
    assert "| disc magnet, axially magnetised, N35 or stronger | 9 | 6 x 3 mm; one in each tile |" in notes
    assert "| reed switch, normally open, glass body | 9 | up to 14 mm long, 2.5 mm diameter" in notes
    assert "| Raspberry Pi Pico (RP2040) | 1 |" in notes
    assert "| printed: die-19mm | 2 |" in notes
    for view in ("assembly", "underside", "exploded", "tiles", "wiring", "reed-leads", "switch-map", "magnets", "felt",
                 "cover", "bootsel"):
        assert f"(preview/{view}.png)" in notes
        assert (built[0] / "preview" / f"{view}.png").is_file()


def test_docs_build_md_is_the_default_kits_notes():
    from shutbox.cad.build.export import plan
    from shutbox.cad.guide.buildnotes import build_notes

    kit = build_kit({})
    lay, split, specs = plan(kit)
    repo_doc = Path(__file__).resolve().parent.parent / "docs" / "build.md"
    expected = build_notes(kit, lay, split, specs, images="img/cad-", seated=True, boards="img/pcb-")
    assert repo_doc.read_text() == expected, "run `python -m shutbox.cad.build.repo_docs`"
    for name in re.findall(r"\]\((img/[^)]+)\)", expected):
        assert (repo_doc.parent / name).is_file(), name


@pytest.mark.slow
def test_check_catches_a_wrong_number_and_a_broken_mesh(built, manifest, tmp_path):
    import shutil

    from shutbox.cad.checks.check import check_mesh, check_numbers
    from shutbox.cad.geometry.mesh import load_mesh

    out, _ = built
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "stl" / "tile-06.stl").write_bytes((out / "stl" / "tile-09.stl").read_bytes())
    kit = build_kit({})
    bad = [f for f in check_numbers(copy, [], manifest, kit, layout(kit)) if not f.ok]
    assert [f.subject for f in bad if f.subject.startswith("tile")] == ["tile-06"]
    import trimesh

    mesh = load_mesh(out / "stl" / "tile-01.stl")
    holed = trimesh.Trimesh(mesh.vertices, mesh.faces[:-5], process=False)
    holed.export(str(tmp_path / "holed.stl"))
    results = {f.check: f.ok for f in check_mesh(tmp_path / "holed.stl", (250, 210, 220))}
    assert results["manifold"] is False
    results = {f.check: f.ok for f in check_mesh(out / "stl" / "box-tiles-5-9.stl", (150, 150, 220))}
    assert results["bed"] is False


@pytest.mark.slow
def test_cad_check_command(cli, built):
    proc = cli("cad", "check", str(built[0]))
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert proc.stdout.strip().splitlines()[-1].endswith(" 0 failed")
    proc = cli("cad", "check", str(built[0] / "nowhere"))
    assert proc.returncode == 2 and "no manifest.json" in proc.stderr


@pytest.mark.slow
def test_sensing_provision_is_open_from_each_switch_to_the_usb_socket(built, manifest):
    import cadquery as cq

    from shutbox.cad.geometry.layout import USB_WIDTH

    assy = cq.Assembly.importStep(str(built[0] / "assembly.step"))
    pieces = [_placed(c) for c in assy.children if c.name.startswith("box")]
    lay = layout(build_kit({}))

    def solid_at(x, y, z):
        return any(p.isInside(cq.Vector(x, y, z)) for p in pieces)  # pyright: ignore[reportAttributeAccessIssue]

    cx0, cx1, cy0, cy1 = lay.cavity
    for n in lay.kit.rules.tile_numbers:
        x = lay.lane_x(n)
        assert not solid_at(x, lay.switch_y, lay.shaft_top - 1.0), f"shaft {n}"
        assert not solid_at(x, lay.switch_y, 2.0), f"channel under switch {n}"
        assert solid_at(x, lay.switch_y, lay.lane_floor - 0.5), f"lane floor over switch {n}"
    for x in np.linspace(lay.lane_x(1), cx0 + 5.0, 40):
        assert not solid_at(x, lay.switch_y, 2.0), f"wire channel at x={x:.1f}"
    for y in np.linspace(lay.switch_y, cy0 + 2.0, 10):
        assert not solid_at(cx0 + 5.0, y, 2.0), f"branch at y={y:.1f}"
    usb_y = lay.cover_origin[1] + lay.board_origin[1] + lay.kit.sensors.board_width_mm / 2
    assert not solid_at((cx0 + cx1) / 2, (cy0 + cy1) / 2, 8.0)
    for x in np.linspace(cx1 - 0.5, lay.length - 0.1, 10):
        assert not solid_at(x, usb_y, 8.0), f"USB opening at x={x:.1f}"
    assert solid_at(lay.length - 1.0, usb_y + USB_WIDTH / 2 + 1.0, 8.0)


@pytest.mark.slow
def test_checks_shared_with_a_side_process_find_the_same_in_the_same_order(built, monkeypatch):
    from shutbox.base.sideprocess import side_process
    from shutbox.cad.checks.check import check_folder

    monkeypatch.setenv("SHUTBOX_CACHE_DIR", "off")  # work every check out, in both runs
    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    alone = check_folder(built[0])
    with side_process() as side:
        assert side is not None
        shared = check_folder(built[0], side)
    assert [f.__dict__ for f in shared] == [f.__dict__ for f in alone]
    assert len(alone) > 150 and all(f.ok for f in alone)


@pytest.mark.slow
def test_side_checks_begun_during_the_build_count_only_for_the_manifest_written(built, monkeypatch):
    """The side process's share, begun as soon as assembly.step is written, finds what a check of the finished
    folder finds; begun from a manifest other than the one written, it is not used (the share runs again)."""
    from shutbox.base.sideprocess import side_process
    from shutbox.cad.checks.check import check_folder, start_side_checks

    monkeypatch.setenv("SHUTBOX_CACHE_DIR", "off")
    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    out = built[0]
    alone = [f.__dict__ for f in check_folder(out)]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    settings = manifest["settings"]
    looser = {**manifest, "settings": {**settings, "tile_fit": {**settings["tile_fit"], "clearance_mm": 0.2}}}
    with side_process() as side:
        assert side is not None
        early = check_folder(out, side, start_side_checks(side, out, {**manifest, "previews": []}))
        stale = start_side_checks(side, out, looser)
        assert any("+-0.2 mm" in f.detail for found in stale.future.result() for f in found)
        again = check_folder(out, side, stale)
    assert [f.__dict__ for f in early] == alone
    assert [f.__dict__ for f in again] == alone


@pytest.mark.slow
def test_a_damaged_step_file_is_a_failed_check_and_a_damaged_assembly_one_line(built, manifest, tmp_path):
    from shutbox.base.errors import ShutboxError
    from shutbox.cad.checks.check import _check_step, read_assembly

    out, _ = built
    broken = tmp_path / "tile-01.step"
    broken.write_bytes((out / "step" / "tile-01.step").read_bytes()[:3000])
    finding = _check_step(broken)
    assert not finding.ok and "cannot read" in finding.detail
    (tmp_path / "assembly.step").write_bytes((out / "assembly.step").read_bytes()[:5000])
    with pytest.raises(ShutboxError, match="assembly.step: cannot read the assembly"):
        read_assembly(tmp_path, manifest)


@pytest.mark.slow
def test_the_two_colour_die_is_a_listed_3mf_of_two_objects_checked_each_on_its_own(built, manifest, findings,
                                                                                     tmp_path):
    import trimesh

    from shutbox.cad.checks.check import check_mesh, check_two_colour

    out, _ = built
    entry = manifest["two_colour"]
    assert entry == {"file": "3mf/die-two-colour.3mf", "objects": ["die", "pips"]}
    from shutbox.cli.commands.cad import cad_files

    held = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert entry["file"] in held and held <= (cad_files(manifest) or set())  # every file written is listed
    mine = [f for f in findings if f.subject.startswith("die-two-colour.3mf")]
    assert {f.check for f in mine} == {"objects", "manifold", "bed", "overlap"} and all(f.ok for f in mine)
    assert {f.subject for f in mine if f.check == "manifold"} == {"die-two-colour.3mf:die", "die-two-colour.3mf:pips"}
    scene = trimesh.load(str(out / entry["file"]), force="scene")
    assert isinstance(scene, trimesh.Scene)
    body = scene.geometry["die"]
    bad = trimesh.Scene()
    bad.add_geometry(body, node_name="die", geom_name="die")  # a second "colour" inside the body: refused
    bad.add_geometry(trimesh.creation.box((6, 6, 6)).apply_translation(body.centroid), node_name="pips",
                     geom_name="pips")
    bad.export(str(tmp_path / "bad.3mf"), file_type="3mf")
    results = {f.check: f.ok for f in check_two_colour(tmp_path / "bad.3mf", ["die", "pips"], (250, 210, 220))}
    assert results == {"objects": True, "manifold": True, "bed": True, "overlap": False}
    assert not check_mesh(out / entry["file"], (250, 210, 220)).__next__().ok  # one-body rule: still refused


@pytest.mark.slow
def test_a_rebuild_into_its_own_folder_replaces_every_file_it_wrote(built, cad_cache, tmp_path):
    """The manifest names every file the build wrote (project plates too), so a rebuild may replace the folder;
    a file of the user's in it is still refused."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(built[0], out)
    env = {**os.environ, "SHUTBOX_CACHE_DIR": str(cad_cache)}
    again = [sys.executable, "-m", "shutbox", "cad", "--out", str(out), "--quiet"]
    proc = subprocess.run(again, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in (out / "project").iterdir()) == sorted(
        Path(plate["file"]).name for plate in json.loads((out / "manifest.json").read_text())["plates"])
    (out / "project" / "my-notes.txt").write_text("mine")
    proc = subprocess.run(again, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 2 and "holds project/my-notes.txt, which `shutbox cad` did not write" in proc.stderr
    assert (out / "project" / "my-notes.txt").read_text() == "mine"
