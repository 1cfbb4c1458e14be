"""A Pico's file system made on the host: a LittleFS image holding given files, as MicroPython's rp2
port (RPI_PICO build) lays it out in flash, and the files read back from one.

Loaded into an emulated board (:class:`~shutbox.firmware.host.emulator.EmulatedPico`), it boots with the
firmware already on it, without the slow copy through the REPL.
"""

from __future__ import annotations

from pathlib import Path

from shutbox.firmware.host.bundle import DEVICE_DIR, read_bundle
from shutbox.firmware.host.emulator import FS_BLOCK_SIZE, FS_BLOCKS, FS_PROG_SIZE


def _filesystem(image: bytes | None = None):  # noqa: ANN202 - littlefs has no stubs
    from littlefs import LittleFS

    fs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=FS_BLOCKS, prog_size=FS_PROG_SIZE, read_size=32,
                  lookahead_size=32, mount=False)
    if image is None:
        fs.format()
    else:
        fs.context.buffer[:] = image
    fs.mount()
    return fs


def image_of(files: dict[str, bytes]) -> bytes:
    """A LittleFS image with ``files`` (name -> content) in its root folder."""
    fs = _filesystem()
    for name, data in sorted(files.items()):
        with fs.open(name, "wb") as out:
            out.write(data)
    fs.unmount()
    return bytes(fs.context.buffer)


def files_of(image: bytes) -> dict[str, bytes]:
    """The files in the root folder of a LittleFS image."""
    fs = _filesystem(image)
    found: dict[str, bytes] = {}
    for name in fs.listdir("/"):
        if fs.stat(name).type == 1:  # a regular file
            with fs.open(name, "rb") as src:
                found[name] = src.read()
    return found


def bundle_image(bundle: Path, target: Path) -> None:
    """Write to ``target`` the image of a board that a deploy of ``bundle`` left behind."""
    manifest = read_bundle(bundle)
    device = Path(bundle) / DEVICE_DIR
    target.write_bytes(image_of({name: (device / name).read_bytes() for name in manifest["device_files"]}))
