"""The slicer's own word on support and bridges (PrusaSlicer's CLI, support on): the checks fail the parts that
must fail (a mushroom that needs support, a deck bridging 60 mm) and pass the ones that print clean."""

from __future__ import annotations

import shutil

import pytest

from shutbox.cad.checks.findings import Finding
from tests.conftest import skip_module_without

skip_module_without("trimesh")
if shutil.which("prusa-slicer") is None:
    pytest.skip("PrusaSlicer is not installed", allow_module_level=True)

BED = (250.0, 210.0, 220.0)
pytestmark = pytest.mark.slow  # each slices a part with PrusaSlicer (a few seconds)


def _findings(tmp_path, mesh, name: str) -> dict[str, Finding]:
    from shutbox.cad.slicer.sliced import sliced_findings

    path = tmp_path / f"{name}.stl"
    mesh.export(str(path))
    return {f.check: f for f in sliced_findings(path, tmp_path, BED)}


def _arch(gap: float):
    import trimesh

    posts = [trimesh.creation.box((3, 20, 10)) for _ in range(2)]
    posts[0].apply_translation((-gap / 2 - 1.5, 0, 5))
    posts[1].apply_translation((gap / 2 + 1.5, 0, 5))
    deck = trimesh.creation.box((gap + 6, 20, 2))
    deck.apply_translation((0, 0, 11))
    return trimesh.boolean.union([*posts, deck], engine="manifold")


def test_support_check_fails_a_part_that_needs_support(tmp_path):
    import trimesh

    stem = trimesh.creation.box((5, 5, 10))
    stem.apply_translation((0, 0, 5))
    cap = trimesh.creation.box((35, 35, 2))
    cap.apply_translation((0, 0, 11))
    found = _findings(tmp_path, trimesh.boolean.union([stem, cap], engine="manifold"), "mushroom")
    assert not found["support"].ok, found["support"].detail


def test_bridge_check_fails_a_long_bridge_and_passes_a_short_one(tmp_path):
    from shutbox.cad.slicer.sliced import BRIDGE_MAX

    long = _findings(tmp_path, _arch(60.0), "long")
    assert not long["bridge"].ok, long["bridge"].detail
    assert long["support"].ok  # PrusaSlicer never supports a bridge: "no support" says nothing about it
    short = _findings(tmp_path, _arch(30.0), "short")
    assert short["bridge"].ok and short["support"].ok, short["bridge"].detail
    span = float(short["bridge"].detail.split("over air ")[1].split(" mm")[0])
    assert 25.0 <= span <= BRIDGE_MAX  # the air between the posts, measured from the G-code


def test_support_is_weighed_from_the_gcode(tmp_path):
    import trimesh

    from shutbox.cad.slicer.sliced import slice_with_support

    stem = trimesh.creation.box((5, 5, 10))
    stem.apply_translation((0, 0, 5))
    cap = trimesh.creation.box((35, 35, 2))
    cap.apply_translation((0, 0, 11))
    trimesh.boolean.union([stem, cap], engine="manifold").export(str(tmp_path / "m.stl"))
    result = slice_with_support(tmp_path / "m.stl", tmp_path / "m.gcode", BED)
    assert result.support_grams > 0.5
    assert "; support_material = 1" in (tmp_path / "m.gcode").read_text()
