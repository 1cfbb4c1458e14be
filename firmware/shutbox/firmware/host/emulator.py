"""An emulated Raspberry Pi Pico: MicroPython's rp2 port in ``rp2040js``, run by the Node harness in
``firmware/shutbox/firmware/emulator/`` and driven from Python.

:class:`EmulatedPico` starts the harness, which serves the board's USB CDC serial on a TCP port
(:attr:`EmulatedPico.port` is ``socket://127.0.0.1:PORT``, opened by pyserial and mpremote like a
device), and talks to it over a control channel (JSON lines on the harness's stdin and stdout): wire a
switch to a GPIO, set up a 74HC165 chain, bounce a contact, read a pin, ask the device time. Wiring
given before :meth:`EmulatedPico.power_on` is in place when the firmware first reads its pins.

Device time is the emulator's simulated clock, in microseconds since power-up; it runs slower than
the wall clock (never faster).
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from shutbox.base.errors import ShutboxError
from shutbox.firmware.host.bundle import firmware_dir

#: The binaries kept in ``firmware/shutbox/firmware/emulator/`` and their sha256 (see the README there).
FIRMWARE_UF2 = "micropython-rpi_pico-v1.28.0.uf2"
BOOTROM = "bootrom-b1.bin"
CHECKSUMS = {
    FIRMWARE_UF2: "5da6ca3de906adff6b9126bd854883c7222faeb7ff2c935ddab73330dab9f323",
    BOOTROM: "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae",
}
#: Where this MicroPython build keeps its LittleFS file system in flash, and its geometry.
FS_OFFSET = 0xA0000
FS_BLOCK_SIZE = 4096
FS_BLOCKS = 352
FS_PROG_SIZE = 256
START_TIMEOUT_S = 30.0
REPLY_TIMEOUT_S = 30.0


def emulator_dir() -> Path:
    """The folder of the Node harness and the board's binaries."""
    return firmware_dir() / "emulator"


def find_node() -> str:
    """The ``node`` command (Node.js 18 or later): $SHUTBOX_NODE or on PATH."""
    node = os.environ.get("SHUTBOX_NODE") or shutil.which("node")
    if not node or not os.access(node, os.X_OK):
        raise ShutboxError(f"no 'node' command found{f' at {node}' if node else ''}; the emulated Pico needs "
                           "Node.js 18 or later")
    return node


def check_harness() -> Path:
    """The harness folder, with rp2040js installed and the binaries as shipped; ShutboxError otherwise."""
    folder = emulator_dir()
    if not (folder / "node_modules" / "rp2040js" / "package.json").is_file():
        raise ShutboxError(f"the emulated Pico's rp2040js is not installed; run 'npm ci' in {folder}")
    for name, digest in CHECKSUMS.items():
        path = folder / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            raise ShutboxError(f"{path}: missing or not the file shipped (sha256 differs)")
    return folder


@dataclass(frozen=True)
class PinReading:
    """One GPIO as the chip sees it."""

    level: int
    output: bool  #: driven by the chip
    pull: str  #: the pad's internal pull: up, down or none
    t_us: float  #: device time of the reading


