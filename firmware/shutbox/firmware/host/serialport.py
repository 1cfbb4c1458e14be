"""Why a serial port would not open, in words a user can act on; the one text about Linux's serial port group.

On Linux a USB serial port (``/dev/ttyACM0``) belongs to the group ``dialout`` (``uucp`` on Arch); a user outside
it gets "permission denied". The build guide and every command that opens a port say the same fix.
"""

from __future__ import annotations

import errno
import grp
import os
import stat

#: The group owning serial ports on most Linux systems, and on Arch (and its derivatives).
PORT_GROUP = "dialout"
ARCH_PORT_GROUP = "uucp"


def group_command(group: str = PORT_GROUP) -> str:
    """The shell command that adds the user to ``group``."""
    return f"sudo usermod -aG {group} $USER"


def group_fix(group: str = PORT_GROUP) -> str:
    """The command that lets the user open the port, and what to do after it."""
    return f"{group_command(group)}, then log out and back in"


def port_group(device: str) -> str | None:
    """The group owning ``device`` when it is a character device, else None."""
    try:
        info = os.stat(device)
        return grp.getgrgid(info.st_gid).gr_name if stat.S_ISCHR(info.st_mode) else None
    except (OSError, KeyError):
        return None


def is_permission_error(exc: BaseException) -> bool:
    """Whether opening a port failed for want of permission (pyserial passes the OS's errno on)."""
    code = getattr(exc, "errno", None)
    return code in (errno.EACCES, errno.EPERM) or isinstance(exc, PermissionError) or \
        "Permission denied" in str(exc)


def address_refusal(device: str) -> str | None:
    """Why a network port URL (``socket://HOST:PORT``, ``rfc2217://HOST:PORT``) cannot be opened, or None: pyserial
    words a bad one as its list of log levels."""
    scheme, sep, rest = device.partition("://")
    if not sep or scheme not in ("socket", "rfc2217"):
        return None
    address = rest.split("?", 1)[0].split("/", 1)[0]
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        return (f"--port {device}: not an address pyserial can open; give {scheme}://HOST:PORT with a host name or "
                "address and a TCP port from 1 to 65535")
    return None


def open_failure(device: str, exc: BaseException) -> str:
    """One line: ``--port DEVICE: cannot open (...)``, with the group fix when permission was denied."""
    refusal = address_refusal(device)
    if refusal is not None:
        return refusal
    text = str(exc)
    if is_permission_error(exc):
        group = port_group(device)
        if group is None or group == "root":
            where = f"the {PORT_GROUP} group ({ARCH_PORT_GROUP} on Arch)"
            group = PORT_GROUP
        else:
            where = f"the {group} group that owns it"
        return (f"--port {device}: cannot open (permission denied); your user must be in {where}: "
                f"{group_fix(group)}")
    if "exclusively lock" in text:
        text = "it is in use by another program (another shutbox?)"
    return f"--port {device}: cannot open ({text})"
