"""The PrusaSlicer project 3MFs, one per bed plate: placed inside the bed, clear of each other, every copy of every
part on a plate, each part's own settings stored; and (slow) PrusaSlicer slices each file as it is with them."""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from shutbox.cad.build.export import build_cad, plan
from shutbox.cad.build.plates import Plate
from shutbox.cad.slicer.project3mf import MODEL_CONFIG_FILE, check_projects, kit_plates, read_project
from shutbox.cad.slicer.sliced import extrusions
from shutbox.kit.model import BED_PRESETS, build_kit
from tests.conftest import require_tool, skip_module_without

skip_module_without("cadquery")


@pytest.fixture(scope="module")
def kit_folder(tmp_path_factory):
    """The default kit built with STL only (the projects are made from the STLs)."""
    folder = tmp_path_factory.mktemp("project3mf") / "kit"
    folder.mkdir()
    kit = build_kit({})
    manifest = build_cad(kit, folder, ("stl",), progress=False)
    return folder, manifest, plan(kit)[2]


def overlaps(a, b) -> bool:
    return a.x < b.x + b.size[0] and b.x < a.x + a.size[0] and a.y < b.y + b.size[1] and b.y < a.y + a.size[1]


@pytest.mark.parametrize("bed", sorted(BED_PRESETS))
def test_plates_hold_every_copy_inside_the_bed_and_apart(bed):
    kit = build_kit({"printer.bed": bed})
    specs = plan(kit)[2]
    w, h, _ = kit.printer.bed_mm
    plates = kit_plates(specs, kit.printer.bed_mm)
    placed = [(plate, p) for plate in plates for p in plate.placed]
    for spec in specs:
        assert sum(p.name == spec.name for _, p in placed) == spec.quantity, spec.name
        assert all(plate.nozzle_mm == spec.print_settings.nozzle_mm for plate, p in placed if p.name == spec.name)
    for plate in plates:
        for i, a in enumerate(plate.placed):
            assert 0 <= a.x and a.x + a.size[0] <= w + 1e-6 and 0 <= a.y and a.y + a.size[1] <= h + 1e-6, (bed, a)
            assert not any(overlaps(a, b) for b in plate.placed[i + 1:]), (bed, a)


@pytest.mark.slow  # builds the default kit's CAD (kit_folder)
def dice_plate(manifest: dict) -> str:
    """The plate the dice print on (the kit's one plate for the 0.4 mm nozzle)."""
    (plate,) = [p["file"] for p in manifest["plates"] if p["nozzle_mm"] == 0.4]
    return plate


def test_default_kit_plates_and_what_the_guide_names(kit_folder):
    folder, manifest, specs = kit_folder
    assert [(p["file"], p["nozzle_mm"]) for p in manifest["plates"]] == [
        ("project/plate-1.3mf", 0.6), ("project/plate-2.3mf", 0.6), ("project/plate-3.3mf", 0.6),
        ("project/plate-4.3mf", 0.4)]
    notes = (folder / "build.md").read_text()
    for plate in manifest["plates"]:
        assert f"| `{plate['file']}` | {plate['nozzle_mm']:g} mm |" in notes
    findings = check_projects(folder, manifest, specs)
    assert findings and all(f.ok for f in findings), [f.line() for f in findings if not f.ok]


@pytest.mark.slow  # builds the default kit's CAD (kit_folder)
def test_project_stores_placement_and_each_parts_own_settings(kit_folder):
    folder, manifest, specs = kit_folder
    small = read_project(folder / dice_plate(manifest))
    die = next(s for s in specs if s.kind == "die")
    assert small.own[die.name] == die.print_settings.object_config()
    assert small.own[die.name]["fill_density"] == "100%" and small.config["fill_density"] == "20%"
    assert small.config["support_material"] == "0" and small.config["nozzle_diameter"] == "0.4"
    assert sum(name == die.name for name, _ in small.instances) == 2
    box = read_project(folder / "project/plate-1.3mf")
    assert box.config["layer_height"] == "0.3" and box.config["nozzle_diameter"] == "0.6"
    # the same kit writes the same bytes
    again = folder.parent / "again"
    again.mkdir()
    shutil.copytree(folder / "stl", again / "stl")
    from shutbox.cad.slicer.project3mf import write_projects

    write_projects(again, manifest["parts"], specs, tuple(manifest["bed_mm"]))
    for plate in manifest["plates"]:
        assert (again / plate["file"]).read_bytes() == (folder / plate["file"]).read_bytes()


def _rewrite(src: Path, dst: Path, member: str, edit) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, edit(data.decode()) if info.filename == member else data)


