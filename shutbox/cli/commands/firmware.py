"""``shutbox firmware build`` and ``shutbox firmware deploy``: the box's MicroPython firmware."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.base.text import path_text
from shutbox.cli.commands import add_port_argument
from shutbox.cli.commandspec import FIRMWARE_SETTINGS, Command
from shutbox.kit.model import Kit, box_refusal


def _build_arguments(build: argparse.ArgumentParser) -> None:
    build.add_argument("--out", required=True, type=Path, help="output folder (replaced when complete)")


def _deploy_arguments(deploy: argparse.ArgumentParser) -> None:
    add_port_argument(deploy)
    deploy.add_argument("--bundle", type=Path, help="a folder written by 'shutbox firmware build'")


def refuse_unreadable(kit: Kit) -> None:
    """One line for a tile count the box's firmware does not read (larger sets are played without the box)."""
    refusal = box_refusal(kit.rules, "the firmware")
    if refusal:
        raise ShutboxError(refusal)


def run_build(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    refuse_unreadable(kit)
    from shutbox.base.output import out_folder
    from shutbox.firmware.host.bundle import MANIFEST, build_bundle, bundle_files
    from shutbox.firmware.host.plan import pin_map

    pins = pin_map(kit)  # every error is raised before anything is written
    with out_folder(args.out, "firmware build", MANIFEST, bundle_files) as tmp:
        files = build_bundle(kit, tmp, pins)
    used = ", ".join(f"GP{gpio} {role}" for gpio, role in sorted(pins.used_gpios().items()))
    print(f"wrote {len(files)} files to {path_text(args.out)}/ for a {pins.board.title}: {used}")
    return 0


def run_deploy(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    refuse_unreadable(kit)
    from shutbox.firmware.host.bundle import build_bundle
    from shutbox.firmware.host.deploy import choose_port, deploy, wait_for_hello

    port = choose_port(args.port)
    if args.bundle is not None:
        copied = deploy(args.bundle, port)
    else:
        with tempfile.TemporaryDirectory(prefix="shutbox-firmware-") as tmp:
            build_bundle(kit, Path(tmp))
            copied = deploy(Path(tmp), port)
    print(f"copied {len(copied)} files to {port} and reset the board: {', '.join(copied)}", flush=True)
    hello = wait_for_hello(port)
    if hello is None:
        raise ShutboxError(f"--port {port}: the board did not come back with the shutbox firmware after its reset; "
                           "unplug it, plug it back in and check with 'shutbox monitor'")
    print(f"the box is running: firmware {hello.firmware}, {hello.tiles} tiles, board {hello.board}, "
          f"input {hello.tile_input}")
    return 0


COMMANDS = (
    Command("firmware", "build or deploy the box firmware", "The MicroPython firmware that reads the tile switches.",
            actions=(
                Command("build", "build the firmware bundle and wiring sheet",
                        "Write main.py, the modules compiled to .mpy for the board, the generated pin map (boxcfg) "
                        "and a wiring sheet (wiring.md, wiring.png) into --out.", run_build, FIRMWARE_SETTINGS,
                        _build_arguments),
                Command("deploy", "copy the firmware to a board with mpremote",
                        "Stop the running firmware, copy the bundle to the board with mpremote and reset it. "
                        "Without --bundle the firmware is built from the settings first.", run_deploy,
                        FIRMWARE_SETTINGS, _deploy_arguments),
            )),
)
