"""Writing results the user asked for: a command writes only what it owns, atomically, or nothing at all.

- :func:`out_folder` (``kit``, ``cad``, ``firmware build`` ``--out DIR``): ``DIR`` may be a new path, an
  empty folder, or a folder holding an earlier output of the same command — recognised by that
  command's manifest, which must list every file in it. Anything else (a folder with other files, a
  regular file, a path through a dangling link or under a file) is refused before anything is touched
  or created. The new output is built in a staging folder beside ``DIR`` and swapped in at once
  (``renameat2(RENAME_EXCHANGE)`` on Linux), so ``DIR`` always holds a whole output.
- :func:`out_file` (a PDF, a CSV table, a game file): written to a temporary file in the same folder, then
  renamed over the target; an existing folder or device at the path is refused, and so is an existing ``.pdf``
  that is not a PDF (:data:`REPLACES`). A path whose suffix is not the one of what is written
  (``scorepad --out x.txt``) is refused before anything is done (:func:`check_suffix`; the commands' flags
  check it as they are parsed, through :func:`shutbox.cli.commandspec.out_file_flag`).
- A write that fails elsewhere on the way (a cache on the same full disk) is still reported as the user's
  output that could not be written, the other file named second (:func:`write_error`).

Staging folders and files are named ``.NAME.tmp-PID-…``; one left by a killed run (its process is gone)
is removed by the next run writing beside it. Every failure to write is a
:class:`~shutbox.base.errors.ShutboxError` naming the path and the reason; whatever was staged is removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown

#: Which files a manifest says its output holds (paths relative to the folder, the manifest included),
#: or None when the manifest is not one this command writes.
Listed = Callable[[Any], "set[str] | None"]

#: An existing file with this suffix is replaced only if it starts so (an earlier output, not a user's
#: document that happens to share the name).
REPLACES: dict[str, bytes] = {".pdf": b"%PDF-"}
#: Staging left without a process id (written before staging names carried one) is swept after this long.
LEGACY_STALE_S = 3600.0
_RENAME_EXCHANGE = 2


class OutputError(ShutboxError):
    """An output that may not or cannot be written."""


def _name(path: Path | str, flag: str | None) -> str:
    return f"{flag} {shown(str(path), 200)}" if flag else shown(str(path), 200)


def _reason(exc: BaseException) -> str:
    return shown(getattr(exc, "strerror", None) or str(exc) or type(exc).__name__, 120)


def write_error(path: Path | str, exc: BaseException, flag: str | None = None) -> OutputError:
    """The one-line error for a failed write of the output ``path``: the output first, whatever file failed.

    A file in the output's staging area is named as it would be in the output; any other file (a cache entry
    written on the way, on the same full disk) is named after the reason, as where it happened.
    """
    where = getattr(exc, "filename", None)
    parts = Path(str(where)).parts if where is not None else ()
    staged = [i for i, part in enumerate(parts) if part.startswith(".") and ".tmp-" in part]
    detail, elsewhere = "", ""
    if staged:  # a file in our staging area: name it as it would be in the output
        inside = "/".join(parts[staged[-1] + 1:])
        detail = f" {shown(inside, 120)}" if inside else ""
    elif where is not None and not _same_path(where, path):
        elsewhere = f"; it happened writing {shown(str(where), 120)}"
    return OutputError(f"{_name(path, flag)}: cannot write{detail} ({_reason(exc)}{elsewhere})")


def _same_path(a: object, b: Path | str) -> bool:
    return str(a) == str(b) or os.path.abspath(str(a)) == os.path.abspath(str(b))


#: What each kind of file written is called in messages.
KINDS: dict[str, str] = {".pdf": "PDF", ".csv": "CSV table", ".json": "JSON file", ".toml": "TOML file"}


def check_suffix(path: Path | str, suffix: str, flag: str | None = "--out") -> Path:
    """``path``, if its name ends in ``suffix`` (any case); else OutputError: what is written would not be what
    the name says (``scorepad --out x.txt`` would be a PDF called .txt)."""
    if os.path.exists(path) and not os.path.isfile(path):
        return Path(path)  # a folder or a device: check_out_file says so, more plainly
    name = Path(str(path)).name
    if not name.lower().endswith(suffix.lower()) or len(name) <= len(suffix):
        kind = KINDS.get(suffix.lower(), f"{suffix} file")
        stem = name[: -len(Path(name).suffix)] if Path(name).suffix else name
        hint = f", e.g. {shown(stem or 'out', 60)}{suffix}"
        raise OutputError(f"{_name(path, flag)}: a {kind} is written there; give a name ending in {suffix}{hint} "
                          "(nothing was written)")
    return Path(path)


# -- where an output may go ------------------------------------------------------------------------


def missing_parents(path: Path, flag: str | None = None, label: Path | str | None = None) -> list[Path]:
    """The folders above ``path`` that do not exist yet (outermost first); refuse a path that cannot be made.

    Refused: an existing ancestor that is a file, a dangling link on the way. ``label``: the path as the
    user gave it, for messages.
    """
    shown_path = path if label is None else label
    missing: list[Path] = []
    parent = path.parent
    while True:
        if os.path.lexists(parent):
            if os.path.islink(parent) and not os.path.exists(parent):
                raise OutputError(f"{_name(shown_path, flag)}: {shown(str(parent), 120)} is a link to nothing "
                                  f"({shown(os.readlink(parent), 120)})")
            if not parent.is_dir():
                raise OutputError(f"{_name(shown_path, flag)}: {shown(str(parent), 120)} is a file, not a folder")
            return missing[::-1]
        missing.append(parent)
        if parent == parent.parent:
            return missing[::-1]
        parent = parent.parent


def _target(path: Path | str, flag: str | None) -> Path:
    """The absolute path written: a link to an existing thing is followed; a dangling link is refused."""
    if str(path) == "" or "\x00" in str(path):
        raise OutputError(f"{_name(path, flag)}: not a usable path")
    absolute = Path(os.path.abspath(path))
    if os.path.islink(absolute):
        if not os.path.exists(absolute):
            raise OutputError(f"{_name(path, flag)}: is a link to nothing ({shown(os.readlink(absolute), 120)}); "
                              "give a real path")
        absolute = Path(os.path.realpath(absolute))
    return absolute


def _files_in(folder: Path, limit: int = 100_000) -> list[str] | None:
    """Every non-folder entry under ``folder`` (relative, links not followed); None past ``limit``."""
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        for name in [*files, *links]:
            found.append((rel / name).as_posix())
            if len(found) > limit:
                return None
        dirs[:] = [d for d in dirs if d not in links]
    return found


def read_manifest(path: Path) -> Any:
    """A manifest's JSON value, or None when it cannot be read as one."""
    from shutbox.base.bounded import parse_json

    try:
        if not path.is_file() or path.stat().st_size > 4 * 1024 * 1024:
            return None
        return parse_json(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, ShutboxError):
        return None


