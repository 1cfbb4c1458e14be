"""``shutbox dice IMAGE... [--json] [--annotate OUT.png]``: the dice a picture shows, read by the camera reader."""

from __future__ import annotations

import argparse
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.cli.commandspec import Command
from shutbox.kit.model import Kit

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("images", nargs="+", type=Path, metavar="IMAGE", help="a picture of the dice (JPEG, PNG, BMP, "
                   "WebP or TIFF)")
    p.add_argument("--json", action="store_true", help='print one JSON object per picture: {"dice": [values], '
                   '"unsure": N}')
    p.add_argument("--annotate", type=Path, metavar="OUT.png", help="also write the picture with each die's box and "
                   "value drawn (one IMAGE)")


def check_annotate(path: Path, images: int) -> None:
    """Refuse an --annotate path that is not a new or earlier PNG, or one picture drawn for many."""
    name = f"--annotate {shown(str(path), 200)}"
    if images != 1:
        raise ShutboxError(f"{name}: draws one picture; give one IMAGE ({images} given)")
    if path.suffix.lower() != ".png":
        raise ShutboxError(f"{name}: the drawing is a PNG; give a name ending in .png")
    if path.is_dir():
        raise ShutboxError(f"{name}: is a folder; give the name of a .png file to write")
    if path.exists():
        try:
            with open(path, "rb") as f:
                head = f.read(len(PNG_MAGIC))
        except OSError as exc:
            raise ShutboxError(f"{name}: cannot be read to check it ({exc.strerror or exc})") from None
        if head != PNG_MAGIC:
            raise ShutboxError(f"{name}: exists and is not a PNG; not overwritten (choose another name)")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ShutboxError(f"{name}: folder {shown(str(parent), 200)} does not exist")


def run_dice(args: argparse.Namespace, kit: Kit | None) -> int:
    import json

    from shutbox.dice.imagefile import read_image
    from shutbox.dice.reader import read_dice

    if args.annotate is not None:
        check_annotate(args.annotate, len(args.images))
    pictures = [(path, read_image(path)) for path in args.images]  # every file checked before any is read
    for path, image in pictures:
        reading = read_dice(image)
        if args.json:
            print(json.dumps(reading.as_dict()))
        else:
            values = " ".join(str(v) for v in reading.values) or "no dice read"
            unsure = f" ({len(reading.unsure)} unsure)" if reading.unsure else ""
            print(f"{shown(str(path), 200)}: {values}{unsure}")
        if args.annotate is not None:
            write_annotated(args.annotate, image, reading)
    return 0


def write_annotated(path: Path, image: object, reading: object) -> None:
    import cv2

    from shutbox.base.output import out_file
    from shutbox.dice.annotate import annotate

    ok, data = cv2.imencode(".png", annotate(image, reading))  # type: ignore[arg-type]
    if not ok:
        raise ShutboxError(f"--annotate {shown(str(path), 200)}: the drawing could not be encoded")
    with out_file(path, "--annotate") as tmp:
        tmp.write_bytes(data.tobytes())


COMMANDS = (
    Command("dice", "read the dice in pictures (the camera's reader)",
            "Read the top face of each die in each picture: the values it is sure of, and how many dice it saw "
            "but will not vouch for (unsure; never guessed). Ordinary dice and the kit's, any table, from above or "
            "at an angle. See docs/dice.md.",
            run_dice, (), _arguments),
)