@pytest.mark.slow  # builds the default kit's CAD (kit_folder)
def test_check_fails_on_broken_projects(kit_folder, tmp_path):
    folder, manifest, specs = kit_folder
    broken = tmp_path / "kit"
    shutil.copytree(folder, broken)
    plate = dice_plate(manifest)
    small = broken / plate
    # the dice lose their solid infill; a part is moved off the bed; support switched on
    _rewrite(folder / plate, small, MODEL_CONFIG_FILE,
             lambda t: t.replace('key="fill_density" value="100%"', 'key="fill_density" value="15%"'))
    moved = tmp_path / "moved.3mf"
    _rewrite(small, moved, "3D/3dmodel.model",
             lambda t: re.sub(r'(<item objectid="1" transform="1 0 0 0 1 0 0 0 1 )([-\d.]+)', r"\g<1>240.0", t,
                              count=1))
    _rewrite(moved, small, "Metadata/Slic3r_PE.config",
             lambda t: t.replace("; support_material = 0", "; support_material = 1"))
    lost = broken / "project/plate-2.3mf"
    lost.unlink()
    # a gate laid over the box piece on the first plate
    first = folder / "project/plate-1.3mf"
    with zipfile.ZipFile(first) as z:
        item1 = re.search(r'<item objectid="1" transform="([^"]+)"', z.read("3D/3dmodel.model").decode())
    assert item1 is not None
    _rewrite(first, broken / "project/plate-1.3mf", "3D/3dmodel.model",
             lambda t: re.sub(r'(<item objectid="2" transform=")[^"]+', lambda m: m.group(1) + item1.group(1), t))
    found = {(f.check, f.subject): f for f in check_projects(broken, manifest, specs)}
    moved_off = found[("plate", plate)]
    assert not moved_off.ok and "outside" in moved_off.detail
    bad = found[("plate config", plate)]
    assert not bad.ok and "fill_density = 15%, wants 100%" in bad.detail and "support_material = 1" in bad.detail
    assert not found[("plate", "project/plate-2.3mf")].ok
    stacked = found[("plate", "project/plate-1.3mf")]
    assert not stacked.ok and "overlapping: box-tiles-5-9 and gate-tiles-6-9" in stacked.detail, stacked.detail
    assert not found[("plates", "project/")].ok and "box-tiles-1-4 0 of 1" in found[("plates", "project/")].detail


@pytest.mark.slow  # builds the default kit's CAD (kit_folder)
def test_no_project_files_and_no_finding_without_meshes(kit_folder, tmp_path):
    _, manifest, specs = kit_folder
    assert check_projects(tmp_path, {**manifest, "formats": ["step"], "plates": []}, specs) == []
    stl_only = check_projects(tmp_path, {**manifest, "plates": []}, specs)  # meshes but the plates lost
    assert [f.ok for f in stl_only] == [False]


# -- slicing the project files as they are -------------------------------------------------------------------------

