"""``shutbox dice IMAGE... [--json] [--annotate OUT.png]``: the dice a picture shows, read by the camera reader."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.cli.commandspec import Command
from shutbox.kit.model import Kit


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("images", nargs="+", metavar="IMAGE", help="a picture of the dice (JPEG, PNG, BMP, WebP or TIFF)")
    p.add_argument("--json", action="store_true", help='print one JSON object per picture: {"dice": [values], '
                   '"unsure": N}')
    p.add_argument("--annotate", metavar="OUT.png", help="also write the picture with each die's box and "
                   "value drawn (one IMAGE; a new file, or a drawing this command wrote before)")


def check_annotate(path: str, images: list[str]) -> None:
    """Refuse an --annotate path that is not a new file or an earlier drawing of this command (never a picture read,
    never a PNG of the user's, never a pipe), or one picture drawn for many."""
    name = f"--annotate {shown(path, 200)}"
    if not path:
        raise ShutboxError("--annotate '': an empty name; give the name of a .png file to write")
    if len(images) != 1:
        raise ShutboxError(f"{name}: draws one picture; give one IMAGE ({len(images)} given)")
    if Path(path).suffix.lower() != ".png":
        raise ShutboxError(f"{name}: the drawing is a PNG; give a name ending in .png")
    if os.path.isdir(path):
        raise ShutboxError(f"{name}: is a folder; give the name of a .png file to write")
    if os.path.exists(path):
        _check_replaceable(path, name, images)
    parent = Path(path).parent
    if not parent.is_dir():
        raise ShutboxError(f"{name}: folder {shown(str(parent), 200)} does not exist")


def _check_replaceable(path: str, name: str, images: list[str]) -> None:
    """An existing --annotate file may be replaced only if it is a regular file this command drew, not a picture."""
    from shutbox.dice.annotate import HEAD_BYTES, is_drawing

    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ShutboxError(f"{name}: is not a regular file (a pipe, a socket or a device); give a file name")
    for image in images:
        if os.path.exists(image) and os.path.samefile(path, image):
            raise ShutboxError(f"{name}: is the picture being read; the drawing never replaces it (choose another "
                               "name)")
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as exc:
        raise ShutboxError(f"{name}: cannot be read to check it ({exc.strerror or exc})") from None
    if not is_drawing(head):
        raise ShutboxError(f"{name}: exists and is not a drawing this command wrote; not overwritten (choose another "
                           "name)")


def run_dice(args: argparse.Namespace, kit: Kit | None) -> int:
    import json

    from shutbox.dice.imagefile import check_picture_file, read_image
    from shutbox.dice.reader import read_dice

    if args.annotate is not None:
        check_annotate(args.annotate, args.images)
    for path in args.images:  # every name checked before any picture is read
        check_picture_file(path)
    for path in args.images:  # one picture decoded at a time: a few 48-megapixel photos need not fit together
        image = read_image(path)
        reading = read_dice(image)
        if args.json:
            print(json.dumps(reading.as_dict()), flush=True)
        else:
            values = " ".join(str(v) for v in reading.values) or "no dice read"
            unsure = f" ({len(reading.unsure)} unsure)" if reading.unsure else ""
            print(f"{shown(path, 200)}: {values}{unsure}", flush=True)
        if args.annotate is not None:
            write_annotated(Path(args.annotate), image, reading)
        del image
    return 0


def write_annotated(path: Path, image: object, reading: object) -> None:
    from shutbox.base.output import out_file
    from shutbox.dice.annotate import annotated_png

    data = annotated_png(image, reading)  # type: ignore[arg-type]
    if data is None:
        raise ShutboxError(f"--annotate {shown(str(path), 200)}: the drawing could not be encoded")
    with out_file(path, "--annotate") as tmp:
        tmp.write_bytes(data)


COMMANDS = (
    Command("dice", "read the dice in pictures (the camera's reader)",
            "Read the top face of each die in each picture: the values it is sure of, and how many dice it saw "
            "but will not vouch for (unsure; never guessed). Ordinary dice and the kit's, any table, from above or "
            "at an angle. See docs/dice.md.",
            run_dice, (), _arguments),
)
