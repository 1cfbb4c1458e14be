"""Write .cache/typecheck/shutbox: symlinks laid out as the installed ``shutbox`` package, for pyright.

setuptools maps folders to packages (pyproject.toml: cad/ -> shutbox.cad, firmware/ -> shutbox.firmware,
...); the editable install resolves that with an import hook pyright cannot see. pyrightconfig.json
puts this tree on pyright's search path. Folders are linked whole, so new modules need no rewrite.
Run: ``python tests/typecheck_tree.py`` (``make typecheck`` and tests/test_host_typecheck.py do);
``--code`` also prints the folders of shipped code pyrightconfig.json includes (all but the tests and
benchmarks: what ``make check`` type-checks).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TREE = REPO / ".cache" / "typecheck"


def package_dirs() -> dict[str, str]:
    """Top-level package-dir mapping from pyproject.toml (``shutbox.cad`` -> ``cad``)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-dir"]


def write_tree() -> Path:
    """(Re)write the symlink tree and return the folder to put on pyright's path."""
    root = TREE / "shutbox"
    if TREE.exists():
        shutil.rmtree(TREE)
    root.mkdir(parents=True)
    mapped = {name.removeprefix("shutbox."): folder for name, folder in package_dirs().items() if name != "shutbox"}
    for item in (REPO / "shutbox").iterdir():
        if item.name != "__pycache__" and item.name not in mapped:
            (root / item.name).symlink_to(item)
    for name, folder in mapped.items():
        (root / name).symlink_to(REPO / folder)
    return TREE


def code_folders() -> list[str]:
    """pyrightconfig.json's ``include`` without the tests and benchmarks (its ``//`` comment lines dropped)."""
    text = (REPO / "pyrightconfig.json").read_text(encoding="utf-8")
    config = json.loads(re.sub(r"(?m)^\s*//.*$", "", text))
    return [folder for folder in config["include"] if folder not in ("tests", "bench")]


if __name__ == "__main__":
    tree = write_tree()
    print(" ".join(code_folders()) if sys.argv[1:] == ["--code"] else tree)
