"""``shutbox cad``'s build: every part in every format, assembly.step, previews and manifest.json."""

from __future__ import annotations

import errno
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.progress import StepLines
from shutbox.base.version import __version__
from shutbox.cad.build import cache
from shutbox.cad.geometry.layout import Layout, layout
from shutbox.cad.geometry.parts import Builder, PartSpec, part_specs
from shutbox.cad.geometry.split import SplitPlan, fits, plan_split
from shutbox.kit.model import BED_PRESETS, Kit, kit_as_dict

FORMATS = ("stl", "3mf", "step")


def parse_formats(text: str) -> tuple[str, ...]:
    """``stl,3mf,step`` -> a tuple of known formats in that order; refuse anything else."""
    items = [t.strip().lower() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in FORMATS]
    if bad or not items:
        raise ShutboxError(f"--formats {text}: allowed: a comma-separated list of {', '.join(FORMATS)}")
    return tuple(dict.fromkeys(items))


def plan(kit: Kit) -> tuple[Layout, SplitPlan, list[PartSpec]]:
    """Everything decided before geometry: dimensions, the split and the part list (or a ShutboxError)."""
    lay = layout(kit)
    s = kit.dice.size_mm
    if fits((s, s, s), kit.printer.bed_mm) is None:
        raise ShutboxError(f"--bed {kit.printer.bed}: smaller than a die ({s:g} x {s:g} x {s:g} mm); "
                           f"allowed: a bed that holds the box pieces, e.g. {', '.join(BED_PRESETS)}")
    split = plan_split(lay, kit.printer.bed_mm)
    return lay, split, part_specs(kit, lay, split)


def occt_write(path: Path, write: Callable[[str], object]) -> None:
    """``write(str(path))`` by OpenCASCADE, whose failure to write a file is a RuntimeError (``std::bad_cast`` on a
    full disk) or only a false status: made an OSError naming ``path``, so the output is reported as not written."""
    try:
        status = write(str(path))
        failed = None if status is not False and path.is_file() and path.stat().st_size > 0 else "no file"
    except RuntimeError as exc:
        failed = str(exc)
    if failed is not None:
        try:
            full = os.statvfs(path.parent).f_bavail * os.statvfs(path.parent).f_frsize < 1024 * 1024
        except OSError:
            full = False
        if full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        raise OSError(errno.EIO, f"OpenCASCADE could not write it ({failed})", str(path))


def _entry(builder: Builder, spec: PartSpec, formats: tuple[str, ...], kit: Kit) -> tuple[Path, bool]:
    """The cache entry holding ``spec``'s files in ``formats``: looked up, completed or built."""
    key = cache.part_key(spec.name, spec.inputs)
    entry = cache.lookup(key)  # verified: a damaged entry is gone and gets rebuilt
    if entry is not None and all((entry / f"part.{f}").is_file() for f in formats):
        return entry, True
    import cadquery as cq  # only now: a kit found whole in the cache loads no CAD library

    from shutbox.cad.geometry.mesh import tessellate, write_mesh
    from shutbox.cad.guide.preview import render

    folder = cache.new_entry_dir()
    if entry is not None:  # same part, another format asked for: reuse the solids
        for item in entry.iterdir():
            if item.is_file() and item.name != cache.ENTRY:
                shutil.copy2(item, folder / item.name)
        printed = cq.Shape.importBrep(str(folder / "print.brep"))
    else:
        printed = builder.build(spec)
        occt_write(folder / "print.brep", printed.exportBrep)
    mesh = tessellate(printed, kit.cad.chord_tolerance_mm, kit.cad.angular_tolerance_deg)
    for fmt in formats:
        target = folder / f"part.{fmt}"
        if target.exists():
            continue
        if fmt == "step":
            occt_write(target, printed.exportStep)
        else:
            write_mesh(mesh, target)
    if not (folder / "preview.png").exists():
        render([(mesh, spec.colour)], folder / "preview.png", size=500)
    lo, hi = mesh.bounds
    info = {"name": spec.name, "bbox_mm": [round(float(v), 3) for v in hi - lo], "copies": spec.quantity}
    cache.seal(folder, info)
    return cache.store(key, folder), False


#: The die for a two-colour print: one 3MF of two objects, the body and the pips (:mod:`shutbox.cad.geometry.dice`).
TWO_COLOUR_FILE = "3mf/die-two-colour.3mf"
TWO_COLOUR_OBJECTS = ("die", "pips")


