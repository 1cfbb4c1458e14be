"""The CAD part cache: entries verified on read, a safe store, pruning to a size limit, a damaged part rebuilt."""

from __future__ import annotations

import json
import os
import time

import pytest

from shutbox.base import caches
from shutbox.cad.build import cache


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv(caches.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "cad"


def _entry(root, key, payload=b"solid part\n", age=0.0):
    folder = cache.new_entry_dir()
    (folder / "part.stl").write_bytes(payload)
    cache.seal(folder, {"name": key})
    entry = cache.store(key, folder)
    if age:
        stamp = time.time() - age
        os.utime(entry / cache.ENTRY, (stamp, stamp))
    return entry


def test_a_sealed_entry_is_found_and_a_damaged_one_is_removed(root):
    entry = _entry(root, "k1", b"x" * 1000)
    assert entry == root / "k1" and cache.lookup("k1") == entry
    (entry / "part.stl").write_bytes(b"x" * 500)  # truncated
    assert cache.lookup("k1") is None
    assert not entry.exists()
    entry = _entry(root, "k2", b"abc")
    (entry / "part.stl").write_bytes(b"abd")  # same size, other content
    assert cache.lookup("k2") is None
    entry = _entry(root, "k3")
    (entry / cache.ENTRY).write_text("{not json", encoding="utf-8")
    assert cache.lookup("k3") is None
    entry = _entry(root, "k4")
    (entry / "part.stl").unlink()
    assert cache.lookup("k4") is None


def test_store_never_returns_a_deleted_folder(root, monkeypatch):
    first = _entry(root, "same")
    folder = cache.new_entry_dir()
    (folder / "part.stl").write_bytes(b"solid part\n")
    cache.seal(folder, {"name": "same"})
    assert cache.store("same", folder) == first and not folder.exists()  # a whole entry already there
    # The move fails: the caller gets its own folder back, whole.
    folder = cache.new_entry_dir()
    (folder / "part.stl").write_bytes(b"data")
    cache.seal(folder, {"name": "other"})

    def refuse(src, dst):
        raise OSError("no space left on device")

    monkeypatch.setattr(cache.os, "replace", refuse)
    kept = cache.store("other", folder)
    assert kept == folder and (kept / "part.stl").read_bytes() == b"data"
    assert not cache.is_cached(kept)


def test_an_entry_completed_with_another_format_replaces_the_one_without_it(root):
    # `shutbox cad --formats stl`, then `shutbox cad` (every format): the part's entry gains the 3MF.
    first = _entry(root, "part")
    folder = cache.new_entry_dir()
    (folder / "part.stl").write_bytes(b"solid part\n")
    (folder / "part.3mf").write_bytes(b"PK 3mf")
    cache.seal(folder, {"name": "part"})
    entry = cache.store("part", folder)
    assert entry == first == root / "part" and not folder.exists()
    assert (entry / "part.3mf").read_bytes() == b"PK 3mf" and cache.lookup("part") == entry
    # The same files or fewer: the entry stays as it is.
    folder = cache.new_entry_dir()
    (folder / "part.stl").write_bytes(b"solid part\n")
    cache.seal(folder, {"name": "part"})
    assert cache.store("part", folder) == entry and (entry / "part.3mf").is_file() and not folder.exists()


def test_store_with_caching_off_hands_back_the_scratch_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(caches.ENV, "off")
    folder = cache.new_entry_dir()
    (folder / "part.stl").write_bytes(b"data")
    assert cache.store("k", folder) == folder and folder.exists()
    assert not cache.is_cached(folder)
    folder.joinpath("part.stl").unlink()
    folder.rmdir()


def test_prune_drops_least_recently_used_entries_down_to_the_limit(root):
    old = _entry(root, "old", b"o" * 4000, age=300)
    mid = _entry(root, "mid", b"m" * 4000, age=200)
    new = _entry(root, "new", b"n" * 4000, age=100)
    kept = _entry(root, "kept", b"k" * 4000, age=400)
    stale = root / ".building-dead"
    stale.mkdir()
    (stale / "part.brep").write_bytes(b"b" * 100)
    then = time.time() - 2 * cache.STALE_S
    os.utime(stale, (then, then))
    live = cache.new_entry_dir()  # a build running now
    freed = cache.prune(9000, keep={kept})
    assert freed > 8000
    assert not old.exists() and not mid.exists() and new.exists() and kept.exists()
    assert not stale.exists() and live.exists()


def test_a_lookup_counts_as_a_use_for_pruning(root):
    a = _entry(root, "a", b"a" * 4000, age=300)
    b = _entry(root, "b", b"b" * 4000, age=100)
    assert cache.lookup("a") == a  # now the most recently used
    cache.prune(5000)
    assert a.exists() and not b.exists()


@pytest.mark.slow
def test_a_truncated_cached_part_is_rebuilt_not_copied(root, tmp_path):
    pytest.importorskip("cadquery")
    from shutbox.cad.build.export import box_wanted, build_cad
    from shutbox.cad.checks.check import check_folder
    from shutbox.kit.model import build_kit

    kit = build_kit({"printer.bed": "xl", "sensors.kind": "none"})
    assert box_wanted(kit)  # a cold cache: the box is built (its hollow tool given to a side process)
    first = tmp_path / "first"
    first.mkdir()
    manifest = build_cad(kit, first, ("stl",), progress=False)
    assert not box_wanted(kit)  # its pieces are in the cache now, also for another die size
    assert not box_wanted(build_kit({"printer.bed": "xl", "sensors.kind": "none", "dice.size_mm": 18}))
    die = next(p for p in manifest["parts"] if p["kind"] == "die")
    good = (first / die["files"]["stl"]).read_bytes()
    entries = [p for p in root.iterdir() if (p / cache.ENTRY).is_file()
               and json.loads((p / cache.ENTRY).read_text())["name"] == die["name"]]
    assert len(entries) == 1
    damaged = entries[0] / "part.stl"
    damaged.write_bytes(damaged.read_bytes()[:200])
    second = tmp_path / "second"
    second.mkdir()
    build_cad(kit, second, ("stl",), progress=False)
    assert (second / die["files"]["stl"]).read_bytes() == good
    assert all(f.ok for f in check_folder(second))
    assert cache.lookup(entries[0].name) is not None  # rebuilt in place
