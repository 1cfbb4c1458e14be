"""Progress of long work on stderr: a bar drawn on a terminal only, or one line per step.

``with progress_bar("reviewing games", json_output) as update: ... update(done, total)``: a rich bar
on stderr (what is done, of how many, the rate and the time left), shown only when stderr is a
terminal, and removed when the work is done, so the result below it stays as it would be piped.

:class:`StepLines` (``shutbox cad``): a line per step done, ``shutbox cad [3/12]   4.1s tiles``, piped or not.
"""

from __future__ import annotations

import sys
import time
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


class StepLines:
    """One line per step on stderr, with the running time (nothing when not ``enabled``)."""

    def __init__(self, name: str, total: int, enabled: bool) -> None:
        self.name, self.total, self.enabled, self.done = name, total, enabled, 0
        self.start = time.perf_counter()

    def step(self, text: str) -> None:
        self.done += 1
        if self.enabled:
            elapsed = time.perf_counter() - self.start
            print(f"{self.name} [{self.done}/{self.total}] {elapsed:5.1f}s {text}", file=sys.stderr, flush=True)