def _two_colour(kit: Kit, folder: Path, used: set[Path]) -> dict[str, Any]:
    """Write the two-colour die's 3MF into ``folder`` (built, or from the cache); its manifest entry."""
    mesh = (kit.cad.chord_tolerance_mm, kit.cad.angular_tolerance_deg)
    key = cache.part_key("die-two-colour", {"size_mm": kit.dice.size_mm, "mesh": list(mesh)})
    entry = cache.lookup(key)
    if entry is None or not (entry / "part.3mf").is_file():
        from shutbox.cad.geometry.dice import write_two_colour_3mf  # CadQuery: only when it is to be built

        scratch = cache.new_entry_dir()
        write_two_colour_3mf(kit.dice.size_mm, scratch / "part.3mf", *mesh)
        cache.seal(scratch, {"name": "die-two-colour", "objects": list(TWO_COLOUR_OBJECTS)})
        entry = cache.store(key, scratch)
    shutil.copy2(entry / "part.3mf", folder / TWO_COLOUR_FILE)
    if cache.is_cached(entry):
        used.add(entry)
    else:
        shutil.rmtree(entry, ignore_errors=True)
    return {"file": TWO_COLOUR_FILE, "objects": list(TWO_COLOUR_OBJECTS)}


def cache_inputs(kit: Kit) -> dict[str, Any]:
    """Every setting, less the ones that change no output (the cache's own size limit, the scorekeeper's)."""
    data = {k: v for k, v in kit_as_dict(kit).items() if k != "play"}
    return {**data, "cad": {k: v for k, v in data["cad"].items() if k != "cache_limit_mb"}}


def _assembly(placed: list[tuple[str, PartSpec, Any]], lay: Layout, split: SplitPlan, kit_key: str,
              kit_entry: Path | None, folder: Path, written: Callable[[], object]) -> tuple[list[str], Path]:
    """assembly.step into ``folder`` (then ``written()``), and the kit previews, built or from the cache entry;
    returns the previews' names and the entry holding them."""
    if kit_entry is not None:
        shutil.copy2(kit_entry / "assembly.step", folder / "assembly.step")
        written()
        return json.loads((kit_entry / cache.ENTRY).read_text(encoding="utf-8"))["views"], kit_entry
    import cadquery as cq

    from shutbox.cad.guide.preview import kit_previews

    scratch = cache.new_entry_dir()
    assy = cq.Assembly(name="shutbox")
    for label, spec, solid in placed:
        r, g, b = spec.colour
        assy.add(solid, name=label, color=cq.Color(r / 255, g / 255, b / 255))
    occt_write(scratch / "assembly.step", assy.export)
    shutil.copy2(scratch / "assembly.step", folder / "assembly.step")
    written()
    views = kit_previews(placed, lay, scratch, split=len(split.pieces) > 1)
    cache.seal(scratch, {"name": "kit", "views": views})
    return views, cache.store(kit_key, scratch)


def kit_cache_key(kit: Kit, specs: list[PartSpec]) -> str:
    """The cache key of the assembly and the kit's previews: everything they show."""
    return cache.part_key("kit", {"settings": cache_inputs(kit), "parts": [cache.part_key(s.name, s.inputs)
                                                                           for s in specs]})


def box_wanted(kit: Kit) -> bool:
    """Whether a build of ``kit`` builds the one-piece box: a box piece is not in the cache."""
    return any(cache.lookup(cache.part_key(spec.name, spec.inputs)) is None for spec in plan(kit)[2]
               if spec.kind == "box")


def is_cached(kit: Kit) -> bool:
    """Whether the cache holds this kit's assembly (so an unchanged rebuild copies rather than builds)."""
    return cache.lookup(kit_cache_key(kit, plan(kit)[2])) is not None


def prebuild(kit: Kit, formats: tuple[str, ...] = FORMATS) -> list[tuple[str, Path]]:
    """Build every part but the box pieces into the cache (run in a side process while the main one builds
    the box pieces: its build then finds them there); returns each part's name and cache entry. Nothing
    without a cache."""
    if cache.cache_root() is None:
        return []
    lay, split, specs = plan(kit)
    builder = Builder(kit, lay, split)
    return [(spec.name, _entry(builder, spec, formats, kit)[0]) for spec in specs if spec.kind != "box"]


def _import_brep(path: Path) -> Any:
    import cadquery as cq

    return cq.Shape.importBrep(str(path))


class BuildWatcher:
    """Told as the build goes (its checks can begin early, parts can be built elsewhere); does nothing itself."""

    def part_wanted(self, spec: PartSpec) -> None:
        """``spec`` is about to be looked up in the cache, or built."""

    def part_written(self, folder: Path, spec: PartSpec, files: list[str]) -> None:
        """``spec``'s files (paths relative to ``folder``) are complete."""

    def assembly_written(self, folder: Path, manifest: dict[str, Any],
                         solids: list[tuple[str, str, Any]] | None = None) -> None:
        """Every part and assembly.step are complete; ``manifest`` is the one to be written, previews aside;
        ``solids``: the (label, kind, solid) written into assembly.step, when they were built here."""

    def box_hollow(self) -> Any | None:
        """The box's hollow tool (:func:`shutbox.cad.geometry.box.hollow_tool`) if it was built elsewhere; None: build
        it
        here."""
        return None


