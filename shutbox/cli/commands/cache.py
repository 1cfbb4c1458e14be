"""``shutbox cache info``: each cache's folder, entries and size; ``shutbox cache clear``: remove their files."""

from __future__ import annotations

import argparse
import os

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.cli.commandspec import Command
from shutbox.kit.model import Kit


def _size(n: int) -> str:
    """Bytes as people read them: ``0 B``, ``812 kB``, ``1.4 MB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}" if n < 10 * scale else f"{n / scale:.0f} {unit}"
    return f"{n} B"


def _names(args: argparse.Namespace) -> list[str]:
    from shutbox.base.caches import CACHES

    if args.name is None:
        return list(CACHES)
    if args.name not in CACHES:
        raise ShutboxError(f"cache {shown(args.name, 60)}: unknown; allowed: {', '.join(CACHES)}")
    return [args.name]


def run_info(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.base.caches import CACHES, ENV, made_with, root, usage

    top = root()
    if top is None:
        print(f"caching is off ({ENV}={shown(os.environ.get(ENV, ''), 60)})")
        return 0
    names = _names(args)
    print(f"caches in {shown(str(top), 200)}")
    total = 0
    for name in names:
        entries, size = usage(name)
        total += size
        count = f"{entries} {'entry' if entries == 1 else 'entries'}"
        print(f"  {name:8} {count:>12} {_size(size):>9}  {shown(str(CACHES[name].folder()), 200)}")
        print(f"  {'':8} {CACHES[name].holds}; made with {made_with(name)}")
    if len(names) > 1:
        print(f"  {'total':8} {'':12} {_size(total):>9}")
    return 0


def run_clear(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.base.caches import ENV, clear, root

    if root() is None:
        print(f"caching is off ({ENV}): nothing to clear")
        return 0
    removed = freed = 0
    for name in _names(args):
        entries, size = clear(name)
        removed += entries
        freed += size
    print(f"cleared {removed} {'entry' if removed == 1 else 'entries'} ({_size(freed)})")
    return 0


def _name_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help="one cache: solver, cad or reviews [default: all]")


COMMANDS = (
    Command("cache", "list or clear the caches (solver values, CAD parts, reviews)",
            "The caches shutbox keeps in the user's cache folder (SHUTBOX_CACHE_DIR moves them, =off turns "
            "them off). Each is keyed on shutbox's version and the versions of the libraries that made it.",
            None, (), None, action_metavar="{info,clear}", actions=(
                Command("info", "each cache's folder, entries and size",
                        "List each cache: its folder, number of entries, size on disk and what made it.", run_info,
                        (), _name_argument),
                Command("clear", "remove the caches' files",
                        "Remove the caches' own files (whatever else is in their folders stays).", run_clear, (),
                        _name_argument),
            )),
)
