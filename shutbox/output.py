"""Write results atomically: build in a temporary place, move into place only when complete."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish(path: Path) -> None:
    """Give a staged file or folder the permissions a normally created one would have."""
    mask = _umask()
    if path.is_dir():
        for item in [path, *path.rglob("*")]:
            item.chmod((0o777 if item.is_dir() else 0o666) & ~mask)
    else:
        path.chmod(0o666 & ~mask)


@contextmanager
def staged_dir(out: Path) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``out``; on success it replaces ``out``.

    If the body raises, the temporary folder is removed and ``out`` is left as it was.
    """
    out = Path(out)
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _publish(tmp)
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
        os.replace(out, old / "previous")
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextmanager
def staged_file(path: Path) -> Iterator[Path]:
    """Yield a temporary file path beside ``path``; on success it replaces ``path``."""
    path = Path(path)
    path.resolve().parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.resolve().parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _publish(tmp)
    os.replace(tmp, path)
