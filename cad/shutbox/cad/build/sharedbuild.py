"""The CAD build with its checks, shared with a side process when there is one (``shutbox cad`` and ``kit``).

The main process builds the box pieces; the side process builds the other parts, checks their files, then takes
its share of the assembly checks (docs/architecture.md, "Build machinery"). Imported only when a build runs:
``shutbox`` starts without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.base.errors import ShutboxError
from shutbox.cad.build.export import FORMATS, BuildWatcher
from shutbox.kit.model import Kit, box_refusal

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from shutbox.cad.checks.check import SideChecks
    from shutbox.cad.checks.findings import Finding
    from shutbox.cad.geometry.parts import PartSpec


def refuse_unbuildable(kit: Kit, what: str = "the CAD") -> None:
    """One line, before anything is written, for a tile count the box is not built for (larger sets)."""
    refusal = box_refusal(kit.rules, what)
    if refusal:
        raise ShutboxError(refusal)


@dataclass
class SideWork:
    """What a CAD build gave its side process first (:func:`start_side_build`): the box's hollow tool, when the
    box is to be built, and the parts other than the box pieces (:func:`prepare_side`)."""

    hollow: Future | None
    parts: Future


class _Checking(BuildWatcher):
    """A CAD build shared with a side process when there is one: it builds the box's hollow tool and the parts
    other than the box pieces meanwhile (:class:`SideWork`), and its share of the checks begins as soon as the
    parts and assembly.step are written (:meth:`assembly_written`); the rest follows the build
    (:meth:`findings`)."""

    def __init__(self, side: Executor | None, prepared: SideWork | None, bed: tuple[float, float, float]) -> None:
        self.side = side
        self.hollow = prepared.hollow if prepared is not None else None
        self.prepared = prepared.parts if prepared is not None else None
        self.bed = bed
        self.started: SideChecks | None = None
        self.solids: list[tuple[str, str, Any]] | None = None

    def box_hollow(self) -> Any | None:
        work, self.hollow = self.hollow, None
        if work is None:
            return None
        try:
            return work.result()
        except Exception:  # noqa: BLE001 - built here instead, where a failure is reported
            return None

    def part_wanted(self, spec: PartSpec) -> None:
        if spec.kind != "box" and self.prepared is not None:
            try:
                self.prepared.result()  # then the part is in the cache
            except Exception:  # noqa: BLE001 - built here instead, where a failure is reported
                pass
            self.prepared = None

    def part_written(self, folder: Path, spec: PartSpec, files: list[str]) -> None:
        if self.side is not None and spec.kind == "box":  # the others were checked where they were built
            from shutbox.cad.checks.check import check_files

            self._give(lambda side: side.submit(check_files, str(folder), files, self.bed))

    def assembly_written(self, folder: Path, manifest: dict[str, Any],
                         solids: list[tuple[str, str, Any]] | None = None) -> None:
        self.solids = solids or None  # what assembly.step was written from: this process need not read it back
        if self.side is not None:
            from shutbox.cad.checks.check import start_side_checks

            self.started = self._give(lambda side: start_side_checks(side, folder, manifest, solids))

    def _give(self, submit: Callable[[Executor], Any]) -> Any:
        """Queue work in the side process; if it has died, there is none any more (all is done here)."""
        from concurrent.futures.process import BrokenProcessPool

        assert self.side is not None
        try:
            return submit(self.side)
        except BrokenProcessPool:
            self.side = None
            return None

    def findings(self, folder: Path) -> list[Finding]:
        from shutbox.cad.checks.check import check_folder

        return check_folder(folder, self.side, self.started, self.solids)


def prepare_side(kit: Kit, formats: tuple[str, ...]) -> None:
    """The side process's part of a CAD build before the checks: import them, build all but the box pieces,
    and check those parts' files and the tiles' numbers (under the names the build gives them; remembered by
    content)."""
    import shutil

    from shutbox.cad.build import cache
    from shutbox.cad.build.export import prebuild
    from shutbox.cad.checks.check import check_files, check_tile_number, warm_up
    from shutbox.cad.geometry.layout import layout
    from shutbox.cad.geometry.parts import tile_part_name

    warm_up()
    built = prebuild(kit, formats)
    if not built:  # no cache: nothing built, nothing remembered
        return
    scratch = cache.new_entry_dir()  # in the cache: a killed run's is swept with the other scratch folders
    try:
        files = []
        for name, entry in built:
            for fmt in formats:
                shutil.copyfile(entry / f"part.{fmt}", scratch / f"{name}.{fmt}")
                files.append(f"{name}.{fmt}")
        check_files(str(scratch), files, kit.printer.bed_mm)
        mesh = next((fmt for fmt in ("stl", "3mf") if fmt in formats), None)
        for k in kit.rules.tile_numbers if mesh else ():
            name = tile_part_name(k)
            check_tile_number(scratch / f"{name}.{mesh}", k, name, layout(kit), kit.cad.engrave_depth_mm)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def side_hollow(kit: Kit) -> Any:
    """The box's hollow tool for ``kit`` (in the side process: the main one builds the box's other tools)."""
    from shutbox.cad.build.export import plan
    from shutbox.cad.geometry.box import hollow_tool

    lay, split, _ = plan(kit)
    return hollow_tool(lay, split.xs, split.ys)


def start_side_build(pool: Executor | None, kit: Kit, formats: tuple[str, ...] = FORMATS) -> SideWork | None:
    """Queue the side process's share of a CAD build in ``pool``'s worker: the box's hollow tool when the box is
    to be built, then :func:`prepare_side`. None when there is no worker or the CAD kit is cached already (copied
    from the cache, its checks remembered: nothing to share)."""
    from shutbox.cad.build.export import box_wanted, is_cached

    if pool is None or is_cached(kit):
        return None
    hollow = pool.submit(side_hollow, kit) if box_wanted(kit) else None
    return SideWork(hollow, pool.submit(prepare_side, kit, formats))


def build_checked(kit: Kit, folder: Path, formats: tuple[str, ...], pool: Executor | None,
                  prepared: SideWork | None, progress: bool = True) -> tuple[dict[str, Any], list[Finding]]:
    """The CAD build into ``folder`` and its findings. ``pool``'s worker shares the work only if it was given
    ``prepared`` (:func:`start_side_build`): it builds the small parts, then takes its share of the checks."""
    from shutbox.cad.build.export import build_cad

    watcher = _Checking(pool if prepared is not None else None, prepared, kit.printer.bed_mm)
    manifest = build_cad(kit, folder, formats, progress=progress, watcher=watcher)
    return manifest, watcher.findings(folder)


def write_kit_cad(kit: Kit, folder: Path, pool: Executor | None = None, prepared: SideWork | None = None) -> list[str]:
    """``shutbox kit`` generator: the CAD build into ``folder``, checked; returns the files written. ``pool``,
    ``prepared``: the kit's side process and the CAD work it was given first (:func:`start_side_build`)."""
    from shutbox.cad.build.export import plan

    refuse_unbuildable(kit)
    plan(kit)
    _, findings = build_checked(kit, folder, FORMATS, pool, prepared)
    failed = [f for f in findings if not f.ok]
    if failed:
        raise ShutboxError("CAD check failed: " + "; ".join(f.line() for f in failed))
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
