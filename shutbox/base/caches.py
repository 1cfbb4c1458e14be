"""The user's caches: where each one lives, what made its contents, and how to list or clear it.

Every cache is a folder of the user's shutbox cache folder (``platformdirs.user_cache_dir("shutbox")``;
``SHUTBOX_CACHE_DIR`` moves them all, ``SHUTBOX_CACHE_DIR=off`` turns them all off; a relative value of it or of
``XDG_CACHE_HOME`` is ignored, as the XDG rule says) named after it:
``solver/`` (the solver's values), ``cad/`` (built parts and the CAD checks' results), ``reviews/``
(each stored game's summary). Each cache keys its entries on :func:`made_with`: the project's version
and the versions of the libraries that made the contents, so an upgrade of either is a miss, never a
stale answer. ``shutbox cache info|clear`` lists and clears them (:mod:`shutbox.cli.commands.cache`).

Start-up matters (``shutbox solve`` reads the solver's cache without importing numpy): this module imports
nothing beyond what the interpreter has loaded, and finds library versions from the installed
distributions' folder names rather than through ``importlib.metadata`` (~20 ms to import).
"""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path

from shutbox.base.version import __version__

ENV = "SHUTBOX_CACHE_DIR"


class Cache:
    """One cache: its folder's name, what it holds, the distributions that make its contents, and the
    patterns (relative to its folder) of the files and folders it writes -- the only ones ``clear`` removes."""

    def __init__(self, name: str, holds: str, libraries: tuple[str, ...], entries: tuple[str, ...],
                 scratch: tuple[str, ...] = ()) -> None:
        self.name, self.holds, self.libraries = name, holds, libraries
        self.entries, self.scratch = entries, scratch

    def folder(self) -> Path | None:
        """This cache's folder, or None when caching is off."""
        top = root()
        return None if top is None else top / self.name

    def owned(self) -> tuple[list[Path], list[Path]]:
        """(entries, scratch files) of this cache that exist on disk."""
        folder = self.folder()
        if folder is None or not folder.is_dir():
            return [], []
        return _matches(folder, self.entries), _matches(folder, self.scratch)


_HEX32 = "[0-9a-f]" * 32
#: Every cache, by name (the name of its folder).
CACHES: dict[str, Cache] = {c.name: c for c in (
    Cache("solver", "the solver's values (solve, advise, review, stats, play's hints)", ("numpy",),
          ("*.values",), (".solver-*",)),
    Cache("cad", "built parts, assembly and previews, and the CAD checks' results",
          ("cadquery", "cadquery-ocp", "numpy", "trimesh", "manifold3d", "vtk"),
          (_HEX32, f"checks/{_HEX32}.json"), (".building-*", "checks/*.tmp*")),
    Cache("reviews", "each stored game's summary (stats)", ("numpy",),
          ("records.sqlite3",), ("records.sqlite3-journal", "records.sqlite3-wal", "records.sqlite3-shm")),
)}


def root() -> Path | None:
    """The folder holding every cache, or None when caching is off."""
    value = os.environ.get(ENV)
    if value is not None and value.strip().lower() in ("off", "0", "none", ""):
        return None
    if value and os.path.isabs(value):
        return Path(value)
    return _user_cache()  # a relative value is ignored, as the XDG rule has it: it would follow the current folder


def _user_cache() -> Path:
    """``platformdirs.user_cache_dir("shutbox")``; on Linux its XDG rule directly (platformdirs costs ~10 ms
    of start-up; tests/test_caches.py checks both agree)."""
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
        if not os.path.isabs(xdg):  # empty or relative: ignored (the XDG Base Directory rule)
            xdg = os.path.expanduser("~/.cache")
        return Path(xdg) / "shutbox"
    import platformdirs

    return Path(platformdirs.user_cache_dir("shutbox"))


def folder(name: str) -> Path | None:
    """The folder of cache ``name`` (one of :data:`CACHES`), or None when caching is off."""
    return CACHES[name].folder()


@cache
def made_with(name: str) -> str:
    """What cache ``name``'s contents were made with: ``shutbox 0.1.0; numpy 2.1.0; ...`` (a library that is
    not installed reads ``-``). Part of every key of that cache."""
    return "; ".join([f"shutbox {__version__}"] + [f"{lib} {library_version(lib)}" for lib in CACHES[name].libraries])


def _normal(name: str) -> str:
    """A distribution's name as its ``.dist-info`` folder spells it (PEP 503 folded, ``_`` for runs of ``-_.``)."""
    out, run = [], False
    for ch in name.lower():
        if ch in "-_.":
            if not run:
                out.append("_")
            run = True
        else:
            out.append(ch)
            run = False
    return "".join(out)


@cache
def _distributions() -> dict[str, str]:
    """Installed distributions' versions by normalised name, from the ``NAME-VERSION.dist-info`` folders on
    ``sys.path`` (the first found wins, as for imports)."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for item in names:
            if item.endswith(".dist-info") and "-" in item:
                dist, _, version = item[:-len(".dist-info")].partition("-")
                found.setdefault(_normal(dist), version)
    return found


def library_version(name: str) -> str:
    """The installed version of distribution ``name``, or ``-`` if it is not installed."""
    version = _distributions().get(_normal(name))
    if version is None:  # an egg or a zipped install: ask the slow, thorough way
        from importlib import metadata

        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
    return version


def _matches(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    return sorted({path for pattern in patterns for path in folder.glob(pattern)})


def _size(path: Path) -> int:
    try:
        if path.is_dir() and not path.is_symlink():
            return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
        return path.lstat().st_size
    except OSError:
        return 0


def usage(name: str) -> tuple[int, int]:
    """(entries, bytes) of cache ``name`` on disk, scratch files counted in the bytes."""
    entries, scratch = CACHES[name].owned()
    return len(entries), sum(_size(p) for p in entries + scratch)


def clear(name: str) -> tuple[int, int]:
    """Remove cache ``name``'s own files and folders (nothing else in its folder) and, if that leaves them
    empty, its folders; returns (entries removed, bytes freed)."""
    import shutil

    cache_ = CACHES[name]
    entries, scratch = cache_.owned()
    freed = 0
    for path in entries + scratch:
        freed += _size(path)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    top = cache_.folder()
    if top is not None:
        for sub in sorted({p.parent for p in entries + scratch} | {top}, key=lambda p: len(p.parts), reverse=True):
            try:
                sub.rmdir()  # only when empty: whatever else is there stays
            except OSError:
                pass
    return len(entries), freed
