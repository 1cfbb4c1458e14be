"""A content-addressed cache of built parts, so a rebuild redoes only parts whose inputs changed.

Each entry is a folder named by the hash of the part's name, the settings its geometry depends on,
the mesh settings, the CAD source code, the font and what made it (:func:`shutbox.base.caches.made_with`:
shutbox's version and CadQuery's, OCP's, numpy's, trimesh's, manifold3d's and VTK's). It holds the
part as built (BREP, print orientation) and its exported files, and an ``entry.json`` with each
file's size and hash: an entry that does not verify on read is removed and rebuilt, never copied
into a build. The cache is pruned to a size limit (least recently used first). It is the ``cad``
cache of :mod:`shutbox.base.caches` (in the user's cache folder; ``SHUTBOX_CACHE_DIR`` moves it, tests
use a temporary folder; ``SHUTBOX_CACHE_DIR=off`` turns it off).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Collection
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from shutbox.base import caches
from shutbox.base.typefaces import BOLD, font_file


def cache_root() -> Path | None:
    """The CAD cache folder (``cad`` in the user's shutbox cache, beside the solver's), or None when caching is off."""
    return caches.folder("cad")


@cache
def code_digest() -> str:
    """Hash of the CAD modules, the font and the versions that build with them: a change invalidates every entry."""
    h = hashlib.sha256(caches.made_with("cad").encode())
    package = Path(str(resources.files("shutbox.cad")))
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    h.update(font_file(BOLD).read_bytes())
    return h.hexdigest()[:20]


def part_key(name: str, inputs: dict[str, Any]) -> str:
    blob = json.dumps({"part": name, "inputs": inputs, "code": code_digest()}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


ENTRY = "entry.json"
STALE_S = 3600.0  # a scratch folder untouched this long belongs to a killed build


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def seal(folder: Path, info: dict[str, Any]) -> None:
    """Write ``folder``'s ``entry.json``: ``info`` plus each file's size and hash, so a read can verify it."""
    files = {p.name: {"size": p.stat().st_size, "sha256": _digest(p)}
             for p in sorted(folder.iterdir()) if p.is_file() and p.name != ENTRY}
    (folder / ENTRY).write_text(json.dumps({**info, "files": files}), encoding="utf-8")


def read_entry(entry: Path) -> dict[str, Any] | None:
    """The entry's record if every file it lists is there, whole and unchanged; otherwise None."""
    try:
        info = json.loads((entry / ENTRY).read_text(encoding="utf-8"))
        files = info["files"]
        for name, meta in files.items():
            path = entry / name
            if path.stat().st_size != meta["size"] or _digest(path) != meta["sha256"]:
                return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return info if isinstance(info, dict) else None


def lookup(key: str) -> Path | None:
    """The entry folder for ``key`` if it is complete and verifies; a damaged entry is removed (rebuilt)."""
    root = cache_root()
    if root is None:
        return None
    entry = root / key
    if not entry.is_dir():
        return None
    if read_entry(entry) is None:
        shutil.rmtree(entry, ignore_errors=True)
        return None
    try:
        os.utime(entry / ENTRY)  # last use, for pruning
    except OSError:
        pass
    return entry


def store(key: str, folder: Path) -> Path:
    """Move a sealed entry ``folder`` into the cache; return the folder that now holds the files.

    That is the cache entry, or ``folder`` itself when caching is off or the move failed (the caller
    removes it after use). ``folder`` is only deleted when a whole entry for ``key`` is returned instead.
    """
    root = cache_root()
    if root is None:
        return folder
    target = root / key
    held, new = read_entry(target), read_entry(folder)
    if held is not None and new is not None and set(new.get("files", {})) <= set(held.get("files", {})):
        shutil.rmtree(folder, ignore_errors=True)  # another build stored the same files (or more) first
        return target
    shutil.rmtree(target, ignore_errors=True)  # missing, damaged, or lacking a format ``folder`` adds
    try:
        root.mkdir(parents=True, exist_ok=True)
        os.replace(folder, target)
    except OSError:
        return folder
    return target


def is_cached(path: Path) -> bool:
    """Whether ``path`` is an entry inside the cache (rather than a scratch folder to remove after use)."""
    root = cache_root()
    return root is not None and path.parent == root and not path.name.startswith(".")


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _sweep_and_list(root: Path, now: float) -> tuple[list[tuple[float, int, Path]], int]:
    """Remove stale scratch folders; list (last use, bytes, path) of every entry and stored check."""
    freed = 0
    items: list[tuple[float, int, Path]] = []
    for path in root.iterdir():
        try:
            if path.name.startswith(".building-"):
                if now - path.stat().st_mtime > STALE_S:
                    freed += _size(path)
                    shutil.rmtree(path, ignore_errors=True)
            elif path.is_dir() and path.name == "checks":
                items += [(p.stat().st_mtime, p.stat().st_size, p) for p in path.iterdir() if p.is_file()]
            elif path.is_dir():
                stamp = path / ENTRY
                items.append((stamp.stat().st_mtime if stamp.exists() else 0.0, _size(path), path))
        except OSError:
            continue
    return items, freed


def prune(limit_bytes: int, keep: Collection[Path] = ()) -> int:
    """Delete the least recently used entries (and checks) until the cache fits ``limit_bytes``, plus scratch
    folders left by killed builds; never an entry in ``keep``. Returns the bytes freed."""
    import time

    root = cache_root()
    if root is None or not root.is_dir():
        return 0
    items, freed = _sweep_and_list(root, time.time())
    total = sum(size for _, size, _ in items)
    for _, size, path in sorted(items, key=lambda item: item[0]):
        if total <= limit_bytes:
            break
        if path in keep:
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        total -= size
        freed += size
    return freed


def new_entry_dir() -> Path:
    """A scratch folder for an entry being built (inside the cache, so the final move is a rename)."""
    root = cache_root()
    if root is None:
        return Path(tempfile.mkdtemp(prefix="shutbox-part-"))
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".building-", dir=root))
