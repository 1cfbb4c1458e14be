"""The ``shutbox`` console script: a Ctrl-C while the CLI is still being imported is "interrupted".

Only the interpreter's own start-up comes before this module; from here on an interrupt is one line
and exit status 130, never a traceback (nothing has been written yet, so there is nothing to clean up).
"""

import os
import signal
import sys


def _interrupted_early(signum: int, frame: object) -> None:
    try:
        sys.stderr.write("shutbox: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def main() -> int:
    """Import the CLI with Ctrl-C caught, then run it (which installs its own signal handling)."""
    try:
        previous = signal.signal(signal.SIGINT, _interrupted_early)
    except ValueError:  # not the main thread: nothing to guard
        previous = None
    from shutbox.cli import main as run

    if previous is not None:
        signal.signal(signal.SIGINT, previous)
    code = run()
    if "OCP" in sys.modules:  # tearing down an interpreter that loaded OCCT takes most of a second
        _leave(code)
    return code


def _leave(code: int) -> None:
    """Exit at once, the exit handlers run and the output flushed, unless another thread is still working
    (then the interpreter's own shutdown waits for it)."""
    import atexit
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    atexit._run_exitfuncs()  # noqa: SLF001 - what the interpreter would run on its way out
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