def check_out_folder(out: Path | str, command: str, manifest: str, listed: Listed, flag: str = "--out") -> Path:
    """The real folder ``out`` names, if a new output of ``command`` may replace it; OutputError if not."""
    target = _target(out, flag)
    missing_parents(target, flag, out)
    if not os.path.lexists(target):
        return target
    if not target.is_dir():
        raise OutputError(f"{_name(out, flag)}: is a file, not a folder; give a new folder or an earlier "
                          f"output of `shutbox {command}`")
    present = _files_in(target)
    if present == [] and not any(target.iterdir()):
        return target
    if present is not None:
        owned = listed(read_manifest(target / manifest))
        if owned is not None:
            strangers = sorted(set(present) - owned)
            if not strangers:
                return target
            raise OutputError(f"{_name(out, flag)}: holds {shown(strangers[0], 80)}, which `shutbox {command}` "
                              "did not write; move it away or give another folder (nothing was changed)")
    raise OutputError(f"{_name(out, flag)}: the folder holds other files, not an earlier output of "
                      f"`shutbox {command}` (no {manifest} listing them); give a new or empty folder "
                      "(nothing was changed)")


# -- staging -----------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(parent: Path, name: str) -> list[Path]:
    """Remove staging left beside ``parent/name`` by runs that were killed; return what was removed."""
    removed: list[Path] = []
    try:
        entries = list(parent.glob(f".{name}.tmp-*")) + list(parent.glob(f".{name}.old-*"))
    except OSError:
        return removed
    for entry in entries:
        tag = entry.name[len(name) + 6:]
        pid_text = tag.split("-", 1)[0]
        try:
            if pid_text.isdigit() and "-" in tag:
                if _alive(int(pid_text)):
                    continue
            elif time.time() - entry.lstat().st_mtime < LEGACY_STALE_S:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
        except OSError:
            continue
    return removed


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish(path: Path, replaces: Path | None = None) -> None:
    """Give a staged file or folder the permissions a normally created one would have, or for a file the permissions
    of the file it ``replaces`` (a user's 0600 drawing stays 0600)."""
    if replaces is not None and not path.is_dir():
        try:
            path.chmod(stat.S_IMODE(os.stat(replaces).st_mode))
            return
        except FileNotFoundError:
            pass
    mask = _umask()
    if path.is_dir():
        for item in [path, *path.rglob("*")]:
            if not item.is_symlink():
                item.chmod((0o777 if item.is_dir() else 0o666) & ~mask)
    else:
        path.chmod(0o666 & ~mask)


