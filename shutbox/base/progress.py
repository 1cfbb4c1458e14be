"""A progress bar for long work, drawn on a terminal only: piped output or ``--json`` gets nothing extra.

``with progress_bar("reviewing games", json_output) as update: ... update(done, total)``: a rich bar
on stderr (what is done, of how many, the rate and the time left), shown only when stderr is a
terminal, and removed when the work is done, so the result below it stays as it would be piped.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Update = Callable[[int, int], None]


def on_terminal() -> bool:
    """Is stderr a terminal (where a bar may be drawn)?"""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def _nothing(done: int, total: int) -> None:
    return None


@contextmanager
def progress_bar(label: str, quiet: bool = False) -> Iterator[Update]:
    """``update(done, total)`` drawing a bar labelled ``label`` on a terminal; a no-op when ``quiet`` or piped."""
    if quiet or not on_terminal():
        yield _nothing
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(file=sys.stderr)
    columns: list[Any] = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=True, refresh_per_second=8) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=max(total, 1))

        yield update
