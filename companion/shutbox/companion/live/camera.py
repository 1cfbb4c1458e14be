"""The camera over the tray: frames read with OpenCV, the dice read when they come to rest, entered as a throw.

:class:`CameraWatch` (a thread) reads a device (``0``, ``/dev/video2``), a video file or an image sequence
(``frames/%03d.jpg``, at :data:`SEQUENCE_FPS`), and puts a :class:`CameraRead` on the session's queue for
each rest (:class:`shutbox.dice.rest.RestWatch`). :func:`enter_reading` (``shutbox play``) turns a reading
into a ``Throw(source="camera")`` for the referee, like a typed throw, and keeps the picture and what was
read with the game when the throw is recorded. A reading with a die unsure, or none, is not entered; nor is one of
more or fewer dice than the rules allow for this throw (three dice where two are thrown): the screen says what was
seen.
The web page's photo (``POST /photo``) is read and entered the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.game.events import ThrowEvent

if TYPE_CHECKING:
    import numpy as np

    from shutbox.companion.live.livestate import Table
    from shutbox.dice.reader import Reading

#: Frames per second assumed for an image sequence or a video that does not say.
SEQUENCE_FPS = 10.0
#: Longer side of the picture kept with the game, px.
KEPT_SIZE = 480


@dataclass(frozen=True)
class CameraRead:
    """The dice read from one picture (the camera at rest, or a phone's photo) and that picture as a JPEG."""

    values: tuple[int, ...]
    unsure: int
    jpeg: bytes
    source: str = "camera"


def reading_of(image: np.ndarray, source: str = "camera") -> CameraRead:
    """Read a picture and keep a small JPEG of it with what was read drawn on it."""
    import cv2

    from shutbox.dice.annotate import annotate
    from shutbox.dice.reader import read_dice

    reading: Reading = read_dice(image)
    drawn = annotate(image, reading)
    scale = min(1.0, KEPT_SIZE / max(drawn.shape[:2]))
    small = cv2.resize(drawn, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else drawn
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return CameraRead(tuple(reading.values), len(reading.unsure), data.tobytes() if ok else b"", source)


def enter_reading(session: Table, read: CameraRead) -> bool:
    """Enter a reading as the throw (``source`` camera), as if typed; keep it with the game if recorded."""
    from shutbox.companion.live.command import Throw

    if read.unsure or not read.values:
        what = f"{read.unsure} die unsure" if read.unsure == 1 else f"{read.unsure} dice unsure" if read.unsure \
            else "no dice seen"
        seen = f" (read: {' '.join(map(str, read.values))})" if read.values else ""
        session.view.note("refused", f"{read.source}: {what}{seen}; throw not entered (type it, or take another "
                          "picture)")
        return False
    game = session.game
    if game is not None and not game.finished and len(read.values) not in game.dice_counts():
        session.view.note("refused", f"{read.source}: {_seen(read.values)}; this throw takes "
                          f"{_counts(game.dice_counts())}; throw not entered (type it, or take another picture)")
        return False
    before = len(game.to_events()) if game is not None else 0
    session.handle(Throw(dice=read.values, source="camera"))
    game = session.game
    events = game.to_events() if game is not None else []
    if session.game_id is None or len(events) <= before:
        return False
    seq = next((i for i in range(before, len(events)) if isinstance(events[i], ThrowEvent)), None)
    if seq is None:
        return False
    session.store.keep_reading(session.game_id, seq, read.source, list(read.values), read.unsure, read.jpeg)
    return True


def _seen(values: tuple[int, ...]) -> str:
    """``saw 3 dice (2 4 5)``."""
    return f"saw {len(values)} {'die' if len(values) == 1 else 'dice'} ({' '.join(map(str, values))})"


def _counts(counts: tuple[int, ...]) -> str:
    """``2 dice``, ``1 die``, ``1 or 2 dice``."""
    return f"{' or '.join(map(str, counts))} {'die' if counts == (1,) else 'dice'}"


@dataclass
class PhotoPost:
    """A photo posted from the web page, read; the session answers through ``reply`` (ok, its messages)."""

    read: CameraRead
    reply: Future[tuple[bool, list[tuple[str, str]]]] = field(default_factory=Future)


class _Heard:
    """A view that keeps the messages of one command (for the page's answer) and passes them on."""

    def __init__(self, view: Any) -> None:
        self.view, self.notes = view, []

    def note(self, kind: str, text: str) -> None:
        self.notes.append((kind, text))
        self.view.note(kind, text)

    def show(self, state: Any) -> None:
        self.view.show(state)


def enter_photo(session: Table, post: PhotoPost) -> None:
    """Enter a posted photo's reading as the throw; answer the page with what happened."""
    view = session.view
    heard = _Heard(view)
    session.view = heard
    try:
        entered = enter_reading(session, post.read)
    except BaseException:
        if not post.reply.done():
            post.reply.set_result((False, [*heard.notes, ("refused", "the scorekeeper stopped")]))
        raise
    finally:
        session.view = view
    if not post.reply.done():
        post.reply.set_result((entered and not any(k == "refused" for k, _ in heard.notes), heard.notes))


def enter_dice(session: Table, item: CameraRead | PhotoPost) -> None:
    """A camera's reading or a posted photo, entered (the session hands both here)."""
    if isinstance(item, PhotoPost):
        enter_photo(session, item)
    else:
        enter_reading(session, item)


def open_capture(device: str) -> Any:
    """An OpenCV capture of ``device`` (a number, a device path, a video file or an image sequence pattern)."""
    import cv2

    from shutbox.dice.imagefile import quiet_opencv

    quiet_opencv()
    source: int | str = int(device) if device.isdigit() else device
    capture = cv2.VideoCapture(source)
    if not capture.isOpened():
        capture.release()
        raise ShutboxError(f"--camera {shown(device, 200)}: cannot be opened (give a camera number such as 0, a "
                           "device such as /dev/video0, a video file or an image sequence such as frames/%03d.jpg)")
    return capture


def check_camera(device: str | None) -> None:
    """Refuse a ``--camera`` that cannot be opened (None: no camera asked for)."""
    if device is not None:
        open_capture(device).release()


class CameraWatch:
    """Reads frames in a thread; each rest of the dice becomes a :class:`CameraRead` handed to ``submit``."""

    def __init__(self, device: str, submit: Callable[[Any], None], still_s: float = 0.5) -> None:
        from shutbox.dice.rest import RestWatch

        self.device = device
        self.capture = open_capture(device)
        self.submit = submit
        self.rest = RestWatch(still_s)
        self.live = device.isdigit() or device.startswith("/dev/")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self.frames = 0

    def start(self) -> CameraWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2)
        self.capture.release()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        import cv2

        fps = SEQUENCE_FPS if "%" in self.device else float(self.capture.get(cv2.CAP_PROP_FPS) or 0) or SEQUENCE_FPS
        start = time.monotonic()
        while not self._stop.is_set():
            ok, frame = self.capture.read()
            if not ok or frame is None:
                if self.live:
                    time.sleep(0.05)
                    continue
                return  # the end of a recording
            at = time.monotonic() - start if self.live else self.frames / fps
            self.frames += 1
            if self.rest.frame(frame, at):
                self.submit(reading_of(frame))
