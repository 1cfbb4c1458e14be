"""The rooms of the code and what each may import (docs/architecture.md), read from the sources with ast.

Every import counts, also the lazy ones inside functions and those under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

#: Room -> the rooms it may import (itself always allowed). The order of this table is the layering: shutbox/ holds
#: the layers under the parts (base, kit, game) and the one over them (cli); each part is a top-level folder.
ALLOWED: dict[str, set[str]] = {
    "base": set(),  # shutbox/base: errors, text, bounded parsing, output, caches, typefaces, progress
    "kit": {"base"},  # shutbox/kit: the kit model and its settings
    "game": {"base", "kit"},  # shutbox/game: rules, solver, review, game files
    "firmware.host": {"base", "kit"},  # firmware/: the pin plan, bundle, deploy, protocol
    "cad": {"base", "kit", "firmware.host"},  # cad/: the build guide describes the wiring
    "print": {"base", "kit", "game"},  # print/
    "dice": {"base", "kit"},  # dice/: the camera's dice reader (OpenCV)
    "companion": {"base", "kit", "game", "firmware.host", "dice"},  # companion/
    # shutbox/studio: the kit studio, a web page over the parts beside the command line (it runs `shutbox kit`)
    "studio": {"base", "kit", "game", "firmware.host", "cad", "print", "companion", "dice"},
    "cli": {"base", "kit", "game", "firmware.host", "cad", "print", "companion", "dice", "studio"},  # shutbox/cli
}
#: The parts: top-level folders, each holding its share of the ``shutbox`` namespace (``cad/shutbox/cad``, ...).
PARTS = ("cad", "companion", "print", "firmware", "dice")
#: Third-party packages the pure game domain may import.
GAME_THIRD_PARTY = {"numpy", "scipy"}
#: The folders on the import path (each holds a ``shutbox`` folder): the layers, then each part.
ROOTS = (REPO, *(REPO / part for part in PARTS))


def room_of(module: str) -> str | None:
    """The room of a ``shutbox`` module name, or None for a module outside the project."""
    parts = module.split(".")
    if parts[0] != "shutbox" or len(parts) == 1:
        return None
    if parts[1] == "__main__":
        return "cli"
    if parts[1] == "firmware":
        return "firmware.host" if parts[2:3] == ["host"] else "firmware"
    return parts[1] if parts[1] in ALLOWED else None


def host_modules() -> dict[str, Path]:
    """Every host module by its installed name (the firmware's device sources are not host code)."""
    found: dict[str, Path] = {}
    for root in ROOTS:
        for path in sorted((root / "shutbox").rglob("*.py")):
            name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
            if room_of(name) == "firmware":
                continue
            found[name] = path
    return found


@functools.cache
def imports_of(path: Path, module: str) -> frozenset[str]:
    """Absolute names of every module ``path`` imports (``from a import b`` gives ``a`` and ``a.b``)."""
    return names_imported(ast.parse(path.read_text(encoding="utf-8")), path, module)


def names_imported(tree: ast.Module, path: Path, module: str) -> frozenset[str]:
    """What the imports in ``tree`` (the source of ``module`` at ``path``) name, as absolute module names."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(names)


MODULES = host_modules()


def project_imports(names: frozenset[str]) -> set[str]:
    """The project modules among ``names`` (``from shutbox.game import solver`` names the module itself)."""
    return {n for n in names if n in MODULES}


def test_every_host_module_has_a_room():
    assert len(MODULES) > 60
    assert {room_of(m) for m in MODULES} <= set(ALLOWED)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_only_what_its_room_may(module: str):
    room = room_of(module)
    assert room is not None
    names = imports_of(MODULES[module], module)
    bad = sorted(n for n in project_imports(names) if room_of(n) not in ALLOWED[room] | {room})
    assert bad == [], f"{module} ({room}) may import only {sorted(ALLOWED[room] | {room})}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if room_of(m) == "game"))
def test_game_domain_imports_only_the_layers_under_it_stdlib_numpy_and_scipy(module: str):
    names = imports_of(MODULES[module], module)
    tops = {n.split(".")[0] for n in names if not n.startswith("shutbox")} - {"__future__"}
    outside = sorted(t for t in tops if t not in sys.stdlib_module_names and t not in GAME_THIRD_PARTY)
    assert outside == []
    ours = project_imports(names)
    assert all(room_of(n) in {"base", "kit", "game"} for n in ours), sorted(ours)


def test_no_cycle_between_rooms():
    edges: dict[str, set[str]] = {room: set() for room in ALLOWED}
    for module, path in MODULES.items():
        room = room_of(module)
        assert room is not None
        edges[room].update(r for n in project_imports(imports_of(path, module)) if (r := room_of(n)) and r != room)
    state: dict[str, str] = {}

    def visit(room: str, trail: list[str]) -> None:
        if state.get(room) == "done":
            return
        assert state.get(room) != "open", f"import cycle: {' -> '.join([*trail, room])}"
        state[room] = "open"
        for target in sorted(edges[room]):
            visit(target, [*trail, room])
        state[room] = "done"

    for room in edges:
        visit(room, [])


@pytest.mark.parametrize("module", sorted(m for m in MODULES if room_of(m) != "cli"))
def test_no_part_imports_the_cli(module: str):
    names = imports_of(MODULES[module], module)
    assert sorted(n for n in names if n == "shutbox.cli" or n.startswith("shutbox.cli.")) == []


def private_imports(path: Path, module: str) -> list[str]:
    """Every ``from shutbox.x import _name`` in ``path`` that reaches into another module's private names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shutbox"):
            found += [f"{node.module}.{a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__") and node.module != module]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("shutbox") and "._" in a.name]
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_another_modules_private_names(module: str):
    assert private_imports(MODULES[module], module) == []


