"""``shutbox firmware deploy``: finding the board, and a full deploy through mpremote to running firmware
(the unix MicroPython port on a pseudo-terminal stands in for the Pico)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.sim.box import find_micropython, sim_dir
from shutbox.firmware.host.bundle import build_bundle, firmware_dir
from shutbox.firmware.host.deploy import choose_port
from shutbox.firmware.host.plan import config_module, pin_map
from shutbox.kit.model import build_kit


@dataclass
class FakePortInfo:
    """What ``serial.tools.list_ports.comports()`` reports for one port."""

    device: str
    vid: int | None
    pid: int | None
    serial_number: str | None = None
    description: str = ""


@pytest.fixture
def ports(monkeypatch):
    from serial.tools import list_ports

    found: list[FakePortInfo] = []
    monkeypatch.setattr(list_ports, "comports", lambda: list(found))
    return found


def test_auto_finds_the_one_pico(ports):
    ports += [FakePortInfo("/dev/ttyS0", None, None), FakePortInfo("/dev/ttyUSB0", 0x0403, 0x6001),
              FakePortInfo("/dev/ttyACM0", 0x2E8A, 0x0005, "E6614103E7", "Board in FS mode")]
    assert choose_port("auto") == "/dev/ttyACM0"


def test_auto_with_no_pico_says_so(ports):
    ports.append(FakePortInfo("/dev/ttyUSB0", 0x0403, 0x6001))
    with pytest.raises(ShutboxError, match=r"no Raspberry Pi Pico .*2E8A:0005.*pass --port PORT"):
        choose_port("auto")


def test_auto_with_several_picos_lists_them(ports):
    ports += [FakePortInfo("/dev/ttyACM1", 0x2E8A, 0x0005, "B"), FakePortInfo("/dev/ttyACM0", 0x2E8A, 0x0005, "A")]
    with pytest.raises(ShutboxError) as err:
        choose_port("auto")
    assert str(err.value) == ("--port auto: 2 boards found (/dev/ttyACM0 (serial A); /dev/ttyACM1 (serial B)); "
                              "pass --port with one of them")


def test_an_explicit_port_is_used_as_given(ports):
    assert choose_port("/dev/ttyACM7") == "/dev/ttyACM7"


def test_deploy_auto_without_a_board_exits_2(cli, tmp_path):
    proc = cli("firmware", "deploy", "--port", "auto", "--bundle", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--port auto" in proc.stderr


def test_deploy_rejects_a_folder_that_is_no_bundle(cli, tmp_path):
    proc = cli("firmware", "deploy", "--port", "/dev/null", "--bundle", str(tmp_path))
    assert proc.returncode == 2 and "bundle.json" in proc.stderr


@pytest.mark.slow
def test_deploy_stops_running_firmware_copies_the_bundle_and_resets(cli, tmp_path):
    """The board: the unix port running the firmware with `-i`, so it has a REPL once the firmware leaves;
    machine.reset() ends it, and it starts again from what was copied, as a board boots after a reset."""
    board_dir = tmp_path / "board"
    board_dir.mkdir()
    (board_dir / "box.py").write_text("raise RuntimeError('a stale source that would shadow box.mpy')\n")
    config = tmp_path / "config"
    config.mkdir()
    (config / "boxcfg.py").write_text(config_module(pin_map(build_kit({}))))
    master, slave = os.openpty()
    tty.setraw(slave)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(map(str, [sim_dir(), config, firmware_dir()])))
    board = subprocess.Popen([find_micropython(), "-i", str(firmware_dir() / "main.py")], stdin=master,
                             stdout=master, stderr=subprocess.PIPE, cwd=board_dir, env=env)
    rebooted: list[subprocess.Popen[bytes]] = []

    def reboot() -> None:  # after the reset: the copied main.py and modules, nothing else on the path
        board.wait()
        rebooted.append(subprocess.Popen([find_micropython(), "main.py"], stdin=master, stdout=master,
                                         stderr=subprocess.PIPE, cwd=board_dir,
                                         env=dict(os.environ, MICROPYPATH=os.pathsep.join([str(sim_dir()), "."]))))

    restart = threading.Thread(target=reboot, daemon=True)
    restart.start()
    try:
        time.sleep(0.3)
        assert board.poll() is None
        bundle = tmp_path / "bundle"
        build_bundle(build_kit({"rules.tiles": 12}), bundle)
        proc = cli("firmware", "deploy", "--port", os.ttyname(slave), "--bundle", str(bundle))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(f"copied 8 files to {os.ttyname(slave)}")
        assert "the box is running: firmware" in proc.stdout and "12 tiles" in proc.stdout
        for path in (bundle / "device").iterdir():
            assert (board_dir / path.name).read_bytes() == path.read_bytes()
        assert not (board_dir / "box.py").exists()
        assert board.wait(timeout=10) == 0  # machine.reset() ended the first run
    finally:
        for process in [board, *rebooted]:
            if process.poll() is None:
                process.kill()
                process.wait()
        os.close(master)
        os.close(slave)


def test_one_mpremote_run_removes_shadowing_sources_copies_and_resets(tmp_path):
    from shutbox.firmware.host.deploy import mpremote_command

    bundle = tmp_path / "bundle"
    build_bundle(build_kit({}), bundle)
    command = mpremote_command("/dev/ttyACM0", bundle, ["main.py", "box.mpy"])
    assert command[:6] == [sys.executable, "-m", "mpremote", "connect", "/dev/ttyACM0", "resume"]
    assert command[-5:] == [str(bundle / "device" / "main.py"), str(bundle / "device" / "box.mpy"), ":.", "+",
                            "reset"]
    assert "box.py" in command[7] and "main.py" not in command[7]
    assert Path(command[-5]).is_file()


def test_after_the_reset_a_board_that_does_not_answer_is_no_hello():
    from shutbox.firmware.host.deploy import wait_for_hello

    start = time.monotonic()
    assert wait_for_hello("loop://", timeout_s=1.0) is None  # hears only its own "H" echoed back
    assert time.monotonic() - start < 3
