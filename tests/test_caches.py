"""The one cache module (shutbox.base.caches): where each cache lives, keys that change with the project's and the
libraries' versions (an upgrade is a miss, never a stale answer), and ``shutbox cache info|clear``."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import platformdirs
import pytest

from shutbox.base import caches
from shutbox.base.version import __version__
from shutbox.game import solvercache
from shutbox.kit.model import Rules


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv(caches.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def other_numpy(monkeypatch):
    """Pretend another numpy is installed, for the rest of the test (every memo of versions forgotten)."""
    def switch():
        installed = dict(caches._distributions())
        monkeypatch.setattr(caches, "_distributions", lambda: {**installed, "numpy": "0.0.1"})
        _forget()
    yield switch
    _forget()


def _forget() -> None:
    from shutbox.cad.build import cache as cad_cache
    from shutbox.companion.store import stats

    for memo in (caches.made_with, solvercache.code_digest, solvercache._cached, cad_cache.code_digest,
                 stats.code_digest):
        memo.cache_clear()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG shortcut is for Linux only")
@pytest.mark.parametrize("xdg", [None, "", "   ", "/tmp/xdg-cache-test"])
def test_default_cache_folder_is_platformdirs(monkeypatch, xdg):
    monkeypatch.delenv(caches.ENV, raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    for name in caches.CACHES:
        assert caches.folder(name) == Path(platformdirs.user_cache_dir("shutbox")) / name


@pytest.mark.parametrize("value", ["off", "OFF", "0", "none", ""])
def test_caching_off_means_no_folder(monkeypatch, value):
    monkeypatch.setenv(caches.ENV, value)
    assert caches.root() is None and all(caches.folder(name) is None for name in caches.CACHES)


def test_every_cache_names_the_versions_that_made_it():
    for name, cache in caches.CACHES.items():
        made = caches.made_with(name)
        assert made.startswith(f"shutbox {__version__}; ")
        for lib in cache.libraries:
            try:
                expected = metadata.version(lib)
            except metadata.PackageNotFoundError:
                expected = "-"
            assert f"{lib} {expected}" in made.split("; ")
    assert "cadquery" in caches.CACHES["cad"].libraries and "numpy" in caches.CACHES["solver"].libraries
    assert caches.library_version("no-such-distribution-here") == "-"


def test_another_numpy_solves_the_values_again(root, other_numpy):
    _forget()
    rules = Rules(tiles=9)
    first = solvercache.cached_solve(rules, "shut")
    (stored,) = (root / "solver").glob("*.values")
    solvercache._cached.cache_clear()
    assert solvercache._stored(first.setup, "shut", "optimal", numpy=True) is not None  # same versions: a hit
    other_numpy()
    assert solvercache._stored(first.setup, "shut", "optimal", numpy=True) is None  # another numpy: a miss
    again = solvercache.cached_solve(rules, "shut")
    assert (again.p_shut == first.p_shut).all()
    assert b"numpy 0.0.1" in next(p for p in (root / "solver").glob("*.values") if p != stored).read_bytes()[:4096]


def test_another_library_version_changes_the_cad_and_review_keys(root, other_numpy):
    from shutbox.cad.build import cache as cad_cache
    from shutbox.companion.store import stats

    _forget()
    part, review = cad_cache.part_key("tile-1", {"size": 1}), stats.record_key("game", "shut")
    assert cad_cache.part_key("tile-1", {"size": 1}) == part
    other_numpy()
    assert cad_cache.part_key("tile-1", {"size": 1}) != part
    assert stats.record_key("game", "shut") != review


def test_info_lists_and_clear_removes_only_the_caches_own_files(root, cli):
    assert cli("solve", "--tiles", "9", check=True).returncode == 0
    entry = root / "cad" / ("ab" * 16)
    entry.mkdir(parents=True)
    (entry / "entry.json").write_text("{}", encoding="utf-8")
    (root / "cad" / ".building-x1").mkdir()
    (root / "cad" / "checks").mkdir()
    (root / "cad" / "checks" / (("cd" * 16) + ".json")).write_text("[]", encoding="utf-8")
    mine = [root / "solver" / "notes.txt", root / "cad" / "mine", root / "keep.txt"]
    mine[0].write_text("mine", encoding="utf-8")
    mine[1].mkdir()
    mine[2].write_text("mine", encoding="utf-8")
    info = cli("cache", "info", check=True).stdout
    lines = {line.split()[0]: line for line in info.splitlines() if line.startswith("  ") and line.split()}
    assert "1 entry" in lines["solver"] and str(root / "solver") in lines["solver"]
    assert "2 entries" in lines["cad"] and "0 entries" in lines["reviews"]
    assert "numpy " + metadata.version("numpy") in info
    assert cli("cache", "clear", "cad", check=True).stdout.startswith("cleared 2 entries")
    assert not entry.exists() and not (root / "cad" / ".building-x1").exists()
    assert not (root / "cad" / "checks").exists() and list((root / "solver").glob("*.values"))
    assert cli("cache", "clear", check=True).stdout.startswith("cleared 1 entry ")
    assert all(p.exists() for p in mine) and not list((root / "solver").glob("*.values"))
    assert "0 entries" in cli("cache", "info", "solver", check=True).stdout
    bad = cli("cache", "info", "bogus")
    assert bad.returncode == 2 and bad.stderr.strip().endswith("allowed: solver, cad, reviews")
    assert cli("cache").returncode == 2