def build_cad(kit: Kit, folder: Path, formats: tuple[str, ...] = FORMATS, progress: bool = True,
              watcher: BuildWatcher | None = None) -> dict[str, Any]:
    """Write the whole CAD kit into ``folder`` (which must exist and be empty); return the manifest.

    ``watcher`` hears of it as soon as the parts and assembly.step are written, while the previews are still to
    render.
    """
    watch = watcher or BuildWatcher()
    lay, split, specs = plan(kit)
    from shutbox.cad.guide.buildnotes import build_notes

    steps = StepLines("shutbox cad", len(specs) + 3, progress)
    builder = Builder(kit, lay, split, watch.box_hollow)
    parts: list[dict[str, Any]] = []
    placed: list[tuple[str, PartSpec, Any]] = []  # (label, spec, cq.Shape)
    labels: list[str] = []
    label_specs: list[PartSpec] = []
    used: set[Path] = set()
    kit_key = kit_cache_key(kit, specs)
    kit_entry = cache.lookup(kit_key)
    kit_hit = kit_entry is not None
    (folder / "preview").mkdir()
    for fmt in formats:
        (folder / fmt).mkdir()
    for spec in specs:
        t0 = time.perf_counter()
        watch.part_wanted(spec)
        entry, hit = _entry(builder, spec, formats, kit)
        files = {}
        for fmt in formats:
            rel = f"{fmt}/{spec.name}.{fmt}"
            shutil.copy2(entry / f"part.{fmt}", folder / rel)
            files[fmt] = rel
        shutil.copy2(entry / "preview.png", folder / "preview" / f"{spec.name}.png")
        watch.part_written(folder, spec, list(files.values()))
        info = json.loads((entry / cache.ENTRY).read_text(encoding="utf-8"))
        solids = [] if kit_entry is not None else builder.place(spec, _import_brep(entry / "print.brep"))
        if cache.is_cached(entry):
            used.add(entry)
        else:  # caching off (or the entry could not be stored): a scratch folder
            shutil.rmtree(entry, ignore_errors=True)
        parts.append({
            "name": spec.name, "kind": spec.kind, "quantity": spec.quantity, "files": files,
            "bbox_mm": info["bbox_mm"], "preview": f"preview/{spec.name}.png",
            "print": spec.print_settings.as_dict(),
        })
        for i, solid in enumerate(solids):
            label = spec.name if spec.quantity == 1 else f"{spec.name}-{i + 1}"
            placed.append((label, spec, solid))
        labels += [spec.name if spec.quantity == 1 else f"{spec.name}-{i + 1}" for i in range(spec.quantity)]
        label_specs += [spec] * spec.quantity
        steps.step(f"{spec.name} ({'cached' if hit else f'built in {time.perf_counter() - t0:.1f}s'})")
    two_colour = _two_colour(kit, folder, used) if "3mf" in formats else None
    from shutbox.cad.slicer.project3mf import write_projects  # numpy: not for a command refused before the build

    plates = write_projects(folder, parts, specs, kit.printer.bed_mm) if {"stl", "3mf"} & set(formats) else []
    manifest: dict[str, Any] = {
        "shutbox_version": __version__,
        "settings": kit_as_dict(kit),
        "bed_mm": list(kit.printer.bed_mm),
        "formats": list(formats),
        "mesh": {"chord_tolerance_mm": kit.cad.chord_tolerance_mm,
                 "angular_tolerance_deg": kit.cad.angular_tolerance_deg},
        "split": {"pieces": len(split.pieces), "cuts_x_mm": [round(x, 3) for x in split.xs],
                  "cuts_y_mm": [round(y, 3) for y in split.ys], "keys": len(split.keys)},
        "parts": parts,
        "assembly": {"file": "assembly.step", "solids": [{"name": label, "part": spec.name, "kind": spec.kind}
                                                         for label, spec in zip(labels, label_specs, strict=True)]},
        "previews": [],
        "build_notes": "build.md",
        "plates": plates,
    }
    if two_colour is not None:
        manifest["two_colour"] = two_colour
    written = [(label, spec.kind, solid) for label, spec, solid in placed]
    views, kit_entry = _assembly(placed, lay, split, kit_key, kit_entry, folder,
                                 lambda: watch.assembly_written(folder, manifest, written))
    for name in views:
        shutil.copy2(kit_entry / name, folder / "preview" / name)
    if cache.is_cached(kit_entry):
        used.add(kit_entry)
    else:
        shutil.rmtree(kit_entry, ignore_errors=True)
    steps.step("assembly.step and kit previews" + (" (cached)" if kit_hit else ""))
    (folder / "build.md").write_text(build_notes(kit, lay, split, specs), encoding="utf-8")
    steps.step("build notes")
    manifest["previews"] = [f"preview/{name}" for name in views] + [p["preview"] for p in parts]
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    steps.step("manifest.json")
    cache.prune(kit.cad.cache_limit_mb * 1_000_000, keep=used)
    return manifest
