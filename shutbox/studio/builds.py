"""The studio's builds: a bounded pool of ``shutbox kit`` runs, shared by equal settings, kept under a size limit.

- **One build per settings**: a build's id is the hash of every setting (:func:`build_id`); posting settings a
  build is queued, running or done for joins that build (:meth:`Pool.submit`), so two people who chose the same
  get one build and two who chose differently get their own.
- **Steps**: the preview first when every part is in the CAD part cache already (a GLB of the cached meshes, made
  in a :class:`Standby` process that has CadQuery loaded: a second or so), then the kit itself -- the
  ``shutbox kit`` command, run as on the command line in a process of its own with the settings as its
  ``--config`` -- then the preview if it could not come first, then the zip. The kit's own progress lines are
  the build's progress.
- **The pool**: :data:`QUEUED_MAX` builds wait at most; ``workers`` run at once, each its processes in a session of
  their own. A build nobody wants any more (:meth:`Pool.cancel`) or a pool that stops ends its processes' whole
  group (the kit's side process too) and removes its folder: the zip is written under a temporary name and
  renamed when whole, so no half-written zip is ever served or left.
- **Keeping**: finished builds (zip and preview) are kept while they fit ``keep_bytes``, the oldest finished (or
  asked for again) evicted first.

Every path is the pool's own: a build's folder is named by its id under the pool's root; nothing a request says
becomes a path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from shutbox.base.errors import ShutboxError
from shutbox.kit.config import kit_to_toml
from shutbox.kit.model import Kit, kit_as_dict, kit_as_flat
from shutbox.studio.glb import missing_parts

#: Builds that may wait for a worker; one more is refused (busy), so a crowd cannot queue work without end.
QUEUED_MAX = 16
#: Seconds a process is given to end after SIGTERM before it is killed.
END_GRACE_S = 5.0
#: Seconds a preview process may take to load and make its GLB.
PREVIEW_TIMEOUT_S = 120.0
#: The folder the zip holds the kit in.
ZIP_FOLDER = "shutbox-kit"

STATES = ("queued", "building", "done", "failed")
#: The CAD build's progress line (``shutbox cad [12/24] ...``, :class:`shutbox.base.progress.StepLines`): one step
#: per part first, so at the step numbered as the parts are many, every part is in the cache.
_CAD_STEP = re.compile(r"^shutbox cad \[(\d+)/\d+\]")


class Busy(ShutboxError):
    """The pool's queue is full."""


