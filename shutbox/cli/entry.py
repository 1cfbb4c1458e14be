"""The ``shutbox`` console script: a Ctrl-C while the CLI is still being imported is "interrupted".

Only the interpreter's own start-up comes before this module; from here on an interrupt is one line
and exit status 130, never a traceback (nothing has been written yet, so there is nothing to clean up).
"""

import atexit
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
    atexit.register(_leave)  # the first exit handler registered runs last, once the others are done
    try:
        previous = signal.signal(signal.SIGINT, _interrupted_early)
    except ValueError:  # not the main thread: nothing to guard
        previous = None
    from shutbox.cli.parser import main as run

    if previous is not None:
        signal.signal(signal.SIGINT, previous)
    code = run()
    _CODE.append(code)
    return code


_CODE: list[int] = []  # the command's exit status, once it has returned one


def _leave() -> None:
    """After every other exit handler: leave at once, output flushed, if OCCT was loaded -- tearing down an
    interpreter that loaded it takes most of a second. By now the interpreter has waited for the other threads."""
    if _CODE and "OCP" in sys.modules:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(_CODE[-1])
