"""``shutbox kit``: build every generator's output for one kit into one folder, with a manifest."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.output import out_folder
from shutbox.base.text import path_text
from shutbox.base.version import __version__
from shutbox.cli.commandspec import EVERY_SECTION, Command
from shutbox.kit.config import kit_to_toml
from shutbox.kit.model import Kit, box_refusal, kit_as_dict

#: (name, "module:function"); each function takes (kit, folder) and returns the files it wrote,
#: relative to that folder. Modules are imported only when the kit is built.
GENERATORS: list[tuple[str, str]] = [
    ("settings", "shutbox.cli.commands.kit:write_settings"),
    ("scorepad", "shutbox.print.blank:write_kit_pads"),
    ("card", "shutbox.print.card:write_kit_cards"),
    ("firmware", "shutbox.firmware.host.bundle:write_bundle"),
    ("pcb", "shutbox.cad.board.folder:write_kit_board"),
    ("cad", "shutbox.cad.build.sharedbuild:write_kit_cad"),
]


#: Generators run in this process; the others may run in a side process meanwhile.
MAIN_GENERATORS = ("cad",)


def _generate(name: str, target: str, kit: Kit, tmp: Path, **extra: Any) -> list[str]:
    """Run one generator into its place under ``tmp``; the files it wrote, relative to ``tmp``."""
    module, func = target.split(":")
    sub = tmp / name if name != "settings" else tmp
    sub.mkdir(parents=True, exist_ok=True)
    files = getattr(importlib.import_module(module), func)(kit, sub, **extra)
    return [str((sub / f).relative_to(tmp)) for f in files]


def _generate_all(generators: list[tuple[str, str]], kit: Kit, tmp: str) -> dict[str, list[str]]:
    return {name: _generate(name, target, kit, Path(tmp)) for name, target in generators}


def write_settings(kit: Kit, folder: Path) -> list[str]:
    """The resolved settings as ``shutbox.toml``, so the kit can be rebuilt exactly."""
    (folder / "shutbox.toml").write_text(kit_to_toml(kit), encoding="utf-8")
    return ["shutbox.toml"]


def kit_files(manifest: Any) -> set[str] | None:
    """The files a kit folder's ``manifest.json`` says it holds (None: not a kit manifest)."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("generators"), dict):
        return None
    files = manifest.get("files")
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return {*files, "manifest.json"}


def build_kit_folder(kit: Kit, out: Path, progress: bool = True) -> dict[str, Any]:
    """Run every generator into a staged folder, write ``manifest.json``, move it to ``out``."""
    refusal = box_refusal(kit.rules, "the kit (box, firmware and dice)", dice=True)
    if refusal:  # larger sets are played without the box: refuse before anything is written
        raise ShutboxError(refusal)
    manifest: dict[str, Any] = {
        "shutbox_version": __version__,
        "settings": kit_as_dict(kit),
        "generators": {},
        "files": [],
    }
    from concurrent.futures.process import BrokenProcessPool

    from shutbox.base.sideprocess import side_process

    with out_folder(out, "kit", "manifest.json", kit_files) as tmp, side_process() as pool:
        # The CAD build is most of the time: its worker's share goes first, the other generators run after it
        # in the worker, beside the CAD build here.
        from shutbox.cad.build.sharedbuild import start_side_build

        prepared = start_side_build(pool, kit)
        side = [(name, target) for name, target in GENERATORS if name not in MAIN_GENERATORS] if pool else []
        later = pool.submit(_generate_all, side, kit, str(tmp)) if pool else None
        if later is not None and progress:
            print(f"shutbox kit: {', '.join(name for name, _ in side)} … (alongside)", file=sys.stderr, flush=True)
        written: dict[str, list[str]] = {}
        for name, target in GENERATORS:
            if (name, target) in side:
                continue
            if progress:
                print(f"shutbox kit: {name} …", file=sys.stderr, flush=True)
            extra = {"pool": pool, "prepared": prepared} if name == "cad" else {}
            written[name] = _generate(name, target, kit, tmp, **extra)
        if later is not None:
            try:
                written.update(later.result())
            except BrokenProcessPool:  # the side process died: run its generators here
                written.update(_generate_all(side, kit, str(tmp)))
        for name, _ in GENERATORS:
            manifest["generators"][name] = {"files": written[name]}
            manifest["files"].extend(written[name])
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    manifest = build_kit_folder(kit, args.out)
    out = path_text(args.out)
    print(f"wrote {len(manifest['files'])} files to {out}/ (listed in {out}/manifest.json)")
    print(f"next: the build guide {out}/cad/build.md; no box yet? watch a game: {invoked_as()} sim --demo")
    return 0


def invoked_as() -> str:
    """How to type ``shutbox`` again: ``shutbox`` when that is on the PATH, else the path it was run by
    (``make kit`` runs ``.venv/bin/shutbox``)."""
    import os
    import shutil

    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) != "shutbox":  # python -m shutbox, or embedded
        return "shutbox"
    found = shutil.which("shutbox")
    if found is not None and os.path.realpath(found) == os.path.realpath(argv0):
        return "shutbox"
    relative = os.path.relpath(argv0)
    return argv0 if relative.startswith("..") else relative


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, type=Path, help="output folder (replaced when complete)")


COMMANDS = (
    Command("kit", "build the whole kit into a folder",
            "Build the whole kit (every generator) into --out with a manifest.json.", run, EVERY_SECTION, _arguments,
            extra="cad"),
)
