"""``shutbox studio``: the kit studio, a page that designs a kit (every setting, a live 3D preview, the zip)."""

from __future__ import annotations

import argparse
import sys
import threading

from shutbox.base.bounded import whole_flag
from shutbox.cli.commandspec import Command
from shutbox.kit.model import Kit

#: Where the studio listens unless --web says otherwise.
DEFAULT_WEB = "127.0.0.1:8765"


def run(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.companion.web.scoreboard import parse_web
    from shutbox.studio.server import Studio

    host, port = parse_web(args.web)
    studio = Studio(host, port, workers=args.builds, keep_bytes=args.keep * 1_000_000,
                    held={"cad.cache_limit_mb": kit.cad.cache_limit_mb})
    studio.start()
    try:
        print(f"studio: {studio.url}", flush=True)
        print("Ctrl-C stops it (builds under way are cancelled, every build's files removed)", flush=True)
        forever = threading.Event()
        while not forever.wait(1.0):
            pass
    finally:
        cancelled = studio.stop()
        print(f"studio: stopped ({cancelled} builds cancelled, {studio.refusals} requests refused)",
              file=sys.stderr, flush=True)
    return 0


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web", metavar="[HOST:]PORT", default=DEFAULT_WEB,
                   help=f"serve the studio on PORT (127.0.0.1 unless HOST is given, e.g. 0.0.0.0:8765 for other "
                        f"computers on the network); default {DEFAULT_WEB}")
    p.add_argument("--builds", metavar="N", type=whole_flag("--builds", 1, 8), default=2,
                   help="kits built at once (more wait in a queue); default 2")
    p.add_argument("--keep", metavar="MB", type=whole_flag("--keep", 10, 1_000_000), default=2000,
                   help="space for finished builds (zip and preview), MB; the oldest go first; default 2000")


COMMANDS = (
    Command("studio", "design a kit in a browser: every setting, a live 3D preview, the zip",
            "Serve the kit studio: a page with every kit setting, the box drawn in 3D after each change, and the "
            "whole kit (as `shutbox kit` builds it) as one zip to download. docs/studio.md",
            run, ("cad.cache_limit_mb",), _arguments, extra="cad"),
)
