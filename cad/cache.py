"""A content-addressed cache of built parts, so a rebuild redoes only parts whose inputs changed.

Each entry is a folder named by the hash of the part's name, the settings its geometry depends on,
the mesh settings, the CAD source code and the font. It holds the part as built (BREP, print
orientation and assembled places) and its exported files. The cache lives in the user's cache
folder; ``SHUTBOX_CACHE_DIR`` moves it (tests use a temporary folder), ``SHUTBOX_CACHE_DIR=off``
turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from shutbox.typefaces import BOLD, font_file

ENV = "SHUTBOX_CACHE_DIR"


def cache_root() -> Path | None:
    """The cache folder, or None when caching is off."""
    value = os.environ.get(ENV)
    if value is not None and value.strip().lower() in ("off", "0", "none", ""):
        return None
    if value:
        return Path(value)
    import platformdirs

    return Path(platformdirs.user_cache_dir("shutbox")) / "cad"


@cache
def code_digest() -> str:
    """Hash of the CAD modules and the font: a code change invalidates every entry."""
    h = hashlib.sha256()
    package = resources.files("shutbox.cad")
    for name in sorted(p.name for p in package.iterdir() if p.name.endswith(".py")):
        h.update(name.encode())
        h.update(package.joinpath(name).read_bytes())
    h.update(font_file(BOLD).read_bytes())
    return h.hexdigest()[:20]


def part_key(name: str, inputs: dict[str, Any]) -> str:
    blob = json.dumps({"part": name, "inputs": inputs, "code": code_digest()}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def lookup(key: str) -> Path | None:
    """The entry folder for ``key`` if it is complete."""
    root = cache_root()
    if root is None:
        return None
    entry = root / key
    return entry if (entry / "entry.json").is_file() else None


def store(key: str, folder: Path) -> Path | None:
    """Move a finished entry ``folder`` (with ``entry.json``) into the cache atomically."""
    root = cache_root()
    if root is None:
        return None
    root.mkdir(parents=True, exist_ok=True)
    target = root / key
    if target.exists():
        shutil.rmtree(folder, ignore_errors=True)
        return target
    try:
        os.replace(folder, target)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return target if target.exists() else None
    return target


def new_entry_dir() -> Path:
    """A scratch folder for an entry being built (inside the cache, so the final move is a rename)."""
    root = cache_root()
    if root is None:
        return Path(tempfile.mkdtemp(prefix="shutbox-part-"))
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".building-", dir=root))
