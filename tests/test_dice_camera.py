"""The camera at the table: rest detection, a recorded image sequence standing in for a device, readings
entered as camera throws (verified, flagged when the tiles disagree) and kept with the game."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

cv2 = pytest.importorskip("cv2")
import numpy as np  # noqa: E402

from shutbox.companion.live.camera import CameraRead, CameraWatch, enter_reading, reading_of  # noqa: E402
from shutbox.companion.live.session import LiveSession  # noqa: E402
from shutbox.companion.store.database import GameStore  # noqa: E402
from shutbox.dice.reader import read_dice  # noqa: E402
from shutbox.dice.rest import RestWatch  # noqa: E402
from shutbox.kit.model import Rules  # noqa: E402
from tests.conftest import REPO, run_cli  # noqa: E402
from tests.test_companion_live_session import Recorder, box, snapshot  # noqa: E402

SET = REPO / "tests" / "dice_set"
LABELS = json.loads((SET / "labels.json").read_text(encoding="utf-8"))


def two_dice_file() -> tuple[Path, list[int]]:
    """A picture of the set with two dice the reader reads fully, and their values."""
    for name in sorted(LABELS):
        want = LABELS[name]["dice"]
        if len(want) == 2:
            reading = read_dice(cv2.imread(str(SET / name)))
            if reading.values == want and not reading.unsure:
                return SET / name, want
    raise AssertionError("no two-dice picture reads")


def two_dice_picture() -> tuple[np.ndarray, list[int]]:
    """That picture's pixels, and the values."""
    path, want = two_dice_file()
    return cv2.imread(str(path)), want


def with_hand(image: np.ndarray, step: int) -> np.ndarray:
    """The picture with a hand-sized dark block passing over it (a frame of the throw)."""
    out = image.copy()
    x = 40 + step * 60
    cv2.rectangle(out, (x, 60), (x + 140, 260), (40, 50, 70), cv2.FILLED)
    return out


def test_rest_fires_once_after_movement_and_half_a_second_of_stillness():
    image, _ = two_dice_picture()
    watch = RestWatch(0.5)
    fired = [watch.frame(image, t / 10) for t in range(10)]  # still from the start: dice left lying
    assert not any(fired)
    moving = [watch.frame(with_hand(image, k), 1.0 + k / 10) for k in range(5)]
    still = [watch.frame(image, 1.5 + k / 10) for k in range(12)]
    assert not any(moving)
    assert still.count(True) == 1 and 5 <= still.index(True) <= 7


def test_a_recorded_image_sequence_stands_in_for_the_camera(tmp_path: Path):
    image, want = two_dice_picture()
    frames = [image] * 3 + [with_hand(image, k) for k in range(5)] + [image] * 10
    for i, frame in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), frame)
    got: list[CameraRead] = []
    watch = CameraWatch(str(tmp_path / "%03d.png"), got.append).start()
    watch.join(timeout=30)
    watch.stop()
    assert watch.frames == len(frames)
    assert [(r.values, r.unsure) for r in got] == [(tuple(want), 0)]
    assert got[0].jpeg[:2] == b"\xff\xd8"


@pytest.mark.parametrize("device", ["nothing-here-%03d.png", "nothing-here.mp4", "99"])
def test_a_camera_that_cannot_be_opened_is_one_line_and_exit_2(tmp_path: Path, device: str):
    """One line: neither OpenCV's warning nor FFmpeg's own complaint beside it."""
    device = device if device.isdigit() else str(tmp_path / device)
    proc = run_cli("play", "--port", "none", "--players", "Ann,Bob", "--db", str(tmp_path / "g.sqlite3"),
                   "--camera", device)
    assert proc.returncode == 2 and "--camera" in proc.stderr and "cannot be opened" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "g.sqlite3").exists()


@pytest.fixture
def table(tmp_path: Path):
    store = GameStore(tmp_path / "games.sqlite3")
    view = Recorder()
    session = LiveSession(Rules(), store, view)
    view.session = session
    from shutbox.companion.live.link import Connected

    session.handle(Connected("/dev/test"))
    session.handle(snapshot(9, set()))
    session.start(["Ann", "Bob"])
    yield session, view, store
    store.close()


def test_a_camera_throw_is_entered_verified_and_kept_with_the_game(table):
    session, view, store = table
    image, want = two_dice_picture()
    read = reading_of(image)
    assert enter_reading(session, read)
    total = sum(want)
    tiles = {total} if total <= 9 else {9, total - 9}
    box(session, tiles)
    events = store.events(session.game_id)
    assert [set(e["tiles"]) for e in events if e["type"] == "shut"] == [tiles]
    throw = next(i for i, e in enumerate(events) if e["type"] == "throw")
    assert events[throw]["dice"] == want
    assert not any(e.get("unverified") for e in events)
    kept = store.readings(session.game_id)
    assert [(k.seq, k.dice, k.unsure, k.source) for k in kept] == [(throw, want, 0, "camera")]
    assert cv2.imdecode(np.frombuffer(kept[0].image, np.uint8), cv2.IMREAD_COLOR).shape[1] <= 480


