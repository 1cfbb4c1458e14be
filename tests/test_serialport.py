"""A serial port the user may not open: one line naming the port and the group fix (``dialout``), exit status 2."""

from __future__ import annotations

import errno
import os

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.cli.parser import main
from shutbox.firmware.host.serialport import group_fix, open_failure

serial = pytest.importorskip("serial")

DEVICE = "/dev/ttyACM7"


def _denied(url, *args, **kwargs):
    """What pyserial raises when os.open of the port fails with EACCES (serialposix.Serial.open)."""
    raise serial.SerialException(errno.EACCES, f"could not open port {url}: [Errno 13] Permission denied: '{url}'")


def test_permission_denied_names_the_dialout_group_in_one_line(monkeypatch):
    from shutbox.companion.live.link import open_serial

    monkeypatch.setattr(serial, "serial_for_url", _denied)
    with pytest.raises(ShutboxError) as caught:
        open_serial(DEVICE)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"--port {DEVICE}: cannot open (permission denied)")
    assert "dialout" in text and "uucp on Arch" in text
    assert "sudo usermod -aG dialout $USER" in text and "log out and back in" in text


def test_other_failures_keep_their_reason(monkeypatch):
    def missing(url, *args, **kwargs):
        raise serial.SerialException(errno.ENOENT, f"could not open port {url}: [Errno 2] No such file or directory")

    text = open_failure(DEVICE, serial.SerialException(errno.ENOENT, "could not open port x: [Errno 2] No such file"))
    assert "dialout" not in text and "No such file" in text
    from shutbox.companion.live.link import open_serial

    monkeypatch.setattr(serial, "serial_for_url", missing)
    with pytest.raises(ShutboxError, match="No such file") as caught:
        open_serial(DEVICE)
    assert "usermod" not in str(caught.value)


def test_the_group_that_owns_the_device_is_named(monkeypatch):
    """On a system whose ports belong to another group (Arch: uucp), the fix names that group."""
    import shutbox.firmware.host.serialport as sp

    monkeypatch.setattr(sp, "port_group", lambda device: "uucp")
    text = open_failure(DEVICE, PermissionError(errno.EACCES, "Permission denied"))
    assert f"the uucp group that owns it: {group_fix('uucp')}" in text


@pytest.mark.parametrize("command", [["monitor"], ["monitor", "--test"], ["play", "--players", "Ann,Bob"]])
def test_commands_that_open_the_port_say_it_and_exit_2(command, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(serial, "serial_for_url", _denied)
    db = ["--db", str(tmp_path / "games.sqlite3")] if command[0] == "play" else []
    status = main([*command, *db, "--port", DEVICE])
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    assert len(err.splitlines()) == 1, err
    assert DEVICE in err and "sudo usermod -aG dialout $USER" in err


def test_deploy_says_it_too(monkeypatch):
    from shutbox.firmware.host.deploy import stop_firmware

    monkeypatch.setattr(serial, "serial_for_url", _denied)
    with pytest.raises(ShutboxError, match=r"permission denied.*usermod -aG dialout"):
        stop_firmware(DEVICE)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root opens any file")
def test_a_real_unreadable_port_path(tmp_path):
    """Without faking: a file nobody may open, given as the port (pyserial's own EACCES)."""
    from shutbox.companion.live.link import open_serial

    port = tmp_path / "ttyACM0"
    port.write_bytes(b"")
    port.chmod(0)
    with pytest.raises(ShutboxError, match="usermod -aG dialout"):
        open_serial(str(port))
