"""The kit studio's pool of builds with real ``shutbox kit`` runs: a cancelled build and a stopped pool end every
process they started (the kit's side process too) and leave no zip, whole or half; finished builds are kept
under the size limit, the oldest evicted first."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from shutbox.kit.model import build_kit
from shutbox.studio.builds import Build, Pool, build_id

pytestmark = pytest.mark.slow


def running_in_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running (a zombie, dead but not yet reaped by whoever adopted it, is
    not: in a container whose first process reaps nothing a killed side process stays one)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def gone(pgid: int) -> bool:
    """Has process group ``pgid`` (a build's process and all it started) ended?"""
    return running_in_group(pgid) == []


def building(pool: Pool, build: Build, timeout: float = 120.0) -> list[int]:
    """Wait until ``build``'s ``shutbox kit`` is under way (its CAD build has begun); its processes' ids."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if build.state == "failed":
            raise AssertionError(build.reason)
        if build.progress.startswith(("kit:", "cad")) and build.processes:
            return [p.pid for p in build.processes]
        time.sleep(0.1)
    raise AssertionError(f"the build did not start: {build.progress}")


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def cold_kit(length: float):
    """A kit no other test builds (its own box length): its parts are not in the cache."""
    return build_kit({"box.length_mm": length})


def test_a_cancelled_build_ends_its_processes_and_leaves_nothing(tmp_path):
    with Pool(tmp_path / "builds", workers=1) as pool:
        build = pool.submit(cold_kit(281.7))
        pids = building(pool, build)
        assert pool.cancel(build.id) is build
        assert all(gone(pid) for pid in pids)
        end = time.monotonic() + 30
        while build.folder.exists() and time.monotonic() < end:
            time.sleep(0.1)
        assert build.state == "failed" and build.reason == "cancelled"
        assert not build.folder.exists() and build.zip is None
        assert not any(name.endswith((".zip", ".part")) for name in files_under(tmp_path))
        again = pool.submit(cold_kit(281.7))  # posted again: a new build, not the cancelled one
        assert again is not build and again.id == build.id and again.state in ("queued", "building")
        assert pool.cancel(again.id) is again


def test_a_build_two_people_want_goes_on_when_one_leaves(tmp_path):
    pool = Pool(tmp_path / "builds", workers=1)  # not started: the builds only queue
    try:
        first = pool.submit(cold_kit(282.1))
        assert pool.submit(cold_kit(282.1)) is first and first.wanted == 2
        pool.cancel(first.id)
        assert first.state == "queued" and not first.cancelled.is_set()
        pool.cancel(first.id)
        assert first.state == "failed" and first.reason == "cancelled" and first not in pool.queue
    finally:
        pool.stop()


def test_a_stopped_pool_ends_every_process_and_removes_every_build(tmp_path):
    pool = Pool(tmp_path / "builds", workers=1).start()
    build = pool.submit(cold_kit(282.9))
    pids = building(pool, build)
    waiting = pool.submit(cold_kit(283.3))
    standby = pool.standby._waiting
    assert standby is not None
    assert pool.stop() == 2
    assert all(gone(pid) for pid in pids) and gone(standby.pid)
    assert build.state == "failed" and waiting.state == "failed"
    assert not (tmp_path / "builds").exists()


def test_finished_builds_are_kept_under_the_limit_the_oldest_evicted_first(tmp_path):
    pool = Pool(tmp_path / "builds", workers=1, keep_bytes=2500)
    try:
        made = []
        for n, length in enumerate((290.0, 291.0, 292.0, 293.0)):
            kit = cold_kit(length)
            folder = tmp_path / "builds" / f"{build_id(kit)}-{n}"
            folder.mkdir(parents=True)
            (folder / "kit.zip").write_bytes(b"z" * 1000)
            build = Build(build_id(kit), kit, folder, state="done", zip=folder / "kit.zip", size=1000,
                          used=float(n))
            pool.builds[build.id] = build
            made.append(build)
        made[0].used = 10.0  # asked for again last: the newest
        pool.evict()
        kept = [b for b in made if b.id in pool.builds]
        assert kept == [made[0], made[3]]
        assert [b.folder.exists() for b in made] == [True, False, False, True]
        assert pool.kept_bytes == 2000
    finally:
        pool.stop()
