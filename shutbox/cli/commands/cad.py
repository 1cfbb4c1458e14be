"""``shutbox cad``: build the printable kit into a folder; ``shutbox cad check DIR``: verify one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import path_text
from shutbox.cli.commandspec import EVERY_SECTION, Command
from shutbox.kit.model import Kit


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, help="output folder (replaced when the build is complete)")
    p.add_argument("--formats", default="stl,3mf,step", help="comma-separated: stl, 3mf, step [default: all three]")
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def _check_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("folder", type=Path, help="folder written by `shutbox cad --out`")
    c.add_argument("--slice", action="store_true", help="also slice every part with PrusaSlicer, support on: "
                   "no support, no bridge over 45 mm")


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.cad.build.sharedbuild import refuse_unbuildable

    refuse_unbuildable(kit)
    from shutbox.cad.build.export import parse_formats, plan

    if args.out is None:
        raise ShutboxError("cad: --out DIR is required (or use `shutbox cad check DIR`)")
    from shutbox.base.output import check_out_folder, out_folder

    check_out_folder(args.out, "cad", "manifest.json", cad_files)  # before the slow imports
    formats = parse_formats(args.formats)
    plan(kit)  # refuse bad combinations before anything is written
    from shutbox.base.sideprocess import side_process
    from shutbox.cad.build.export import is_cached
    from shutbox.cad.build.sharedbuild import build_checked, start_side_build

    with side_process(not is_cached(kit)) as pool, out_folder(args.out, "cad", "manifest.json", cad_files) as tmp:
        # Checked before it is moved into place: the side process's share begins while the previews render.
        prepared = start_side_build(pool, kit, formats)
        manifest, findings = build_checked(kit, tmp, formats, pool, prepared, progress=not args.quiet)
    failed = [f for f in findings if not f.ok]
    for f in failed:
        print(f.line(), file=sys.stderr)
    n_files = sum(len(p["files"]) for p in manifest["parts"])
    extra = ", the two-colour die" if "two_colour" in manifest else ""
    print(f"wrote {len(manifest['parts'])} parts ({n_files} files){extra}, assembly.step and previews to "
          f"{path_text(args.out)}/; "
          f"check: {len(findings) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def check_manifest(folder: Path) -> None:
    """Refuse (one line) a folder whose ``manifest.json`` is not one ``shutbox cad`` writes: bounded JSON, the
    settings as tables, every part and file named by a plain relative path inside the folder."""
    from shutbox.base.bounded import parse_json
    from shutbox.base.text import shown
    from shutbox.base.userfile import read_user_text

    path = Path(folder) / "manifest.json"
    if not path.is_file():
        raise ShutboxError(f"{shown(str(folder), 200)}: no manifest.json; allowed: a folder written by "
                           "`shutbox cad --out`")
    manifest = parse_json(read_user_text(path, "manifest", limit=16 * 1024 * 1024), shown(str(path), 200))
    settings = manifest.get("settings") if isinstance(manifest, dict) else None
    names = cad_files(manifest)
    good = (names is not None and isinstance(settings, dict) and all(isinstance(v, dict) for v in settings.values())
            and all(isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("kind"), str)
                    and type(p.get("quantity")) is int for p in manifest["parts"])
            and isinstance(manifest["assembly"].get("solids"), list)
            and ("two_colour" not in manifest or isinstance(manifest["two_colour"].get("objects"), list)
                 and all(isinstance(x, str) for x in manifest["two_colour"]["objects"]))
            and all(isinstance(x, dict) and isinstance(x.get("name"), str) and isinstance(x.get("kind"), str)
                    for x in manifest["assembly"]["solids"]))
    if not good:
        raise ShutboxError(f"{shown(str(path), 200)}: not a manifest written by `shutbox cad` (its parts, files or "
                           "settings are missing or malformed)")


def cad_files(manifest: Any) -> set[str] | None:
    """The files a CAD folder's ``manifest.json`` says it holds (None: not a CAD manifest)."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("parts"), list):
        return None
    names = {"manifest.json"}
    try:
        for part in manifest["parts"]:
            names.update(part["files"].values())
            names.add(part["preview"])
        names.update(manifest.get("previews", []))
        if not isinstance(manifest["assembly"], dict):
            return None
        names.add(manifest["assembly"]["file"])
        names.add(manifest["build_notes"])
        if "two_colour" in manifest:  # the die for a two-colour print (one 3MF of two objects)
            names.add(manifest["two_colour"]["file"])
        names.update(plate["file"] for plate in manifest.get("plates", []))  # the PrusaSlicer project per bed plate
    except (KeyError, TypeError, AttributeError):
        return None
    plain = all(isinstance(n, str) and n and not n.startswith("/") and ".." not in n.split("/") for n in names)
    return names if plain else None


def run_check(args: argparse.Namespace, kit: Kit | None) -> int:
    check_manifest(args.folder)  # a hand-made or damaged manifest is one line, before CadQuery loads
    from shutbox.base.sideprocess import side_process
    from shutbox.cad.checks.check import check_folder

    with side_process() as pool:
        findings = check_folder(args.folder, pool)
    from shutbox.cad.checks.sensors import check_seated

    findings += check_seated(args.folder)
    if args.slice:
        from shutbox.cad.slicer.sliced import check_sliced

        findings += check_sliced(args.folder)
    for f in findings:
        print(f.line())
    failed = sum(not f.ok for f in findings)
    print(f"checks: {len(findings) - failed} ok, {failed} failed")
    return 1 if failed else 0


#: Every section but the rules' play settings, the scorekeeper's and the firmware wiring: the tile count and the
#: physical kit.
CAD_SETTINGS = ("rules.tiles", "firmware.tile_input",  # the tile input: room for the 74HC165 board in the bay
                *(s for s in EVERY_SECTION if s not in {"rules", "firmware", "play"}))

COMMANDS = (
    Command("cad", "build the printable box, tiles and dice (STL, 3MF, STEP)",
            "Build every printable part for the kit into --out: one file per part per format, assembly.step, PNG "
            "previews, build.md and manifest.json; then check the result. `shutbox cad check DIR` re-checks a "
            "built folder.", run, CAD_SETTINGS, _arguments, action_metavar="[check]", extra="cad", actions=(
                Command("check", "verify a folder built by `shutbox cad`",
                        "Verify meshes, bed fit, assembly interference, clearances and numbers.", run_check, (),
                        _check_arguments, extra="cad"),
            )),
)