class EmulatedPico:
    """One emulated board. Use as a context manager, or call :meth:`start` and :meth:`close`.

    ``fs_image`` is a LittleFS image (see :mod:`shutbox.firmware.host.board_image`), a file or its bytes,
    loaded into the file system area before power-up (bytes go through a temp file removed once the
    harness has read it, so a killed host leaves nothing behind); without it the board's flash is blank and MicroPython formats it
    at first boot. ``port`` picks the TCP port (0: any free one), so a board restarted after
    :meth:`kill` can come back behind the same :attr:`port`.
    """

    def __init__(self, fs_image: Path | bytes | None = None, *, tcp_port: int = 0) -> None:
        self.fs_image = fs_image
        self.tcp_port = tcp_port
        self.process: subprocess.Popen[str] | None = None
        self.port = ""  #: what pyserial opens: socket://127.0.0.1:PORT
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()  #: harness events (usb, reset, log, ...)
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._next_id = 1
        self._reader: threading.Thread | None = None
        self._stderr: IO[bytes] | None = None
        self.powered_at = 0.0  #: time.monotonic() at power-up

    # -- process ------------------------------------------------------------------------------------

    def start(self) -> EmulatedPico:
        """Start the harness (the board unpowered, its USB port listening)."""
        node = find_node()  # first: without Node, `npm ci` cannot help either
        folder = check_harness()
        command = [node, str(folder / "harness.mjs"), "--bootrom", str(folder / BOOTROM),
                   "--uf2", str(folder / FIRMWARE_UF2), "--fs-offset", str(FS_OFFSET), "--port", str(self.tcp_port)]
        staged: Path | None = None
        if isinstance(self.fs_image, bytes):
            handle, name = tempfile.mkstemp(prefix="shutbox-emulator-", suffix=".img")
            with os.fdopen(handle, "wb") as out:
                out.write(self.fs_image)
            staged = Path(name)
            command += ["--fs", name]
        elif self.fs_image is not None:
            command += ["--fs", str(self.fs_image)]
        try:
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self._stderr, text=True, bufsize=1, start_new_session=True)
            self._reader = threading.Thread(target=self._read, name="pico-emulator", daemon=True)
            self._reader.start()
            listening = self.wait_event("listening", START_TIMEOUT_S)  # the image is read before this
        finally:
            if staged is not None:
                staged.unlink(missing_ok=True)
        self.tcp_port = int(listening["port"])
        self.port = f"socket://127.0.0.1:{self.tcp_port}"
        return self

    def power_on(self) -> None:
        """Power the board up: MicroPython boots (``main.py`` runs if the file system has one)."""
        self.request("power")
        self.powered_at = time.monotonic()

    def kill(self) -> None:
        """Pull the cable: the emulator process dies at once (the host's port fails, the TCP port closes)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def close(self) -> None:
        """Stop the emulator."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()  # nothing on the board needs saving: its flash lives in the harness
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            self.kill()
            if self.process.stdin is not None:
                try:
                    self.process.stdin.close()
                except OSError:
                    pass
            if self.process.stdout is not None:
                self.process.stdout.close()
        if self._reader is not None:
            self._reader.join(timeout=5)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> EmulatedPico:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr_text(self) -> str:
        """What the harness printed on stderr (a Node error), for diagnostics."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    # -- the control channel ------------------------------------------------------------------------

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "id" in message:
                with self._lock:
                    waiting = self._replies.get(message["id"])
                if waiting is not None:
                    waiting.put(message)
            else:
                self.events.put(message)
        self.events.put({"event": "exit"})
        with self._lock:
            for waiting in self._replies.values():
                waiting.put({"ok": False, "error": "the emulator has stopped"})

    def request(self, op: str, timeout: float = REPLY_TIMEOUT_S, **fields: Any) -> dict[str, Any]:
        """Send one control request and wait for its reply; ShutboxError if it failed."""
        process = self.process
        if process is None or process.stdin is None or process.poll() is not None:
            raise ShutboxError(f"the emulated Pico is not running{self._why()}")
        answer: queue.Queue[dict[str, Any]] = queue.Queue()
        with self._lock:
            ident = self._next_id
            self._next_id += 1
            self._replies[ident] = answer
        try:
            try:
                process.stdin.write(json.dumps({"id": ident, "op": op, **fields}) + "\n")
                process.stdin.flush()
            except OSError:
                raise ShutboxError(f"the emulated Pico is not running{self._why()}") from None
            try:
                reply = answer.get(timeout=timeout)
            except queue.Empty:
                raise ShutboxError(f"the emulated Pico did not answer '{op}' within {timeout:g} s") from None
        finally:
            with self._lock:
                self._replies.pop(ident, None)
        if not reply.get("ok"):
            raise ShutboxError(f"the emulated Pico refused '{op}': {reply.get('error')}{self._why()}")
        return reply

    def _why(self) -> str:
        lines = self.stderr_text().strip().splitlines()
        return f" ({lines[-1]})" if lines else ""

    def wait_event(self, kind: str, timeout: float) -> dict[str, Any]:
        """The next harness event of ``kind`` (earlier events of other kinds are dropped)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                break
            if event.get("event") == kind:
                return event
            if event.get("event") == "exit":
                raise ShutboxError(f"the emulated Pico stopped before '{kind}'{self._why()}")
        raise ShutboxError(f"the emulated Pico sent no '{kind}' within {timeout:g} s{self._why()}")

    # -- pins -----------------------------------------------------------------------------------------

    def switch(self, gpio: int, net: int, closed: bool, resistor: int | None = None, bounce: int = 0,
               gap_us: int = 1000) -> float:
        """Wire a switch from ``gpio`` to ``net`` (0 GND, 1 3V3), ``closed`` or open, with an external pull
        resistor to ``resistor`` (0 or 1) if any; an open switch reads the pin's pull. With ``bounce``,
        the contact changes that many extra times ``gap_us`` apart (device time) before it settles.
        Returns the device time (µs) at which it settled."""
        return self.request("switch", pin=gpio, net=net, closed=closed, resistor=resistor,
                            bounce={"flips": bounce, "gap_us": gap_us} if bounce else None)["t_us"]

    def press(self, gpio: int, closed: bool, hold_us: int, bounce: int = 0, gap_us: int = 1000) -> float:
        """Move the switch on ``gpio`` (wired with :meth:`switch`) to ``closed``, hold it ``hold_us``, move it
        back and hold that as long, each move bouncing: one request, timed in device time. Returns the
        device time at the end."""
        return self.request("press", pin=gpio, closed=closed, hold_us=hold_us,
                            bounce={"flips": bounce, "gap_us": gap_us} if bounce else None)["t_us"]

    def chain(self, load: int, clock: int, data: int, inputs: list[int], ser: int) -> None:
        """A chain of 74HC165s on ``load`` (SH/LD), ``clock`` (CLK) and ``data`` (QH of the first chip):
        ``inputs`` are the parallel inputs' levels in the order they shift out, ``ser`` the last chip's
        serial input."""
        self.request("chain", load=load, clock=clock, data=data, inputs=inputs, ser=ser)

    def chain_input(self, index: int, level: int, bounce: int = 0, gap_us: int = 1000) -> float:
        """Set parallel input ``index`` of the chain (0 = the first bit out), bouncing as :meth:`switch`."""
        return self.request("chain_input", index=index, level=level,
                            bounce={"flips": bounce, "gap_us": gap_us} if bounce else None)["t_us"]

    def read_pin(self, gpio: int) -> PinReading:
        reply = self.request("read", pin=gpio)
        return PinReading(int(reply["level"]), bool(reply["output"]), str(reply["pull"]), float(reply["t_us"]))

    def device_time_us(self) -> float:
        """The emulated clock now, in microseconds since power-up."""
        return float(self.request("time")["t_us"])

    def watch(self, text: str, timeout: float = REPLY_TIMEOUT_S) -> float:
        """Wait until the board's USB output contains ``text``; the device time (µs) it was sent."""
        return float(self.request("watch", timeout=timeout, text=text)["t_us"])

    def hold(self, on: bool) -> float:
        """Hold the host (``on``): it keeps the port open but takes none of the board's USB IN transfers, as a
        host whose buffer is full; the board's writes wait as on a real Pico. ``False`` reads again (what was
        held is delivered first). Returns the device time (µs)."""
        return float(self.request("hold", on=on)["t_us"])

    def save_fs(self, path: Path) -> None:
        """Write the board's file system area (a LittleFS image) to ``path``."""
        self.request("save_fs", path=str(path))