def test_the_private_name_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from shutbox.cad.build.cache import _memo\nimport shutbox.base._hidden\n", encoding="utf-8")
    assert private_imports(bad, "shutbox.cad.checks.bad") == ["shutbox.cad.build.cache._memo", "shutbox.base._hidden"]


@functools.cache
def runtime_imports_of(path: Path, module: str) -> frozenset[str]:
    """What ``path`` imports when it runs: every import but those under ``if TYPE_CHECKING:`` (types only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    return names_imported(tree, path, module)


def module_cycle(modules: dict[str, Path] = MODULES) -> list[str] | None:
    """A loop of modules importing each other as they run (imports inside functions count too), or None."""
    edges = {m: sorted(n for n in runtime_imports_of(p, m) if n in modules and n != m and not m.startswith(n + "."))
             for m, p in modules.items()}
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        stack.append(module)
        for target in edges[module]:
            if state.get(target) == "open":
                return [*stack[stack.index(target):], target]
            if target not in state and (loop := visit(target)):
                return loop
        stack.pop()
        state[module] = "done"
        return None

    for module in sorted(edges):
        if module not in state and (loop := visit(module)):
            return loop
    return None


def test_no_loop_of_modules_even_through_imports_inside_functions():
    loop = module_cycle()
    assert loop is None, "import loop: " + " -> ".join(loop or [])


def test_the_loop_check_can_fail(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    from shutbox.x.b import g\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("from shutbox.x.a import f\n", encoding="utf-8")
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shutbox.x.a import f\n"
    (tmp_path / "c.py").write_text(typing_only, encoding="utf-8")
    found = {f"shutbox.x.{n}": tmp_path / f"{n}.py" for n in "abc"}
    assert module_cycle(found) == ["shutbox.x.a", "shutbox.x.b", "shutbox.x.a"]
    assert module_cycle({k: v for k, v in found.items() if k != "shutbox.x.b"}) is None


def test_print_and_companion_do_not_import_each_other():
    for module, path in MODULES.items():
        ours = {room_of(n) for n in project_imports(imports_of(path, module))}
        if room_of(module) == "print":
            assert "companion" not in ours, module
        if room_of(module) == "companion":
            assert "print" not in ours, module


DEVICE = sorted((REPO / "firmware" / "shutbox" / "firmware").glob("*.py"))


@pytest.mark.parametrize("path", DEVICE, ids=lambda p: p.name)
def test_firmware_device_sources_import_no_host_code(path: Path):
    names = imports_of(path, f"shutbox.firmware.{path.stem}")
    assert sorted(n for n in names if n.startswith("shutbox") or n.split(".")[0] in {"host", "numpy"}) == []


def test_firmware_host_tooling_is_not_a_device_source():
    from shutbox.firmware.host.bundle import device_modules

    assert DEVICE, "no device sources found"
    assert all(p.parent.name == "firmware" for p in device_modules())
    assert not any("host" in p.parts[-2:-1] for p in device_modules())


def fact_homes() -> list[str]:
    """The dotted names in the "its one home" column of docs/architecture.md's fact table."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## One home per fact", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in table.splitlines() if line.startswith("| ") and not line.startswith("| fact")]
    return [name for cells in rows for name in re.findall(r"`(shutbox\.[\w.]+)`", cells[2])]


def test_every_home_of_a_fact_exists():
    import importlib

    homes = fact_homes()
    assert len(homes) >= 15
    for name in homes:
        parts = name.split(".")
        found: object = importlib.import_module(parts[0])
        for i, attr in enumerate(parts[1:], start=2):
            # an attribute, or else a submodule (import_module raises when there is neither)
            found = getattr(found, attr) if hasattr(found, attr) else importlib.import_module(".".join(parts[:i]))