def build_id(kit: Kit) -> str:
    """The id of the build of ``kit``: a hash of every setting (equal settings, one build)."""
    text = json.dumps(kit_as_dict(kit), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Build:
    """One kit being built, or built (see the module docstring)."""

    id: str
    kit: Kit
    folder: Path
    state: str = "queued"
    progress: str = "waiting for a free builder"
    reason: str | None = None
    wanted: int = 1  #: posts of these settings not cancelled since
    preview: Path | None = None
    zip: Path | None = None
    nodes: list[str] = field(default_factory=list)
    size: int = 0
    used: float = field(default_factory=time.monotonic)  #: finished, or asked for again: the eviction order
    seconds: float | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    processes: list[subprocess.Popen[Any]] = field(default_factory=list)

    def status(self) -> dict[str, Any]:
        """``GET /api/builds/ID``."""
        out: dict[str, Any] = {"id": self.id, "state": self.state, "preview": self.preview is not None,
                               "settings": kit_as_dict(self.kit)}
        if self.state in ("queued", "building"):
            out["progress"] = self.progress
        if self.state == "failed":
            out["reason"] = self.reason
        if self.preview is not None:
            out["parts"] = self.nodes
        if self.state == "done":
            out["zip_bytes"] = self.zip.stat().st_size if self.zip is not None and self.zip.exists() else 0
            out["seconds"] = self.seconds
        return out


def end_process(proc: subprocess.Popen[Any]) -> None:
    """End ``proc`` and every process of its session (it was started in one of its own): SIGTERM, then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, END_GRACE_S), (signal.SIGKILL, END_GRACE_S)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # what the leader left behind (a side process)
        end = time.monotonic() + END_GRACE_S
        while group_running(proc.pid) and time.monotonic() < end:  # a killed process takes a moment to go
            time.sleep(0.02)
        return


def group_running(pgid: int) -> bool:
    """Does a process of group ``pgid`` still run? A zombie (dead, not yet reaped by whoever adopted it) does not:
    in a container whose first process reaps nothing it stays one. Without ``/proc``: any member at all."""
    proc_root = Path("/proc")
    if not proc_root.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for stat in proc_root.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _python(*args: str, stdin: int | None = None, stdout: int | None = None,
            stderr: int | None = None, cwd: Path | None = None) -> subprocess.Popen[str]:
    """``python -m ...`` in a session of its own (so it and its children end together)."""
    return subprocess.Popen([sys.executable, *args], stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd,
                            text=True, start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


class Standby:
    """A preview process loaded and waiting (:mod:`shutbox.studio.previewer`); each is used once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: subprocess.Popen[str] | None = None
        self._loaded: set[int] = set()  #: processes whose "ready" was read already (by :meth:`wait_ready`)
        self._stopped = False

    def _start(self) -> subprocess.Popen[str]:
        return _python("-m", "shutbox.studio.previewer", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)

    def warm(self) -> None:
        """Have a process loading now (the pool's start)."""
        with self._lock:
            if self._waiting is None and not self._stopped:
                self._waiting = self._start()

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the waiting process has loaded (it says ``ready``); False if it has not within ``timeout``."""
        with self._lock:
            proc = self._waiting
        if proc is None or proc.stdout is None:
            return False
        if proc.pid in self._loaded:
            return True
        if not select.select([proc.stdout], [], [], timeout)[0]:
            return False
        loaded = proc.stdout.readline().strip() == "ready"
        if loaded:
            self._loaded.add(proc.pid)
        return loaded

    def take(self) -> subprocess.Popen[str]:
        """A process for one preview (the waiting one, if any); another starts loading for the next."""
        with self._lock:
            if self._stopped:
                raise ShutboxError("the studio is stopping")
            proc = self._waiting if self._waiting is not None and self._waiting.poll() is None else self._start()
            self._waiting = self._start()
            return proc

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            proc, self._waiting = self._waiting, None
        if proc is not None:
            end_process(proc)


class Pool:
    """The studio's builds (see the module docstring). ``say``: one line for the terminal."""

    def __init__(self, root: Path, *, workers: int = 2, keep_bytes: int = 2_000_000_000,
                 say: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.workers = workers
        self.keep_bytes = keep_bytes
        self.say = say or (lambda text: None)
        self.builds: dict[str, Build] = {}
        self.queue: deque[Build] = deque()
        self.standby = Standby()
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._threads: list[threading.Thread] = []
        self._stopping = False
        self._made = 0

    # -- the pool ----------------------------------------------------------------------------------

    def start(self) -> Pool:
        self.root.mkdir(parents=True, exist_ok=True)
        self.standby.warm()
        for n in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"studio-builder-{n + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> int:
        """Cancel every build not done, end their processes, remove every build's files; the builds cancelled."""
        with self._lock:
            self._stopping = True
            unfinished = [b for b in self.builds.values() if b.state in ("queued", "building")]
            for build in unfinished:
                build.cancelled.set()
            for build in self.queue:
                self._fail(build, "the studio stopped")
            self.queue.clear()
            self._ready.notify_all()
        for build in unfinished:
            self._end_processes(build)
        for thread in self._threads:
            thread.join(timeout=2 * END_GRACE_S + 5)
        self.standby.stop()
        shutil.rmtree(self.root, ignore_errors=True)
        return len(unfinished)

    def __enter__(self) -> Pool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- asking ------------------------------------------------------------------------------------

    def submit(self, kit: Kit) -> Build:
        """The build of ``kit``: the one queued, running or done for these settings, else a new one queued
        (:class:`Busy` when :data:`QUEUED_MAX` wait already)."""
        key = build_id(kit)
        with self._lock:
            if self._stopping:
                raise Busy("the studio is stopping")
            held = self.builds.get(key)
            if held is not None and held.state in ("queued", "building", "done") and not held.cancelled.is_set():
                held.wanted = max(held.wanted, 0) + 1
                held.used = time.monotonic()
                return held
            if len(self.queue) >= QUEUED_MAX:
                raise Busy(f"{QUEUED_MAX} builds are waiting already; try again in a minute")
            self._made += 1
            build = Build(key, kit, self.root / f"{key}-{self._made}")  # a cancelled one may still be cleaning up
            self.builds[key] = build
            self.queue.append(build)
            self._ready.notify()
            return build

    def get(self, key: str) -> Build | None:
        with self._lock:
            return self.builds.get(key)

    def cancel(self, key: str) -> Build | None:
        """One post of these settings is no longer wanted; the build is cancelled when none is (ends its
        processes, removes its files). None: no such build."""
        with self._lock:
            build = self.builds.get(key)
            if build is None:
                return None
            build.wanted -= 1
            if build.wanted > 0 or build.state not in ("queued", "building"):
                return build
            build.cancelled.set()
            if build in self.queue:
                self.queue.remove(build)
                self._fail(build, "cancelled")
        self._end_processes(build)
        return build

    def open_file(self, key: str, which: str) -> tuple[IO[bytes], int] | None:
        """The open zip (``kit.zip``) or preview (``preview.glb``) of a build, and its size; None when it has none
        (yet). Opened under the pool's lock: an eviction after this leaves the open file readable."""
        with self._lock:
            build = self.builds.get(key)
            if build is None:
                return None
            path = build.zip if which == "kit.zip" else build.preview if which == "preview.glb" else None
            if path is None:
                return None
            try:
                handle = path.open("rb")
            except OSError:
                return None
            build.used = time.monotonic()
            return handle, os.fstat(handle.fileno()).st_size

    # -- building ----------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self.queue and not self._stopping:
                    self._ready.wait()
                if self._stopping:
                    return
                build = self.queue.popleft()
                build.state = "building"
                build.progress = "starting"
            started = time.monotonic()
            try:
                self._build(build)
            except Exception as exc:  # noqa: BLE001 - a failed build is its status and one line, not a dead worker
                reason = str(exc) if isinstance(exc, ShutboxError) else f"{type(exc).__name__}: {exc}"
                with self._lock:
                    self._fail(build, "cancelled" if build.cancelled.is_set() else reason)
                if not build.cancelled.is_set():
                    self.say(f"studio: build {build.id} failed: {reason}")
                shutil.rmtree(build.folder, ignore_errors=True)
                continue
            with self._lock:
                if build.cancelled.is_set():
                    self._fail(build, "cancelled")
                else:
                    build.state, build.used, build.seconds = "done", time.monotonic(), time.monotonic() - started
            if build.cancelled.is_set():
                shutil.rmtree(build.folder, ignore_errors=True)
            else:
                self.evict()

    def _fail(self, build: Build, reason: str) -> None:
        build.state, build.reason, build.preview, build.zip = "failed", reason, None, None

    def _check(self, build: Build) -> None:
        if build.cancelled.is_set():
            raise ShutboxError("cancelled")

    def _build(self, build: Build) -> None:
        folder = build.folder
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        build.progress = "looking for the parts in the part cache"
        missing, parts = missing_parts(build.kit)
        if not missing:
            self._preview(build)
        self._check(build)
        self._kit(build, parts)
        if build.preview is None:
            self._preview(build)
        self._check(build)
        build.progress = "zipping the kit"
        self._zip(build)
        shutil.rmtree(folder / "kit", ignore_errors=True)
        build.size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())

    def _run(self, build: Build, proc: subprocess.Popen[str]) -> None:
        """Note ``proc`` as the build's (so a cancel ends it); end it at once if the build is cancelled already."""
        with self._lock:
            build.processes.append(proc)
            late = build.cancelled.is_set()
        if late:
            end_process(proc)

    def _end_processes(self, build: Build) -> None:
        with self._lock:
            procs = list(build.processes)
        for proc in procs:
            end_process(proc)

    def _preview(self, build: Build) -> None:
        build.progress = "making the 3D preview"
        proc = self.standby.take()
        self._run(build, proc)
        out = build.folder / "preview.glb"
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps({"settings": kit_as_flat(build.kit), "out": str(out)}) + "\n")
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            self._check(build)
            raise ShutboxError("the preview process ended before its job") from None
        answer = ""
        for line in proc.stdout:  # "ready", then the answer
            answer = line
        try:
            proc.wait(PREVIEW_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            end_process(proc)
        self._check(build)
        result = json.loads(answer) if answer.startswith("{") else {"ok": False, "error": "no answer"}
        if not result.get("ok"):
            raise ShutboxError(f"the preview failed: {result.get('error')}")
        build.nodes = list(result.get("nodes", []))
        build.preview = out
        build.progress = "preview ready; the rest of the kit follows"

    def _kit(self, build: Build, parts: int) -> None:
        """``shutbox kit`` into the build's folder, its progress lines as the build's; the preview as soon as its
        CAD build has made all ``parts``."""
        folder = build.folder
        (folder / "settings.toml").write_text(kit_to_toml(build.kit), encoding="utf-8")
        build.progress = "starting shutbox kit"
        proc = _python("-m", "shutbox", "kit", "--config", "settings.toml", "--out", "kit",
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=folder)
        self._run(build, proc)
        assert proc.stderr is not None
        last = ""
        for line in proc.stderr:
            text = line.strip()
            if text:
                last = text
                build.progress = text.removeprefix("shutbox ")
            step = _CAD_STEP.search(text)
            if step and build.preview is None and int(step.group(1)) == parts:
                self._early_preview(build)
        code = proc.wait()
        self._check(build)
        if code != 0:
            raise ShutboxError(last.removeprefix("shutbox: error: ") or f"shutbox kit ended with status {code}")

    def _early_preview(self, build: Build) -> None:
        """The preview as soon as the kit's CAD build has every part in the cache (the rest of the kit follows);
        if it fails here, it is made again after the kit."""
        try:
            self._preview(build)
        except ShutboxError:
            build.preview = None

    def _zip(self, build: Build) -> None:
        """The kit folder as ``kit.zip`` (written under another name, renamed when whole)."""
        kit = build.folder / "kit"
        target = build.folder / "kit.zip"
        partial = build.folder / ".kit.zip.part"
        try:
            with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
                for path in sorted(kit.rglob("*")):
                    self._check(build)
                    if path.is_file():
                        archive.write(path, f"{ZIP_FOLDER}/{path.relative_to(kit).as_posix()}")
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        build.zip = target

    # -- keeping -----------------------------------------------------------------------------------

    def evict(self) -> None:
        """Remove the oldest finished builds until those kept fit ``keep_bytes`` (the newest is always kept)."""
        gone: list[Build] = []
        with self._lock:
            done = sorted((b for b in self.builds.values() if b.state == "done"), key=lambda b: b.used)
            total = sum(b.size for b in done)
            for build in done[:-1]:
                if total <= self.keep_bytes:
                    break
                total -= build.size
                del self.builds[build.id]
                gone.append(build)
            for build in [b for b in self.builds.values() if b.state == "failed"][:-QUEUED_MAX]:
                del self.builds[build.id]  # keep the reasons of the latest failures only
        for build in gone:
            shutil.rmtree(build.folder, ignore_errors=True)

    @property
    def kept_bytes(self) -> int:
        with self._lock:
            return sum(b.size for b in self.builds.values() if b.state == "done")
