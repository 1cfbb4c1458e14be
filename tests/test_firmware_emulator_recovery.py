"""A board that recovers by itself (issue 46, items 1-3), on the emulated Pico (firmware/emulator/):

- the firmware crashing at start (a ``boxcfg.py`` with ``DEBOUNCE_MS = "30"`` shadowing ``boxcfg.mpy``): each
  crash is one error line that ``monitor`` shows, the board restarts, the third crash in a row stops at the
  REPL with a line saying so, a host that finds the board at its REPL says so in one line with the command
  that puts it back, and that command does;
- a host that keeps the port open without reading (the harness holds the USB IN transfers): no press lost,
  the state right at once when it reads again;
- a kit with no button: the firmware answers ``REPL``, and ``shutbox firmware deploy`` gets onto it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from shutbox.companion.sim.emulated import EmulatedBox
from shutbox.firmware.host.bundle import DEVICE_DIR, MANIFEST, build_bundle
from shutbox.firmware.host.protocol import Bye, Snapshot, command
from shutbox.kit.model import build_kit
from tests.emulator_support import needs_emulator
from tests.test_firmware_emulator import Reader


class Monitor:
    """``shutbox monitor --port PORT`` in the background, its stderr lines collected."""

    def __init__(self, port: str, *flags: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "shutbox", "monitor", "--port", port, *flags],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.lines if text in line]
            if found:
                return found[0]
            time.sleep(0.1)
        raise AssertionError(f"monitor never said {text!r} within {timeout} s; it said: {self.lines}")

    def stop(self) -> list[str]:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self._reader.join(timeout=5)
        return self.lines


def deploy(port: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shutbox", "firmware", "deploy", "--port", port, *flags],
                          capture_output=True, text=True, timeout=300)


def shadowed_bundle(folder: Path) -> Path:
    """The default kit's bundle with a ``boxcfg.py`` beside ``boxcfg.mpy`` whose debounce is text, not a number."""
    kit = build_kit({})
    build_bundle(kit, folder)
    source = (folder / "boxcfg.py").read_text(encoding="utf-8")
    assert "DEBOUNCE_MS = 30\n" in source
    (folder / DEVICE_DIR / "boxcfg.py").write_text(source.replace("DEBOUNCE_MS = 30\n", 'DEBOUNCE_MS = "30"\n'))
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["device_files"].append("boxcfg.py")
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


@pytest.mark.slow
def test_a_crashing_firmware_reports_restarts_stops_a_boot_loop_at_the_repl_and_a_deploy_puts_it_back(tmp_path):
    needs_emulator()
    with EmulatedBox(build_kit({}), bundle=shadowed_bundle(tmp_path / "bad"), power=False) as box:
        monitor = Monitor(box.port)
        try:
            monitor.wait_for(f"connected to {box.port}", 30)
            box.power_on()
            first = monitor.wait_for("stopped: TypeError", 60)
            assert first.startswith(f"the firmware on {box.port} stopped: TypeError: ")
            assert first.endswith("; it restarts in a few seconds"), first
            last = monitor.wait_for("crashes in a row", 90)
            assert last.endswith(f"after 3 crashes in a row it stays at MicroPython's prompt; "
                                 f"'shutbox firmware deploy --port {box.port}' puts it back"), last
            time.sleep(6)  # the link asks nothing more of a board at its REPL, and shows none of its noise
        finally:
            lines = monitor.stop()
        assert not [line for line in lines if "rejected line" in line], lines
        assert len([line for line in lines if "stopped: TypeError" in line]) == 3, lines

        # a host that finds the board at its REPL says so in one line, with the command that puts it back
        later = Monitor(box.port)
        try:
            said = later.wait_for("MicroPython's prompt", 30)
            time.sleep(4)
        finally:
            lines = later.stop()
        assert said == (f"the box on {box.port} is at MicroPython's prompt: the shutbox firmware is not running; "
                        f"'shutbox firmware deploy --port {box.port}' puts it back")
        assert [line for line in lines if not line.startswith(("connected", "shutbox: terminated"))] == [said], lines

        # ... and it does (its clean-up removes the shadowing boxcfg.py and the crash count)
        proc = deploy(box.port)
        assert proc.returncode == 0, proc.stderr
        assert "the box is running: firmware" in proc.stdout


@pytest.mark.slow
def test_a_host_that_does_not_read_loses_no_press_and_reads_the_state_at_once_when_it_does():
    needs_emulator()
    with EmulatedBox(build_kit({})) as box:
        reader = Reader(box.port)
        try:
            reader.link.write(command("snapshot"))
            before = reader.snapshot().presses
            box.board.hold(True)  # the host's buffer is full: the port open, nothing read
            for _ in range(10):
                box.press_button()
            box.set_tile(5, True)
            time.sleep(0.5)
            box.board.hold(False)
            released = time.monotonic()
            current = reader.until(lambda m: isinstance(m, Snapshot) and m.shut_tiles == {5}, timeout=10)
            delay = time.monotonic() - released
            assert isinstance(current, Snapshot) and current.presses == before + 10, reader.seen[-8:]
            assert delay < 0.5, delay  # the lines held in the board's buffer, then the state as it is
        finally:
            reader.close()
            box.set_tile(5, False)


@pytest.mark.slow
def test_a_kit_without_a_button_answers_repl_and_takes_a_deploy():
    needs_emulator()
    settings = {"firmware.button_pin": "none"}
    with EmulatedBox(build_kit(settings)) as box:
        reader = Reader(box.port)
        try:
            reader.link.write(command("repl"))
            assert isinstance(reader.until(lambda m: isinstance(m, Bye)), Bye)
        finally:
            reader.close()
        monitor = Monitor(box.port)
        try:
            said = monitor.wait_for("MicroPython's prompt", 30)
        finally:
            monitor.stop()
        assert f"'shutbox firmware deploy --port {box.port}' puts it back" in said
        proc = deploy(box.port, "--button-pin", "none")
        assert proc.returncode == 0, proc.stderr
        assert "the box is running: firmware" in proc.stdout
        proc = deploy(box.port, "--button-pin", "none")
        assert proc.returncode == 0, proc.stderr
