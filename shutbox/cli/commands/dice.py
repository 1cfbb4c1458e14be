"""``shutbox dice IMAGE... [--json] [--annotate OUT.png]``: the dice a picture shows, read by the camera reader;
``shutbox dice --listen SOURCE [--json] [--dice N] [--record FILE]``: the throws of smart dice, one line each."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.cli.commandspec import Command
from shutbox.kit.model import BOX_DICE, Kit

#: Most dice ``--listen`` connects.
MAX_LISTEN_DICE = 12


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("images", nargs="*", metavar="IMAGE", help="a picture of the dice (JPEG, PNG, BMP, WebP or TIFF)")
    p.add_argument("--json", action="store_true", help='print one JSON object per picture: {"dice": [values], '
                   '"unsure": N}; with --listen, per throw: {"dice": [values], "source": "godice"}')
    p.add_argument("--annotate", metavar="OUT.png", help="also write the picture with each die's box and "
                   "value drawn (one IMAGE; a new file, or a drawing this command wrote before)")
    p.add_argument("--listen", metavar="SOURCE", help="instead of pictures, the throws of smart dice over Bluetooth, "
                   "one line each until Ctrl-C: godice or pixels (the first dice of that make found), "
                   "godice:NAME1,NAME2 (these dice, by name or address), or replay:FILE (a recording; ends with it). "
                   "docs/smartdice.md")
    p.add_argument("--dice", metavar="N", help=f"with --listen: dice in a throw [default {BOX_DICE}, the kit's; the "
                   "number of names given]")
    p.add_argument("--record", type=Path, metavar="FILE", help="with --listen: also write everything the dice said "
                   "to FILE, a replay (JSON lines) for replay:FILE or a bug report; never replaces a file")


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

    if args.listen is not None:
        return run_listen(args)
    for flag, value in (("--dice", args.dice), ("--record", args.record)):
        if value is not None:
            raise ShutboxError(f"{flag} {shown(str(value), 200)}: only with --listen SOURCE (smart dice)")
    if not args.images:
        raise ShutboxError("give a picture of the dice (IMAGE), or --listen SOURCE for smart dice")

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


def listen_count(args: argparse.Namespace, names: tuple[str, ...]) -> int:
    """The dice in a throw: ``--dice N``, else the number of names given, else the kit's."""
    from shutbox.base.bounded import whole_within

    if args.dice is None:
        return len(names) or BOX_DICE
    count = whole_within(args.dice, "--dice", 1, MAX_LISTEN_DICE)
    if names and count != len(names):
        raise ShutboxError(f"--dice {count}: {len(names)} dice are named in --listen {shown(args.listen, 200)}; give "
                           f"--dice {len(names)} or leave it out")
    return count


def run_listen(args: argparse.Namespace) -> int:
    """``--listen SOURCE``: print each throw until the source ends (a replay) or Ctrl-C."""
    import json
    import sys

    from shutbox.companion.live.smartdice import check_record, recording
    from shutbox.dice.ble.protocol import PROTOCOLS
    from shutbox.dice.ble.radio import radio_refusal
    from shutbox.dice.ble.source import DiceFeed, parse_source
    from shutbox.dice.ble.throws import Seen, Showing, Thrown

    if args.images or args.annotate is not None:
        raise ShutboxError("--listen SOURCE reads smart dice, not pictures: give IMAGE or --listen, not both")
    source = parse_source(args.listen, "--listen")
    count = listen_count(args, source.names)
    check_record(args.record)
    refusal = radio_refusal(PROTOCOLS[source.kind]) if source.live else None
    if refusal is not None:  # before anything is written
        raise ShutboxError(refusal)

    def say(seen: Seen) -> None:
        if isinstance(seen, Thrown):
            line = json.dumps({"dice": list(seen.dice), "source": seen.protocol}) if args.json else \
                f"{seen.protocol}: {' '.join(map(str, seen.dice))}"
            print(line, flush=True)
        elif not isinstance(seen, Showing):
            print(seen.text, file=sys.stderr, flush=True)

    with recording(args.record) as record:
        feed = DiceFeed(source, count, say, expected=count, record=record)  # a replay is read (and checked) here
        if source.live:
            print(f"listening for {count} {source.kind} dice (Ctrl-C ends)", file=sys.stderr, flush=True)
        feed.run()
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
