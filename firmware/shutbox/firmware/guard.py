"""Keeping the box alive: what escapes the firmware is reported in one line and the board restarts.

An exception that leaves the firmware (a bad ``boxcfg.py`` shadowing ``boxcfg.mpy``, a fault in a
module) is written as the protocol's error line ``E`` (its type and message), then the board waits
``PAUSE_MS`` with Ctrl-C enabled and answering ``REPL`` (so ``mpremote`` and ``shutbox firmware
deploy`` can break in) and resets with ``machine.reset()``. The RP2040's ``machine.WDT`` cannot be
stopped and would reset a board mid-deploy, so no watchdog is used.

Crashes in a row are counted in the file ``crashes`` (written only on a crash; a crash after
``STEADY_MS`` of running counts as the first again). At ``MAX_CRASHES`` the board stays at its REPL
with a line saying so: a boot loop ends there, and a deploy (which removes the file) puts it back.
"""

import select
import sys
from time import ticks_add, ticks_diff, ticks_ms

import machine
import micropython
import wire

CRASH_FILE = "crashes"
MAX_CRASHES = 3
STEADY_MS = 60000
PAUSE_MS = 3000


def main() -> None:
    """Run the firmware (unless the button is held at power-up); report and restart on a crash."""
    started = ticks_ms()
    try:
        import boxcfg
        import inputs

        if inputs.button_held(boxcfg):
            print("shutbox: button held at power-up; staying in the REPL")
            return
        import box

        box.run(boxcfg)
    except Exception as exc:  # noqa: BLE001 - whatever escapes, the board must come back
        ran = ticks_diff(ticks_ms(), started)
        crashed(exc, 0 <= ran < STEADY_MS)


def crashed(exc: Exception, early: bool) -> None:
    """Report ``exc``; restart after the pause, or stay at the REPL when the crashes make a boot loop."""
    micropython.kbd_intr(3)
    count = crash_count() + 1 if early else 1
    save_count(count)
    again = count < MAX_CRASHES
    line = wire.crash(0, type(exc).__name__, str(exc), count, again)
    out = sys.stdout.buffer
    out.write(line)
    if not pause(PAUSE_MS, line):
        return
    if again:
        machine.reset()
    out.write(b"shutbox: the firmware crashed %d times in a row; staying at the REPL "
              b"('shutbox firmware deploy' puts it back)\r\n" % count)


def pause(ms: int, line: bytes) -> bool:
    """Wait ``ms``, sending ``line`` again to a host that asks (``H``, ``S``: it connected after the crash) and
    answering ``REPL`` with a bye (then False: stay at the REPL); True when the time is up."""
    commands = wire.CommandReader()
    incoming = select.poll()
    incoming.register(sys.stdin, select.POLLIN)
    end = ticks_add(ticks_ms(), ms)
    while True:
        left = ticks_diff(end, ticks_ms())
        if left <= 0:
            return True
        for _obj, flags in incoming.ipoll(left):
            data = sys.stdin.buffer.read(1) if flags & select.POLLIN else b""
            if not data:
                incoming.unregister(sys.stdin)  # the host hung up: just wait
                break
            code = commands.feed(data[0])
            if code == wire.REPL:
                sys.stdout.buffer.write(wire.bye(1))
                return False
            if code:
                sys.stdout.buffer.write(line)
            break


def crash_count() -> int:
    try:
        with open(CRASH_FILE) as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0


def save_count(count: int) -> None:
    try:
        with open(CRASH_FILE, "w") as f:
            f.write("%d" % count)
    except OSError:
        pass
