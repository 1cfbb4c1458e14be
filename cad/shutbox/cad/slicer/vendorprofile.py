"""A PrusaSlicer vendor profile (print, filament or printer section of a bundle such as
``PrusaResearch.ini``) resolved into one flat set of settings, for ``prusa-slicer --load``.

PrusaSlicer 2.5's command line cannot pick a vendor profile by name; a section names its parents in
``inherits`` (``a; b``), applied in order, then its own keys on top.
"""

from __future__ import annotations

import re
from pathlib import Path

from shutbox.base.errors import ShutboxError

#: Where Debian's (and PrusaSlicer's own Linux build's) vendor bundles are.
VENDOR_DIRS = (Path("/usr/share/PrusaSlicer/profiles"), Path("/usr/local/share/PrusaSlicer/profiles"))
#: Keys of a bundle that only the preset manager reads: not settings of a slice.
NOT_SETTINGS = ("inherits", "renamed_from", "alias", "compatible_printers", "compatible_printers_condition",
                "compatible_prints", "compatible_prints_condition")

_SECTION = re.compile(r"^\[(\w+):(.*)\]\s*$")


def vendor_bundle(vendor: str = "PrusaResearch") -> Path:
    """The vendor bundle's ini, or a one-line error saying where it was looked for."""
    for folder in VENDOR_DIRS:
        if (folder / f"{vendor}.ini").is_file():
            return folder / f"{vendor}.ini"
    raise ShutboxError(f"{vendor}.ini: no PrusaSlicer vendor bundle in {', '.join(map(str, VENDOR_DIRS))}; "
                       "allowed: install PrusaSlicer (apt-get install prusa-slicer)")


def read_sections(bundle: Path) -> dict[tuple[str, str], dict[str, str]]:
    """Every ``[kind:name]`` section of a bundle, its keys as written."""
    sections: dict[tuple[str, str], dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in bundle.read_text(encoding="utf-8").splitlines():
        head = _SECTION.match(line)
        if head:
            current = sections.setdefault((head.group(1), head.group(2).strip()), {})
        elif current is not None and "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            current[key.strip()] = value.strip()
    return sections


def resolve(sections: dict[tuple[str, str], dict[str, str]], kind: str, name: str,
            _seen: tuple[str, ...] = ()) -> dict[str, str]:
    """The flat settings of section ``kind:name``: its parents' (in order), then its own."""
    own = sections.get((kind, name))
    if own is None:
        raise ShutboxError(f"{kind} profile {name!r}: not in the vendor bundle; allowed: a [{kind}:...] section's name")
    if name in _seen:
        raise ShutboxError(f"{kind} profile {name!r}: inherits itself")
    flat: dict[str, str] = {}
    for parent in (p.strip() for p in own.get("inherits", "").split(";")):
        if parent:
            flat.update(resolve(sections, kind, parent, (*_seen, name)))
    flat.update(own)
    return flat


def flat_profile(print_name: str, filament: str, printer: str, bundle: Path | None = None) -> dict[str, str]:
    """Print, filament and printer sections resolved and merged into one set of slicer settings."""
    sections = read_sections(bundle or vendor_bundle())
    merged: dict[str, str] = {}
    for kind, name in (("printer", printer), ("filament", filament), ("print", print_name)):
        merged.update(resolve(sections, kind, name))
    merged.update({"print_settings_id": print_name, "filament_settings_id": filament, "printer_settings_id": printer})
    return {k: v for k, v in merged.items() if k not in NOT_SETTINGS}


def write_ini(settings: dict[str, str], path: Path) -> Path:
    """``settings`` as a PrusaSlicer config file (``key = value`` lines) at ``path``."""
    path.write_text("".join(f"{k} = {v}\n" for k, v in sorted(settings.items())), encoding="utf-8")
    return path
