"""``shutbox firmware build`` and ``shutbox firmware deploy``: the box's MicroPython firmware."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from shutbox.model import Kit


def register(sub: argparse._SubParsersAction, common: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("firmware", help="build or deploy the box firmware",
                       description="The MicroPython firmware that reads the tile switches.")
    inner = p.add_subparsers(dest="firmware_command", metavar="ACTION", required=True, parser_class=type(p))
    build = inner.add_parser(
        "build", parents=common, help="build the firmware bundle and wiring sheet",
        description="Write main.py, the modules compiled to .mpy for the board, the generated pin map "
                    "(boxcfg) and a wiring sheet (wiring.md, wiring.png) into --out.")
    build.add_argument("--out", required=True, type=Path, help="output folder (replaced when complete)")
    build.set_defaults(run=run_build)
    deploy = inner.add_parser(
        "deploy", parents=common, help="copy the firmware to a board with mpremote",
        description="Stop the running firmware, copy the bundle to the board with mpremote and reset it. "
                    "Without --bundle the firmware is built from the settings first.")
    deploy.add_argument("--port", required=True,
                        help="serial port of the board, or 'auto' to find the one Pico (USB 2E8A:0005)")
    deploy.add_argument("--bundle", type=Path, help="a folder written by 'shutbox firmware build'")
    deploy.set_defaults(run=run_deploy)


def run_build(args: argparse.Namespace, kit: Kit) -> int:
    from shutbox.firmware.host.bundle import build_bundle
    from shutbox.firmware.host.plan import pin_map
    from shutbox.output import staged_dir

    pins = pin_map(kit)  # every error is raised before anything is written
    with staged_dir(args.out) as tmp:
        files = build_bundle(kit, tmp, pins)
    used = ", ".join(f"GP{gpio} {role}" for gpio, role in sorted(pins.used_gpios().items()))
    print(f"wrote {len(files)} files to {args.out}/ for a {pins.board.title}: {used}")
    return 0


def run_deploy(args: argparse.Namespace, kit: Kit) -> int:
    from shutbox.firmware.host.bundle import build_bundle
    from shutbox.firmware.host.deploy import choose_port, deploy

    port = choose_port(args.port)
    if args.bundle is not None:
        copied = deploy(args.bundle, port)
    else:
        with tempfile.TemporaryDirectory(prefix="shutbox-firmware-") as tmp:
            build_bundle(kit, Path(tmp))
            copied = deploy(Path(tmp), port)
    print(f"copied {len(copied)} files to {port} and reset the board: {', '.join(copied)}")
    return 0
