"""Installable in parts (issue 24, item 4): ``pip install .`` is the scorekeeper, pads, solver, simulator and web
page without CadQuery, OCP or VTK; the ``cad`` extra adds the generator. Without it, every CAD command says in
one line which extra to install (exit 2) and everything else works: checked here with the CAD libraries
blocked from import in a subprocess. The constraints file pins every distribution pyproject.toml names."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest

from tests.conftest import REPO

#: What the ``cad`` extra brings (import names), and what the base install must do without.
CAD_MODULES = ("cadquery", "OCP", "vtk", "vtkmodules", "trimesh", "manifold3d", "networkx", "lxml")

BLOCKED = f"""
import sys
from importlib.abc import MetaPathFinder

class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {CAD_MODULES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
"""


def without_cad(*args: str, code: str | None = None, cwd=None) -> subprocess.CompletedProcess[str]:
    """``shutbox ARGS`` (or ``code``) in a Python that cannot import any CAD library."""
    body = code or f"import sys\nsys.argv = ['shutbox', *{list(args)!r}]\nfrom shutbox.cli.entry import main\n" \
                   "raise SystemExit(main())\n"
    return subprocess.run([sys.executable, "-c", BLOCKED + body], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**os.environ, "SHUTBOX_JOBS": "1"})


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_base_install_has_no_cad_library_and_the_cad_extra_has_them():
    project = _pyproject()["project"]
    base = {_name(r) for r in project["dependencies"]}
    cad = {_name(r) for r in project["optional-dependencies"]["cad"]}
    assert {"cadquery", "trimesh", "manifold3d"} <= cad
    assert not base & {"cadquery", "cadquery-ocp", "vtk", "trimesh", "manifold3d", "networkx", "lxml"}
    assert {"reportlab", "numpy", "starlette", "uvicorn"} <= base


def test_the_blocker_blocks():
    proc = without_cad(code="import cadquery\n")
    assert proc.returncode != 0 and "No module named 'cadquery'" in proc.stderr


@pytest.mark.parametrize("args", [("cad",), ("kit",), ("cad", "check", "somewhere")])
def test_cad_commands_without_the_extra_name_it_in_one_line(tmp_path, args):
    out = tmp_path / "out"
    extra = ("--out", str(out)) if args[-1] != "somewhere" else ()
    proc = without_cad(*args, *extra, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'shutbox[cad]'" in lines[0] and "Traceback" not in proc.stderr
    assert lines[0].startswith(f"shutbox: error: {args[0] if args[:2] != ('cad', 'check') else 'check'}:")
    assert not out.exists() and proc.stdout == ""


def test_cad_help_still_works_without_the_extra():
    proc = without_cad("cad", "--help")
    assert proc.returncode == 0 and "--out" in proc.stdout


@pytest.mark.slow  # solves, prints pads and plays a game
def test_everything_else_works_without_the_extra(tmp_path):
    solve = without_cad("solve", "--tiles", "9")
    assert solve.returncode == 0 and "chance to shut box" in solve.stdout, solve.stderr
    pads = without_cad("scorepad", "--out", str(tmp_path / "pads.pdf"))
    assert pads.returncode == 0 and (tmp_path / "pads.pdf").stat().st_size > 1000, pads.stderr
    script = tmp_path / "game.txt"
    script.write_text("players Ann\nthrow 6 3\nshut 9\nend\n", encoding="utf-8")
    sim = without_cad("sim", "--script", str(script), "--json", "--tiles", "9")
    assert sim.returncode == 0 and '"players"' in sim.stdout, sim.stderr
    assert without_cad("--help").returncode == 0


def test_every_module_outside_the_cad_imports_without_the_extra(tmp_path):
    from tests.test_architecture import host_modules

    names = sorted(name for name in host_modules()
                   if not name.startswith("shutbox.cad") and name != "shutbox.__main__")  # that one runs the CLI
    code = f"import importlib\nfor name in {names!r}:\n    importlib.import_module(name)\nprint(len({names!r}))\n"
    proc = without_cad(code=code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) == len(names) > 40


def test_the_constraints_pin_every_distribution_pyproject_names():
    project = _pyproject()["project"]
    named = {_name(r) for r in project["dependencies"]}
    for group in project["optional-dependencies"].values():
        named |= {_name(r) for r in group}
    pinned = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pinned[name.lower().replace("_", "-").replace(".", "-")] = version
    assert named <= set(pinned), sorted(named - set(pinned))
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.+-]*", v) for v in pinned.values())
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "-c constraints.txt" in makefile and "-e '.[cad]'" in makefile and "-e '.[cad,dev]'" in makefile


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    """Every file name in the wheel ``pip`` builds from this checkout (hatchling, as installed for the tests)."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(out), str(REPO)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = out.glob("shutbox-*.whl")
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def test_the_wheel_holds_one_shutbox_namespace_and_no_top_level_part(wheel_names):
    tops = {name.split("/")[0] for name in wheel_names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"shutbox"}
    assert "shutbox/__init__.py" not in wheel_names  # a namespace: each part's folder adds to it
    for package in ("base", "kit", "game", "cli", "cli/commands", "cad", "cad/geometry", "cad/build", "cad/checks",
                    "cad/guide", "cad/slicer", "companion/live", "companion/web", "companion/sim", "companion/store",
                    "print", "firmware/host", "dice", "studio"):
        assert f"shutbox/{package}/__init__.py" in wheel_names, package
    assert not any("node_modules" in n or "__pycache__" in n for n in wheel_names)


def test_the_wheel_ships_the_data_the_code_reads(wheel_names):
    for name in ("shutbox/dice/second_look.onnx", "shutbox/companion/web/page.html",
                 "shutbox/companion/web/review.html",
                 "shutbox/base/fonts/DejaVuSans.ttf", "shutbox/base/fonts/DejaVuSans-Bold.ttf",
                 "shutbox/base/fonts/LICENSE_DEJAVU", "shutbox/firmware/main.py", "shutbox/firmware/boxcfg.pyi",
                 "shutbox/firmware/protocol_vectors.json", "shutbox/firmware/emulator/harness.mjs",
                 "shutbox/firmware/emulator/package-lock.json",
                 "shutbox/firmware/emulator/micropython-rpi_pico-v1.28.0.uf2",
                 "shutbox/firmware/sim/machine.py", "shutbox/studio/page.html", "shutbox/studio/studio.js",
                 "shutbox/studio/three/LICENSE", "shutbox/studio/three/VENDORED.md",
                 "shutbox/studio/three/build/three.module.js", "shutbox/studio/three/build/three.core.js",
                 "shutbox/studio/three/examples/jsm/loaders/GLTFLoader.js"):
        assert name in wheel_names, name