def test_tiles_that_disagree_with_the_camera_are_a_flag(table):
    session, view, store = table
    assert enter_reading(session, CameraRead((3, 5), 0, b"\xff\xd8fake"))
    box(session, {9})
    assert session.verdict is not None and session.verdict.kind == "flag"
    assert [e["type"] for e in store.events(session.game_id)] == ["players", "throw"]


def test_an_unsure_reading_is_not_entered(table):
    session, view, store = table
    assert not enter_reading(session, CameraRead((4,), 1, b""))
    assert "1 die unsure" in view.notes[-1][1]
    assert [e["type"] for e in store.events(session.game_id)] == ["players"]
    assert store.readings(session.game_id) == []


def test_a_reading_of_more_or_fewer_dice_than_the_throw_takes_is_not_entered_and_says_what_was_seen(table):
    """Nine tiles open, two dice: three dice seen (a stray die in the tray) or one are not entered; two are."""
    session, view, store = table
    assert session.game is not None and session.game.dice_counts() == (2,)
    assert not enter_reading(session, CameraRead((2, 4, 5), 0, b""))
    assert view.notes[-1] == ("refused", "camera: saw 3 dice (2 4 5); this throw takes 2 dice; throw not entered "
                              "(type it, or take another picture)")
    assert not enter_reading(session, CameraRead((4,), 0, b"", "phone"))
    assert view.notes[-1][1].startswith("phone: saw 1 die (4); this throw takes 2 dice")
    assert [e["type"] for e in store.events(session.game_id)] == ["players"]
    assert store.readings(session.game_id) == []
    assert enter_reading(session, CameraRead((4, 5), 0, b"\xff\xd8fake"))
    assert [e["type"] for e in store.events(session.game_id)] == ["players", "throw"]


def test_play_with_the_camera_reads_the_tray_and_enters_the_throw(tmp_path: Path):
    """`shutbox play --port none --camera SEQUENCE`: the throw comes from the camera, the tiles are typed."""
    import subprocess
    import sys

    image, want = two_dice_picture()
    frames = [with_hand(image, k) for k in range(5)] + [image] * 10
    for i, frame in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), frame)
    db = tmp_path / "g.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", "--port", "none", "--players", "Ann,Bob",
                             "--db", str(db), "--camera", str(tmp_path / "%03d.png")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    stdout = proc.stdout
    assert stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(iter(stdout.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any(" threw " in line for line in lines) and time.monotonic() < deadline:
        time.sleep(0.2)
    total = sum(want)
    tiles = [total] if total <= 9 else [9, total - 9]
    assert proc.stdin is not None
    proc.stdin.write(f"shut {' '.join(map(str, tiles))}\n")
    proc.stdin.close()
    proc.wait(timeout=60)
    reader.join(timeout=5)
    out = "".join(lines)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    with GameStore(db) as store:
        game_id = store.games()[-1].id
        events = store.events(game_id)
        assert [e for e in events if e["type"] == "throw"][0]["dice"] == want, out
        assert [r.dice for r in store.readings(game_id)] == [want]


def test_history_show_lists_the_readings_and_writes_their_pictures(table, tmp_path: Path):
    session, view, store = table
    image, want = two_dice_picture()
    assert enter_reading(session, reading_of(image))
    db = store.path
    shown = run_cli("history", "show", str(session.game_id), "--db", str(db), "--readings", str(tmp_path / "seen"),
                    check=True)
    assert f"read by the camera: {' + '.join(map(str, want))}, picture kept" in shown.stdout
    pictures = sorted((tmp_path / "seen").iterdir())
    assert [p.name for p in pictures] == [f"game-{session.game_id}-event-1.jpg"]
    assert cv2.imread(str(pictures[0])) is not None
    again = run_cli("history", "show", str(session.game_id), "--db", str(db), "--readings", str(tmp_path / "seen"))
    assert again.returncode == 0  # the same pictures: nothing to replace
    pictures[0].write_bytes(b"mine")
    refused = run_cli("history", "show", str(session.game_id), "--db", str(db), "--readings", str(tmp_path / "seen"))
    assert refused.returncode == 2 and "not replaced" in refused.stderr and pictures[0].read_bytes() == b"mine"


def test_review_lists_the_throws_read_from_pictures(table):
    session, view, store = table
    image, want = two_dice_picture()
    assert enter_reading(session, reading_of(image))
    reviewed = run_cli("review", str(session.game_id), "--db", str(store.path), check=True)
    assert "throws read from pictures" in reviewed.stdout
    assert f"read by the camera: {' + '.join(map(str, want))}" in reviewed.stdout
