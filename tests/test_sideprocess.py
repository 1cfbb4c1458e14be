"""The side process that `cad` and `kit` share their work with."""

from __future__ import annotations

import pytest

from shutbox.base.sideprocess import cpus, side_process
from shutbox.cli.commands.kit import GENERATORS, MAIN_GENERATORS, _generate_all
from shutbox.kit.model import build_kit


def test_one_cpu_or_not_wanted_means_no_side_process(monkeypatch):
    monkeypatch.setenv("SHUTBOX_JOBS", "1")
    assert cpus() == 1
    with side_process() as side:
        assert side is None
    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    with side_process(wanted=False) as side:
        assert side is None


def test_where_no_process_can_be_started_everything_runs_here(monkeypatch):
    import shutbox.base.sideprocess as sideprocess

    def refuse(*args, **kwargs):
        raise OSError(38, "Function not implemented")  # no POSIX semaphores (some containers)

    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    monkeypatch.setattr(sideprocess, "ProcessPoolExecutor", refuse)
    with side_process() as side:
        assert side is None

    class CannotStart:  # made, but its process cannot start (a process limit)
        shut = False

        def __init__(self, *args, **kwargs):
            pass

        def submit(self, *args, **kwargs):
            raise OSError(11, "Resource temporarily unavailable")

        def shutdown(self, wait=True, cancel_futures=False):
            CannotStart.shut = True

    monkeypatch.setattr(sideprocess, "ProcessPoolExecutor", CannotStart)
    with side_process() as side:
        assert side is None
    assert CannotStart.shut


@pytest.mark.slow
def test_kit_generators_write_the_same_files_beside_the_cad_build(monkeypatch, tmp_path):
    monkeypatch.setenv("SHUTBOX_JOBS", "2")
    kit = build_kit({})
    side = [(name, target) for name, target in GENERATORS if name not in MAIN_GENERATORS]
    assert [name for name, _ in side] == ["settings", "scorepad", "card", "firmware", "pcb"]
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    alone = _generate_all(side, kit, str(here))
    with side_process() as pool:
        assert pool is not None
        beside = pool.submit(_generate_all, side, kit, str(there)).result(timeout=600)
    assert beside == alone and all(files for files in alone.values())
    for files in alone.values():
        for rel in files:
            assert (there / rel).stat().st_size > 0 and (here / rel).is_file()


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_side_process_builds_the_small_parts_while_the_box_is_built(cli, tmp_path, monkeypatch, jobs):
    """With a side process, `cad` finds the tiles, dice, cover and gates built there (into a fresh cache) by the
    time it gets to them; without one it builds them itself. The files are the same either way (checked)."""
    monkeypatch.setenv("SHUTBOX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SHUTBOX_JOBS", jobs)
    proc = cli("cad", "--tiles", "10", "--bed", "xl", "--sensors", "none", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[4]: line for line in proc.stderr.splitlines() if line.startswith("shutbox cad [")}
    small = [name for name in lines if name.startswith(("tile-", "die-", "gate-", "electronics"))]
    assert len(small) >= 11 and lines["box"].endswith("s)") and "built in" in lines["box"]
    cached = [name for name in small if lines[name].endswith("(cached)")]
    assert cached == (small if jobs == "2" else [])
    assert "0 failed" in proc.stdout


@pytest.mark.slow
def test_a_side_process_that_died_leaves_the_build_to_the_main_process(tmp_path):
    """Work queued while the build goes (a box piece's files, the assembly checks) into a side process that has
    died is not an error: there is no side process any more, and the folder's check does everything here."""
    from concurrent.futures import Executor
    from concurrent.futures.process import BrokenProcessPool

    from shutbox.cad.build.export import plan
    from shutbox.cad.build.sharedbuild import _Checking

    class Died(Executor):
        def submit(self, fn, /, *args, **kwargs):
            raise BrokenProcessPool("the side process died")

    kit = build_kit({})
    box = next(spec for spec in plan(kit)[2] if spec.kind == "box")
    checking = _Checking(Died(), None, kit.printer.bed_mm)
    checking.part_written(tmp_path, box, ["stl/box.stl"])
    assert checking.side is None
    checking.side = Died()
    checking.assembly_written(tmp_path, {key: [] for key in ("settings", "bed_mm", "split", "parts", "assembly")})
    assert checking.side is None and checking.started is None


def test_the_hollow_tool_is_taken_from_the_side_process_once_or_built_here():
    """`build_box` asks the watcher for the hollow tool: the side process's result once; None (built here) when the
    side process failed at it or was given none."""
    from concurrent.futures import Future

    from shutbox.cad.build.sharedbuild import SideWork, _Checking

    done, failed, parts = Future(), Future(), Future()
    done.set_result("the hollow tool")
    failed.set_exception(RuntimeError("OCCT boolean cut failed"))
    bed = build_kit({}).printer.bed_mm
    checking = _Checking(None, SideWork(done, parts), bed)
    assert checking.box_hollow() == "the hollow tool"
    assert checking.box_hollow() is None  # asked for once: a second box would be built here
    assert _Checking(None, SideWork(failed, parts), bed).box_hollow() is None
    assert _Checking(None, SideWork(None, parts), bed).box_hollow() is None
    assert _Checking(None, None, bed).box_hollow() is None