def _header(gcode: Path) -> dict[str, str]:
    found = {}
    for line in gcode.read_text(errors="replace").splitlines():
        m = re.match(r"^; (\w+) = (.*)$", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def _filled(gcode: Path, footprint: tuple[float, float, float, float], volume: float) -> float:
    """Plastic extruded over ``footprint`` (x0, y0, x1, y1 on the bed) as a share of a part's ``volume`` (mm3): about 1
    for a solid part (PrusaSlicer labels 100% infill ``Internal infill`` too, so the type does not tell)."""
    import math

    x0, y0, x1, y1 = footprint
    length = sum(m.filament for m in extrusions(gcode) if m.kind not in ("Skirt/Brim", "Custom")
                 and x0 <= (m.x0 + m.x1) / 2 <= x1 and y0 <= (m.y0 + m.y1) / 2 <= y1)
    return length * math.pi * (1.75 / 2) ** 2 / volume


def volume_in(mesh) -> float:
    import numpy as np

    v = mesh.vertices[mesh.triangles]
    return float(np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6)


def _slice(project: Path, gcode: Path) -> dict[str, str]:
    exe = require_tool("prusa-slicer")
    proc = subprocess.run(["nice", exe, "--export-gcode", "--dont-arrange", "-o", str(gcode), str(project)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and gcode.is_file(), (proc.stdout + proc.stderr)[-2000:]
    return _header(gcode)


def _footprints(plate: dict, name: str, margin: float = 0.5) -> list[tuple[float, float, float, float]]:
    return [(o["x_mm"] - margin, o["y_mm"] - margin, o["x_mm"] + o["size_mm"][0] + margin,
             o["y_mm"] + o["size_mm"][1] + margin) for o in plate["objects"] if o["part"] == name]


def project_findings(gcode: Path, header: dict[str, str], plate: dict, specs, volumes: dict[str, float]) -> list[str]:
    """What of the plate's stored settings the G-code does not show (empty: sliced as the project says)."""
    by_name = {s.name: s for s in specs}
    wrong = []
    first = by_name[plate["parts"][0]].print_settings
    for key, want in (("support_material", "0"), ("nozzle_diameter", f"{plate['nozzle_mm']:g}"),
                      ("layer_height", f"{first.layer_height_mm:g}"), ("fill_density", f"{first.infill_percent}%")):
        if header.get(key) != want:
            wrong.append(f"{key} = {header.get(key)}, wants {want}")
    for name in plate["parts"]:
        spec = by_name[name]
        solid = spec.print_settings.infill_percent >= 100
        for box in _footprints(plate, name):
            share = _filled(gcode, box, volumes[name])
            if share < 0.3:
                wrong.append(f"{name}: {share:.2f} of it printed where the project places it")
            elif solid and share < 0.95:
                wrong.append(f"{name}: {share:.2f} of its volume printed, wants solid")
            elif spec.kind == "tile" and share > 0.9:  # 20% infill: well short of its volume
                wrong.append(f"{name}: {share:.2f} of its volume printed, wants {spec.print_settings.infill}")
    if any(line.startswith(";TYPE:Support material") for line in gcode.read_text(errors="replace").splitlines()):
        wrong.append("support material printed")
    return wrong


@pytest.mark.slow
def test_prusaslicer_slices_every_plate_as_stored(kit_folder, tmp_path):
    folder, manifest, specs = kit_folder
    from shutbox.cad.slicer.project3mf import read_part_mesh

    volumes = {p["name"]: volume_in(read_part_mesh(folder, p["files"])) for p in manifest["parts"]}
    for plate in manifest["plates"]:
        gcode = tmp_path / (Path(plate["file"]).stem + ".gcode")
        header = _slice(folder / plate["file"], gcode)
        assert project_findings(gcode, header, plate, specs, volumes) == [], plate["file"]


@pytest.mark.slow
def test_slice_check_fails_when_the_dice_lose_their_own_settings(kit_folder, tmp_path):
    """A project of the dice alone, written without their per-object infill: the check above must see it."""
    folder, manifest, specs = kit_folder
    from shutbox.cad.slicer.project3mf import read_part_mesh, write_project

    die = next(s for s in specs if s.kind == "die")
    small = next(p for p in manifest["plates"] if die.name in p["parts"])
    placed = tuple(p for p in kit_plates(specs, tuple(manifest["bed_mm"]))[-1].placed if p.name == die.name)
    plate = Plate(9, small["nozzle_mm"], placed)
    mesh = read_part_mesh(folder, next(p for p in manifest["parts"] if p["name"] == die.name)["files"])
    good = tmp_path / "dice.3mf"
    write_project(good, plate, {die.name: mesh}, {die.name: die}, tuple(manifest["bed_mm"]))
    listed = {"file": "dice.3mf", "nozzle_mm": plate.nozzle_mm, "parts": [die.name],
              "objects": [{"part": p.name, "x_mm": p.x, "y_mm": p.y, "size_mm": list(p.size)} for p in placed]}
    # the broken case: the dice's per-object infill dropped and the plate's set to 15% gyroid
    half, bad = tmp_path / "dice-half.3mf", tmp_path / "dice-15.3mf"
    _rewrite(good, half, MODEL_CONFIG_FILE,
             lambda t: re.sub(r' *<metadata type="object" key="fill_\w+"[^>]*/>\n', "", t))
    _rewrite(half, bad, "Metadata/Slic3r_PE.config",
             lambda t: t.replace("; fill_density = 100%", "; fill_density = 15%").replace(
                 "; fill_pattern = rectilinear", "; fill_pattern = gyroid"))
    assert "fill_density" not in read_project(bad).own[die.name]
    volumes = {die.name: volume_in(mesh)}
    good_gcode, bad_gcode = tmp_path / "good.gcode", tmp_path / "bad.gcode"
    assert project_findings(good_gcode, _slice(good, good_gcode), listed, specs, volumes) == []
    wrong = project_findings(bad_gcode, _slice(bad, bad_gcode), listed, specs, volumes)
    assert "fill_density = 15%, wants 100%" in wrong
    assert any(w.startswith(f"{die.name}: ") and w.endswith("of its volume printed, wants solid") for w in wrong), wrong