def _make_parents(missing: list[Path]) -> None:
    for folder in missing:
        folder.mkdir()


def _remove_made(missing: list[Path]) -> None:
    for folder in reversed(missing):
        with contextlib.suppress(OSError):
            folder.rmdir()


@contextmanager
def out_folder(out: Path | str, command: str, manifest: str, listed: Listed, flag: str = "--out") -> Iterator[Path]:
    """Yield an empty staging folder; when the body succeeds it becomes ``out`` (see the module docstring).

    ``out`` is checked (:func:`check_out_folder`) before anything is created. If the body raises, the
    staging folder (and any parent folder made for it) is removed and ``out`` is left as it was.
    """
    target = check_out_folder(out, command, manifest, listed, flag)
    missing = missing_parents(target, flag)
    try:
        _make_parents(missing)
        sweep_stale(target.parent, target.name)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-{os.getpid()}-", dir=target.parent))
    except OSError as exc:
        _remove_made(missing)
        raise OutputError(f"{_name(out, flag)}: cannot write in {shown(str(target.parent), 120)} "
                          f"({_reason(exc)})") from None
    try:
        yield tmp
        _publish(tmp)
        check_out_folder(out, command, manifest, listed, flag)  # nobody put anything there meanwhile
        if os.path.lexists(target) and target.is_dir() and _exchange(tmp, target):
            shutil.rmtree(tmp, ignore_errors=True)  # now the previous output
        else:
            _replace_folder(tmp, target)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_made(missing)
        if isinstance(exc, (OSError, shutil.Error)):
            raise write_error(out, exc, flag) from None
        raise


def _replace_folder(tmp: Path, target: Path) -> None:
    """Move ``tmp`` to ``target`` without renameat2: the old output is set aside, then removed."""
    if not os.path.lexists(target):
        os.rename(tmp, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-{os.getpid()}-", dir=target.parent))
    os.rename(target, old / "previous")
    try:
        os.rename(tmp, target)
    except OSError:
        os.rename(old / "previous", target)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


def check_out_file(path: Path | str, flag: str | None = "--out", suffix: str | None = None) -> Path:
    """The real file ``path`` names, if it may be written; OutputError for a folder, a device, a bad path, or a
    name not ending in ``suffix`` (when given)."""
    if suffix is not None:
        check_suffix(path, suffix, flag)
    target = _target(path, flag)
    missing_parents(target, flag, path)
    if os.path.lexists(target):
        if target.is_dir():
            raise OutputError(f"{_name(path, flag)}: is a folder; give the name of a file to write")
        if not target.is_file():
            raise OutputError(f"{_name(path, flag)}: is not a regular file (a device or a pipe); give a file name")
        magic = REPLACES.get(target.suffix.lower())
        if magic is not None and target.stat().st_size > 0 and not _starts_with(target, magic):
            raise OutputError(f"{_name(path, flag)}: exists and is not a {target.suffix.lower()[1:].upper()} file, so "
                              "it is not replaced; give another name (nothing was changed)")
    return target


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(magic)) == magic
    except OSError:
        return False


@contextmanager
def out_file(path: Path | str, flag: str | None = "--out", suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary file path beside ``path``; on success it replaces ``path`` (see the module docstring).

    ``suffix``: what is written (``.pdf``, ``.csv``); a path not ending so is refused before anything is made.
    """
    target = check_out_file(path, flag, suffix)
    missing = missing_parents(target, flag)
    try:
        _make_parents(missing)
        sweep_stale(target.parent, target.name)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.tmp-{os.getpid()}-", dir=target.parent)
        os.close(fd)
    except OSError as exc:
        _remove_made(missing)
        raise OutputError(f"{_name(path, flag)}: cannot write in {shown(str(target.parent), 120)} "
                          f"({_reason(exc)})") from None
    tmp = Path(name)
    try:
        yield tmp
        _publish(tmp, target)
        check_out_file(path, flag)
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        _remove_made(missing)
        if isinstance(exc, OSError):
            raise write_error(path, exc, flag) from None
        raise


def staged_file(path: Path | str, flag: str | None = "--out", suffix: str | None = None) \
        -> contextlib.AbstractContextManager[Path]:
    """The former name of :func:`out_file` (print/ and the game file call it)."""
    return out_file(path, flag, suffix)
