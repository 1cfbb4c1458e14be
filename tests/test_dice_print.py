"""Dice that read well: the die's pips as their own body, written with the die as two objects of one 3MF."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CAD_WORKER, skip_module_without

skip_module_without("cadquery")
pytestmark = CAD_WORKER


def test_the_pips_fill_the_die_s_holes_and_the_3mf_holds_two_objects(tmp_path: Path):
    import trimesh

    from shutbox.cad.geometry.dice import PIPS, build_die, build_pips, write_two_colour_3mf

    size = 19.0
    die, pips = build_die(size), build_pips(size)
    assert len(pips.Solids()) == sum(len(p) for p in PIPS.values()) == 21
    assert die.intersect(pips).Volume() < 1e-3  # the pips sit in the holes, not in the body
    path = tmp_path / "die.3mf"
    write_two_colour_3mf(size, path)
    scene = trimesh.load(str(path))
    assert isinstance(scene, trimesh.Scene)
    meshes = {name: geometry for name, geometry in scene.geometry.items()}
    assert sorted(meshes) == ["die", "pips"]
    assert meshes["die"].is_watertight and meshes["die"].body_count == 1
    assert meshes["pips"].body_count == 21
    assert abs(meshes["die"].volume - die.Volume()) < 0.01 * die.Volume()
    assert abs(meshes["pips"].volume - pips.Volume()) < 0.03 * pips.Volume()
    lo, hi = meshes["die"].bounds
    assert abs(lo[2]) < 1e-6 and abs(hi[2] - size) < 1e-3  # laid on the bed as the die's own file is
