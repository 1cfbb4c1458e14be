"""The per-game OS lock of a game database: one scorekeeper per game, released by the kernel when its process dies.

The lock file ``PATH-lock`` beside the database holds a byte-range lock per game and the holder's line (pid, host,
since, token) per game; nothing about the lock is written into the database itself.
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
import struct
import sys
import time
from pathlib import Path


class GameLocks:
    """Per-game locks in ``PATH-lock``: byte ``LOCK_BASE + id`` locked, the holder's line at ``id * HOLDER_SIZE``.

    Locks belong to the open file description (Linux ``F_OFD_SETLK``; elsewhere POSIX ``lockf``, per process),
    so two stores in one process exclude each other too, and a killed process releases its locks.
    """

    LOCK_BASE = 1 << 40
    HOLDER_SIZE = 128
    SLOTS = 1 << 20

    def __init__(self, path: Path | None) -> None:
        self.path = None if path is None else Path(f"{path}-lock")  #: None: an in-memory database, no file
        self.fd = -1
        self.held: set[int] = set()
        self.token = secrets.token_hex(6)

    def _lock(self, start: int, length: int, kind: int) -> bool:
        """Take (or, with ``F_UNLCK``, drop) a byte-range lock on the lock file without waiting; False if held."""
        import fcntl

        ofd = getattr(fcntl, "F_OFD_SETLK", None)
        try:
            if ofd is not None and sys.platform.startswith("linux"):
                fcntl.fcntl(self.fd, ofd, struct.pack("hhqqi4x", kind, os.SEEK_SET, start, length, 0))
            else:
                op = {fcntl.F_WRLCK: fcntl.LOCK_EX | fcntl.LOCK_NB, fcntl.F_UNLCK: fcntl.LOCK_UN}[kind]
                fcntl.lockf(self.fd, op, length, start, os.SEEK_SET)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EAGAIN):
                return False
            raise
        return True

    def _ours(self) -> bool:
        """Does the path still name the file this store has open (not removed, not replaced)? Opens no file."""
        assert self.path is not None
        try:
            here, mine = os.stat(self.path), os.fstat(self.fd)
        except FileNotFoundError:
            return False
        return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)

    def acquire(self, game_id: int) -> bool:
        """Lock ``game_id`` and write this process as its holder; False if another holds it.

        The lock file may be removed by the last store closing it (:meth:`close`): a lock taken on a file that is
        no longer at the path is let go and taken again on the file that is.
        """
        import fcntl

        if self.path is None:
            self.held.add(game_id)
            return True
        slot = game_id % self.SLOTS
        for _ in range(5):
            if self.fd < 0:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            if not self._lock(self.LOCK_BASE + slot, 1, fcntl.F_WRLCK):
                return False
            if self._ours():
                break
            os.close(self.fd)  # removed by a closing store meanwhile: open the file now there
            self.fd = -1
        else:
            raise OSError(errno.EAGAIN, "the lock file keeps being replaced", str(self.path))
        line = f"{os.getpid()} {socket.gethostname()[:60]} {time.time():.0f} {self.token}\n"
        os.pwrite(self.fd, line.encode("ascii", "replace").ljust(self.HOLDER_SIZE, b" "), slot * self.HOLDER_SIZE)
        self.held.add(game_id)
        return True

    def holder(self, game_id: int) -> list[str]:
        """The holder line's words (pid, host, since, token) as the lock file says now; [] if unknown."""
        if self.path is None:
            return []
        offset = (game_id % self.SLOTS) * self.HOLDER_SIZE
        try:
            if self.fd >= 0 and self._ours():
                raw = os.pread(self.fd, self.HOLDER_SIZE, offset)
            else:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)  # the file now at the path, not ours
                try:
                    raw = os.pread(fd, self.HOLDER_SIZE, offset)
                finally:
                    os.close(fd)
        except OSError:
            return []
        words = raw.decode("ascii", "replace").split()
        return words if len(words) == 4 else []

    def still_mine(self, game_id: int) -> bool:
        """Is ``game_id`` still locked by this store, in the file at the path, with this store's token in it?

        Opens no file (a crowd of web connections may have taken every one the process may open): the path is
        compared with the open lock file by ``stat``, and the holder line read from that file.
        """
        if self.path is None:
            return True
        if game_id not in self.held or self.fd < 0 or not self._ours():
            return False
        raw = os.pread(self.fd, self.HOLDER_SIZE, (game_id % self.SLOTS) * self.HOLDER_SIZE)
        return raw.decode("ascii", "replace").split()[3:] == [self.token]

    def close(self) -> None:
        """Let go of every game; the lock file is removed too when no other store has a game in it."""
        import fcntl

        if self.fd >= 0:
            try:
                if self.path is not None and hasattr(fcntl, "F_OFD_SETLK") and sys.platform.startswith("linux") \
                        and self._lock(self.LOCK_BASE, self.SLOTS, fcntl.F_WRLCK) and self._ours():
                    os.unlink(self.path)  # nobody holds a game in it: leave nothing beside the database
            except OSError:
                pass
            os.close(self.fd)  # releases every lock this store holds
            self.fd = -1
        self.held.clear()
