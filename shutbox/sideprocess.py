"""A second process for independent work, when the machine has a CPU to spare for it.

Spawned, not forked: CadQuery's parallel booleans leave OCCT thread pools that a forked child would
wait on forever. The side process ignores Ctrl-C; the main process handles it (and SIGTERM, and any
error) by stopping the side process at once before it cleans up.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any


def cpus() -> int:
    """CPUs this process may use (``SHUTBOX_JOBS`` overrides; 1 turns the side process off)."""
    wanted = os.environ.get("SHUTBOX_JOBS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _prepare() -> None:
    """In the side process: ignore Ctrl-C, and leave at once when done (its work is all handed back by then):
    tearing down an interpreter that loaded OCCT takes most of a second, which the main process would wait."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    atexit.register(_leave)


def _leave() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


_OPEN: list[ProcessPoolExecutor] = []  # the side process of the run, while it is open
_ONCE: dict[str, Future] = {}  # work given to it under a name, at most once per run


def submit_once(pool: Executor, name: str, fn: Callable[..., Any], *args: Any) -> Future:
    """``fn(*args)`` queued in the run's side process, unless work under ``name`` was queued already."""
    if name not in _ONCE:
        _ONCE[name] = pool.submit(fn, *args)
    return _ONCE[name]


@contextmanager
def side_process(wanted: bool = True) -> Iterator[ProcessPoolExecutor | None]:
    """One spawned worker process, or None when not ``wanted`` or on a single CPU (do the work here then).

    One per run: opened again while it is open (``kit`` runs ``cad``), it is the same process, its work queued
    behind what it was given before; the outermost opening stops it.
    """
    if not wanted or cpus() < 2:
        yield None
        return
    if _OPEN:
        yield _OPEN[-1]
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    # Started now: where no process can be started (no POSIX semaphores, a process limit), all runs here.
    try:
        pool = ProcessPoolExecutor(1, mp_context=context, initializer=_prepare)
    except (OSError, ImportError, NotImplementedError):
        yield None
        return
    try:
        pool.submit(os.getpid)
    except (OSError, RuntimeError):
        pool.shutdown(wait=False, cancel_futures=True)
        yield None
        return
    _OPEN.append(pool)
    try:
        yield pool
    except BaseException:  # an error, Ctrl-C or SIGTERM: its work is not wanted, do not wait for it
        _stop(pool)
        raise
    finally:
        _OPEN.remove(pool)
        _ONCE.clear()
    pool.shutdown(wait=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop the side process now, whatever it is doing."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # no public way to stop a running task
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.terminate()
    for process in workers:
        process.join(timeout=10)
