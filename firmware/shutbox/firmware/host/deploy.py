"""Put a firmware bundle on a board with ``mpremote``: find the port, stop the firmware, copy, reset.

The running firmware ignores Ctrl-C (``kbd_intr(-1)``), so before ``mpremote`` connects it is
asked to leave with the protocol's ``REPL`` command and answers with a bye line.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.firmware.host.bundle import DEVICE_DIR, read_bundle
from shutbox.firmware.host.plan import BOARDS
from shutbox.firmware.host.protocol import BAUD, Bye, Hello, Rejected, StreamDecoder, command
from shutbox.firmware.host.repl import ends_at_prompt, is_repl_line

MPREMOTE_TIMEOUT_S = 120.0
#: How long the firmware has to say bye after ``REPL``, and then a REPL to show its prompt after Ctrl-C.
STOP_TIMEOUT_S = 2.0
PROBE_S = 1.5
#: How long a board may take to come back after its reset and say hello.
RESTART_TIMEOUT_S = 20.0


class NoBoard(ShutboxError):
    """``--port auto`` found no board (callers may add what else the user can do)."""


@dataclass(frozen=True)
class FoundPort:
    device: str
    serial_number: str | None
    description: str


def known_usb_ids() -> set[tuple[int, int]]:
    """The USB VID:PID of every board the firmware runs on."""
    return {i for board in BOARDS.values() for i in board.usb_ids}


def board_ports(ids: set[tuple[int, int]] | None = None) -> list[FoundPort]:
    """Serial ports whose USB VID:PID is one of ``ids`` (default: every known board's)."""
    from serial.tools import list_ports

    wanted = ids if ids is not None else known_usb_ids()
    found = []
    for info in list_ports.comports():
        if info.vid is not None and (info.vid, info.pid) in wanted:
            found.append(FoundPort(info.device, info.serial_number, info.description or ""))
    return sorted(found, key=lambda p: p.device)


def choose_port(port: str, ids: set[tuple[int, int]] | None = None) -> str:
    """``port`` itself, or for ``auto`` the one connected board; a clear error for none or several."""
    if port != "auto":
        return port
    wanted = ids if ids is not None else known_usb_ids()
    id_text = ", ".join(f"{vid:04X}:{pid:04X}" for vid, pid in sorted(wanted))
    found = board_ports(wanted)
    if not found:
        raise NoBoard(f"--port auto: no Raspberry Pi Pico running MicroPython found (USB {id_text}); "
                      "connect one, or pass --port PORT")
    if len(found) > 1:
        listed = "; ".join(f"{p.device} (serial {p.serial_number or 'unknown'})" for p in found)
        raise ShutboxError(f"--port auto: {len(found)} boards found ({listed}); pass --port with one of them")
    return found[0].device


def stop_firmware(port: str, timeout_s: float = STOP_TIMEOUT_S) -> bool:
    """Ask running shutbox firmware to leave for the REPL and make sure a MicroPython REPL is there for mpremote;
    True when the firmware said bye. A port that answers like no MicroPython board (it keeps sending something
    else, or nothing at all) is a one-line :class:`ShutboxError` within ``timeout_s`` plus :data:`PROBE_S`."""
    import serial

    try:
        link = serial.serial_for_url(port, BAUD, timeout=0.05, write_timeout=1.0)
    except (serial.SerialException, OSError) as exc:
        from shutbox.firmware.host.serialport import open_failure

        raise ShutboxError(open_failure(port, exc)) from None
    heard = _Heard()
    try:
        link.reset_input_buffer()
        link.write(b"\r\n" + command("repl"))
        link.flush()
        if heard.listen(link, timeout_s) == "bye":
            return True
        if not heard.repl:  # a REPL answers Ctrl-C with its prompt
            link.write(b"\r\x03")
            link.flush()
            heard.listen(link, PROBE_S)
    except (serial.SerialException, OSError):
        return False
    finally:
        link.close()
    if heard.repl:
        return False
    raise ShutboxError(heard.refusal(port, timeout_s + PROBE_S))


class _Heard:
    """What a port said while the firmware was asked to stop: protocol lines, a REPL, other bytes."""

    def __init__(self) -> None:
        self.decoder = StreamDecoder()
        self.bytes = 0
        self.protocol = False
        self.repl = False

    def listen(self, link: Any, seconds: float) -> str:
        """Read for ``seconds``; "bye" as soon as the firmware says it, "repl" once a prompt shows, else ""."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            data = link.read(256)
            self.bytes += len(data)
            for item in self.decoder.feed(data):
                if isinstance(item, Bye):
                    return "bye"
                if isinstance(item, Rejected):
                    self.repl = self.repl or (item.reason == "noise" and is_repl_line(item.line))
                else:
                    self.protocol = True
            if ends_at_prompt(self.decoder.framer.pending) or self.repl:
                self.repl = True
                return "repl"
        return ""

    def refusal(self, port: str, seconds: float) -> str:
        where = f"--port {shown(port)}"
        if self.protocol:
            return (f"{where}: the shutbox firmware did not leave for its REPL when asked; unplug the board, plug it "
                    "back in and deploy again (nothing was copied)")
        if self.bytes:
            return (f"{where}: sent {self.bytes} bytes in {seconds:g} s that are neither the shutbox protocol nor "
                    "MicroPython's prompt; is this the Pico's port? (nothing was copied)")
        return (f"{where}: nothing answered within {seconds:g} s (neither the shutbox firmware nor MicroPython's "
                "prompt); is the board plugged in, and is this its port? (nothing was copied)")


#: The firmware's count of crashes in a row (firmware/guard.py), removed by a deploy.
CRASH_FILE = "crashes"


def _cleanup_script(names: list[str]) -> str:
    """Device code removing ``.py`` files that would shadow the bundle's ``.mpy`` modules, and the crash count."""
    shadows = [*sorted(n[:-4] + ".py" for n in names if n.endswith(".mpy")), CRASH_FILE]
    return ("import os\n"
            f"for f in {shadows!r}:\n"
            " try:\n  os.remove(f)\n except OSError:\n  pass\n")


def mpremote_command(port: str, bundle: Path, names: list[str]) -> list[str]:
    """The one ``mpremote`` run that cleans up, copies the device files and resets the board."""
    device = Path(bundle) / DEVICE_DIR
    return [
        sys.executable, "-m", "mpremote", "connect", port, "resume",
        "exec", _cleanup_script(names), "+",
        "cp", *[str(device / n) for n in names], ":.", "+",
        "reset",
    ]


def deploy(bundle: Path, port: str) -> list[str]:
    """Copy the bundle in ``bundle`` to the board on ``port`` (or ``auto``); return the files copied."""
    manifest = read_bundle(bundle)
    names = list(manifest["device_files"])
    device = choose_port(port)
    stop_firmware(device)
    try:
        proc = subprocess.run(mpremote_command(device, bundle, names), capture_output=True, text=True,
                              timeout=MPREMOTE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ShutboxError(f"mpremote did not finish copying the firmware to {shown(device)} within "
                           f"{MPREMOTE_TIMEOUT_S:g} s; unplug the board, plug it back in and deploy again") from None
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        reason = lines[-1] if lines else f"exit status {proc.returncode}"
        raise ShutboxError(f"mpremote could not copy the firmware to {device}: {reason}; unplug the board, plug it "
                           "back in and deploy again (on a kit with a button, hold it while plugging the board in)")
    return names


def wait_for_hello(port: str, timeout_s: float = RESTART_TIMEOUT_S) -> Hello | None:
    """After the reset: reopen ``port`` until the board is back, ask for a hello; the hello, or None."""
    import serial

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            link = serial.serial_for_url(port, BAUD, timeout=0.05, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError):
            time.sleep(0.25)  # the board is still restarting (its USB port comes and goes)
            continue
        decoder = StreamDecoder()
        asked = 0.0
        try:
            while time.monotonic() < deadline:
                if time.monotonic() - asked > 1.0:
                    link.write(command("hello"))
                    asked = time.monotonic()
                for message in decoder.feed(link.read(256)):
                    if isinstance(message, Hello):
                        return message
        except (serial.SerialException, OSError):
            time.sleep(0.25)  # it went away again mid-restart: reopen
        finally:
            link.close()
    return None
