"""A second process for independent work, when the machine has a CPU to spare for it.

An ordinary :class:`concurrent.futures.ProcessPoolExecutor` of one worker, spawned, not forked: CadQuery's
parallel booleans leave OCCT thread pools that a forked child would wait on forever. The worker never outlives
the process that started it: on Linux the kernel kills it when its parent dies (``PR_SET_PDEATHSIG``, so also
after a ``kill -9``), elsewhere a thread of its own watches the parent. It ignores Ctrl-C; the main process
handles that (and SIGTERM, and any error) by killing the worker at once rather than waiting for work it no
longer wants.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def cpus() -> int:
    """CPUs this process may use (``SHUTBOX_JOBS`` overrides; 1 turns the side process off)."""
    wanted = os.environ.get("SHUTBOX_JOBS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _worker_start(parent: int) -> None:
    """In the worker, before any work: die with ``parent``, leave Ctrl-C to it, exit at once when done."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _die_with_parent():
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    # Tearing down an interpreter that loaded OCCT takes most of a second, which the main process would wait;
    # the worker's results are all handed back by the time it exits.
    atexit.register(_leave)


def _die_with_parent() -> bool:
    """Ask the kernel to kill this process when its parent dies (Linux); False where that cannot be done."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.25)
    os._exit(1)


def _leave() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@contextmanager
def side_process(wanted: bool = True) -> Iterator[ProcessPoolExecutor | None]:
    """A pool of one spawned worker, started at once, or None when not ``wanted``, on a single CPU or where no
    process can be started (then do the work here). Left normally, it waits for the work it was given; left
    by an error, Ctrl-C or SIGTERM, it kills the worker."""
    if not wanted or cpus() < 2:
        yield None
        return
    import multiprocessing

    before = set(multiprocessing.active_children())
    try:  # where no process can be started (no POSIX semaphores, a process limit), all runs here
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start,
                                   initargs=(os.getpid(),))
    except (OSError, ImportError, NotImplementedError):
        yield None
        return
    try:
        pool.submit(os.getpid)  # starts the worker now: it imports while the caller gets on
    except (OSError, RuntimeError):
        pool.shutdown(wait=False, cancel_futures=True)
        yield None
        return
    workers = [p for p in multiprocessing.active_children() if p not in before]
    previous = _kill_on_signals(workers)
    try:
        yield pool
        pool.shutdown(wait=True)  # the work it was given, finished (a signal meanwhile still kills it)
    except BaseException:
        _kill(workers)
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.join(timeout=10)
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _kill(workers: list[Any]) -> None:
    for worker in workers:
        if worker.is_alive():
            worker.kill()


def _kill_on_signals(workers: list[Any]) -> dict[int, Any]:
    """SIGTERM, SIGHUP and Ctrl-C kill the workers at once, then go on to the handler there was: that may have to wait
    (the CLI does not interrupt an import), the work is not wanted either way. Returns the handlers replaced."""
    previous: dict[int, Any] = {}

    def stop(signum: int, frame: Any) -> None:
        _kill(workers)
        handler = previous[signum]
        if callable(handler):
            handler(signum, frame)
        elif handler == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    try:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            if signum == signal.SIGHUP and signal.getsignal(signum) is signal.SIG_IGN:
                continue  # nohup: a closed terminal does not stop the work
            previous[signum] = signal.signal(signum, stop)
    except ValueError:  # not the main thread: the caller's own error handling stops them
        pass
    return previous
