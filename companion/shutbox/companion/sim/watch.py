"""The simulated box's watchdog: ends the firmware's processes and removes its temp folder if the host dies.

Run by :class:`~shutbox.companion.sim.box.SimBox` as ``python -I -S watch.py TMPDIR`` in its own
session, with a pipe from the host as stdin. The host writes ``pg PGID`` for each firmware process
group it starts, ``gone PGID`` when it has ended one, and ``done`` when it has cleaned up itself. When
the pipe ends without ``done`` — the host was killed, even by ``kill -9`` — every process group still
named is sent SIGTERM, then SIGKILL, and TMPDIR is removed. Only the standard library is used, so it
starts in a few milliseconds.
"""

import os
import shutil
import signal
import sys
import time


def _end(groups: set[int]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = set()
        for pgid in groups:
            try:
                os.killpg(pgid, sig)
                alive.add(pgid)
            except OSError:
                pass
        if not alive:
            return
        deadline = time.monotonic() + 1.0
        while alive and time.monotonic() < deadline:
            time.sleep(0.02)
            for pgid in list(alive):
                try:
                    os.killpg(pgid, 0)
                except OSError:
                    alive.discard(pgid)
        groups = alive


def main(argv: list[str]) -> int:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    folder = argv[1] if len(argv) > 1 else ""
    groups: set[int] = set()
    done = False
    for line in sys.stdin.buffer:
        word, _, value = line.decode("ascii", "replace").strip().partition(" ")
        if word == "pg" and value.isdigit():
            groups.add(int(value))
        elif word == "gone" and value.isdigit():
            groups.discard(int(value))
        elif word == "done":
            done = True
    if not done:
        _end(groups)
        if folder and os.path.basename(folder).startswith("shutbox-sim-"):
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
