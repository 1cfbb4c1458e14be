"""The fourth hostile audit (issue 46, items 4-18): each fault as a careless user or an attacker met it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.crowd_support import quit_play, request, start_play


def no_traceback(err: str) -> None:
    assert "Traceback" not in err and "Exception in ASGI" not in err, err[-3000:]


# -- 4: slow clients ----------------------------------------------------------------------------------------------


class Tricklers:
    """Connections that send their request a byte a second: half stop inside the headers, half inside a body."""

    def __init__(self, port: int, count: int) -> None:
        self.socks: list[socket.socket] = []
        self.closed_by_server = 0
        self.answers: list[bytes] = []
        for i in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i % 2:
                s.sendall(b"POST /api/throw HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 2000\r\n\r\n{")
            else:
                s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            s.setblocking(False)
            self.socks.append(s)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)
        self._thread.start()

    def _trickle(self) -> None:
        while not self._stop.wait(1.0):
            for s in list(self.socks):
                try:
                    data = s.recv(4096)
                    if data:
                        self.answers.append(data)
                        continue
                    self.closed_by_server += 1
                    self.socks.remove(s)
                    s.close()
                    continue
                except BlockingIOError:
                    pass
                except OSError:
                    self.closed_by_server += 1
                    self.socks.remove(s)
                    s.close()
                    continue
                try:
                    s.send(b"a")
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for s in self.socks:
            s.close()


@pytest.mark.slow  # waits for the slow clients to be timed out
def test_slow_clients_are_timed_out_and_never_lock_the_page_out(tmp_path):
    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db, files=256)  # about 120 connections at once
    try:
        crowd = Tricklers(port, 200)
        try:
            time.sleep(2.5)  # every slot taken by a request still arriving
            assert request(port, "GET", "/")[0] == 200  # a new phone gets the page
            assert request(port, "GET", "/api/state")[0] == 200
            time.sleep(12)
            assert not crowd.socks, f"{len(crowd.socks)} slow connections still open"
            assert all(a.startswith(b"HTTP/1.1 408") for a in crowd.answers), crowd.answers[:3]
        finally:
            crowd.close()
    finally:
        err = quit_play(proc, db)
    no_traceback(err)
    assert err.count("too slowly") == 1, err


# -- 5, 10, 11, 18 (dice ""): the dice reader's files ---------------------------------------------------------------

def _dice_picture() -> Path:
    from tests.test_dice_cli import LABELS, SET

    return SET / next(n for n in sorted(LABELS) if LABELS[n]["dice"])


def test_annotate_never_replaces_a_picture_read_nor_a_png_it_did_not_write(tmp_path):
    photo = tmp_path / "x.png"
    photo.write_bytes(_png_of(_dice_picture()))
    before = photo.read_bytes()
    proc = run_cli("dice", str(photo), "--annotate", str(photo))
    assert proc.returncode == 2 and "is the picture being read" in proc.stderr, proc.stderr
    link = tmp_path / "drawn.png"
    link.symlink_to(photo)  # the same file under another name
    proc = run_cli("dice", str(photo), "--annotate", str(link))
    assert proc.returncode == 2 and "is the picture being read" in proc.stderr, proc.stderr
    other = tmp_path / "holiday.png"
    other.write_bytes(before)  # any PNG of the user's: not an earlier drawing
    proc = run_cli("dice", str(_dice_picture()), "--annotate", str(other))
    assert proc.returncode == 2 and "not a drawing this command wrote" in proc.stderr, proc.stderr
    assert photo.read_bytes() == before and other.read_bytes() == before
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_earlier_drawing_is_replaced_keeping_its_mode_even_through_a_link(tmp_path):
    drawn = tmp_path / "drawn.png"
    run_cli("dice", str(_dice_picture()), "--annotate", str(drawn), check=True)
    drawn.chmod(0o600)
    link = tmp_path / "link.png"
    link.symlink_to(drawn)
    run_cli("dice", str(_dice_picture()), "--annotate", str(link), check=True)
    assert link.is_symlink() and (drawn.stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize("where", ["image", "annotate"])
def test_a_fifo_is_refused_at_once(tmp_path, where):
    fifo = tmp_path / ("a.jpg" if where == "image" else "a.png")
    os.mkfifo(fifo)
    args = [str(fifo)] if where == "image" else [str(_dice_picture()), "--annotate", str(fifo)]
    proc = subprocess.run([sys.executable, "-m", "shutbox", "dice", *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "is not a regular file" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_empty_picture_name_is_said_as_such():
    proc = run_cli("dice", "")
    said = "shutbox: error: '': an empty name; give the name of a picture file"
    assert proc.returncode == 2 and proc.stderr.strip() == said


def test_pictures_are_decoded_one_at_a_time(tmp_path):
    """The second picture is not decoded before the first is read and printed (its output flushed first)."""
    script = (
        "import sys\n"
        "import shutbox.dice.imagefile as f\n"
        "real = f.read_image_bytes\n"
        "def spy(data, name):\n"
        "    print('decoding', name, flush=True)\n"
        "    return real(data, name)\n"
        "f.read_image_bytes = spy\n"
        "from shutbox.cli.entry import main\n"
        "sys.argv = ['shutbox', 'dice', sys.argv[1], sys.argv[1]]\n"
        "main()\n")
    proc = subprocess.run([sys.executable, "-c", script, str(_dice_picture())], capture_output=True, text=True,
                          timeout=300)
    lines = proc.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["decoding", str(_dice_picture()) + ":", "decoding",
                                                    str(_dice_picture()) + ":"], proc.stdout + proc.stderr


def _png_of(path: Path) -> bytes:
    import cv2

    image = cv2.imread(str(path))
    assert image is not None, path
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


# -- 6: deploy onto a port that is no board -------------------------------------------------------------------------

@pytest.mark.parametrize("talk", ["keeps sending", "silent"])
def test_deploy_to_a_port_that_is_no_board_is_one_line_within_seconds(tmp_path, talk):
    import tty

    from shutbox.firmware.host.bundle import build_bundle
    from shutbox.kit.model import build_kit

    bundle = tmp_path / "bundle"
    build_bundle(build_kit({}), bundle)
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    stop = threading.Event()

    def chatter() -> None:  # a GPS receiver, say: lines for ever, answering nothing
        while not stop.wait(0.01):
            try:
                os.write(master, b"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n")
            except OSError:
                return

    def drain() -> None:  # what the deploy sends goes nowhere
        while not stop.is_set():
            try:
                os.read(master, 1024)
            except OSError:
                return

    threads = [threading.Thread(target=drain, daemon=True)]
    if talk == "keeps sending":
        threads.append(threading.Thread(target=chatter, daemon=True))
    for t in threads:
        t.start()
    try:
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "shutbox", "firmware", "deploy", "--port", os.ttyname(slave),
                               "--bundle", str(bundle)], capture_output=True, text=True, timeout=120)
        took = time.monotonic() - started
    finally:
        stop.set()
        os.close(slave)
        os.close(master)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing was copied" in lines[0], proc.stderr
    assert ("neither the shutbox protocol nor MicroPython's prompt" if talk == "keeps sending" else
            "nothing answered within 3.5 s") in lines[0]
    assert took < 10, took


# -- 7, 15, 18 (--db): saved games after a crash, on read-only media, and side files -----------------------------------

def killed_writer(db: Path) -> None:
    """Games saved by a ``play`` killed with SIGKILL: they are in its ``-wal``, beside its ``-shm`` and lock file."""
    script = (
        "import os, sys\n"
        "from shutbox.companion.store.database import GameStore\n"
        "from shutbox.game import events as ev\n"
        "from shutbox.game.gamefile import settings_of\n"
        "from shutbox.kit.model import Rules\n"
        "store = GameStore(sys.argv[1])\n"
        "for names in (['Ann', 'Bob'], ['Cy', 'Di']):\n"
        "    gid = store.new_game(settings_of(Rules()), ev.players(names))\n"
        "    store.append(gid, ev.throw(3, 4))\n"
        "os.kill(os.getpid(), 9)\n")
    proc = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    assert Path(f"{db}-wal").stat().st_size > 0 and Path(f"{db}-shm").exists()


def beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.fixture
def read_only_mount(tmp_path):
    """A folder ``src`` and a read-only bind mount of it (skipped where mounting is not allowed)."""
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir()
    ro.mkdir()
    if subprocess.run(["mount", "--bind", "-o", "ro", str(src), str(ro)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount read-only here (needs root)")
    subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], capture_output=True)
    try:
        if not os.statvfs(ro).f_flag & os.ST_RDONLY:
            pytest.skip("the bind mount is not read-only")
        yield src, ro
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)


def test_games_of_a_killed_play_are_read_on_read_only_media_and_resume_says_why_not(read_only_mount):
    src, ro = read_only_mount
    killed_writer(src / "g.sqlite3")
    db = ro / "g.sqlite3"
    listed = run_cli("history", "--db", str(db))
    assert listed.returncode == 0 and "Ann, Bob" in listed.stdout and "Cy, Di" in listed.stdout, listed.stdout
    stats = run_cli("stats", "--db", str(db))
    assert stats.returncode == 0 and "no games saved yet" not in stats.stdout, stats.stdout
    resumed = run_cli("play", "--port", "none", "--resume", "--db", str(db))
    assert resumed.returncode == 2 and len(resumed.stderr.strip().splitlines()) == 1, resumed.stderr
    assert "cannot be written" in resumed.stderr and "copy it to a writable folder" in resumed.stderr


def test_a_wal_left_without_its_shm_is_read_and_nothing_is_added_beside_it(tmp_path):
    db = tmp_path / "g.sqlite3"
    killed_writer(db)
    Path(f"{db}-shm").unlink()
    files = beside(db)
    listed = run_cli("history", "--db", str(db))
    assert listed.returncode == 0 and "Ann, Bob" in listed.stdout and "Cy, Di" in listed.stdout, listed.stdout
    assert beside(db) == files


@pytest.mark.parametrize("where, said", [(".", "is a folder, not a game database"),
                                         ("/dev/null", "is not a regular file (a device or a pipe)")])
def test_a_db_that_is_no_file_is_named_for_what_it_is(tmp_path, where, said):
    proc = run_cli("history", "--db", where, cwd=tmp_path)
    assert proc.returncode == 2 and said in proc.stderr and "no such game database" not in proc.stderr, proc.stderr


# -- 8: photo uploads --------------------------------------------------------------------------------------------------

def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _chunked_upload(port: int, size: int, piece: int = 2048) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(b"POST /api/photo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        block = b"%x\r\n" % piece + b"\xff" * piece + b"\r\n"
        batch = block * 64
        for _ in range(size // piece // 64):
            s.sendall(batch)
        s.sendall(b"0\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            data = s.recv(4096)
            if not data:
                break
            answer += data
        return answer


@pytest.mark.slow  # a 16 MB upload
def test_a_photo_upload_in_small_pieces_costs_linear_time_and_uploads_at_once_are_capped(tmp_path):
    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db)
    held: list[socket.socket] = []
    try:
        before = _cpu_s(proc.pid)
        answer = _chunked_upload(port, 16 * 1024 * 1024 - 4096)
        cost = _cpu_s(proc.pid) - before
        assert answer.startswith(b"HTTP/1.1 400"), answer[:200]  # read whole, then found not to be a picture
        assert cost < 1.0, f"{cost:.2f} s of CPU for one 16 MB upload"
        for _ in range(2):  # two uploads under way, a few MB each, their bodies still arriving
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"POST /api/photo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\n"
                      b"Content-Length: 8000000\r\n\r\n" + b"\xff" * 1_000_000)
            held.append(s)
        time.sleep(0.5)
        status, answer = request(port, "POST", "/api/photo", headers={"Content-Type": "image/jpeg"})
        assert status == 503 and "other photos are being read" in answer["error"], (status, answer)
        too_big = request(port, "POST", "/api/photo", headers={"Content-Type": "image/jpeg",
                                                               "Content-Length": str(64 * 1024 * 1024)})
        assert too_big[0] in (413, 503)
    finally:
        for s in held:
            s.close()
        err = quit_play(proc, db)
    no_traceback(err)


def test_a_body_in_2_kb_pieces_is_read_in_linear_time_and_an_announced_oversize_is_not_read():
    import asyncio

    from shutbox.companion.web.guard import bounded_body

    class Pieces:
        def __init__(self, count: int, length: str = "") -> None:
            self.count, self.read = count, 0
            self.headers = {"content-length": length} if length else {}

        async def stream(self):
            for _ in range(self.count):
                self.read += 1
                yield b"\xff" * 2048

    started = time.process_time()
    body = asyncio.run(bounded_body(Pieces(8192), 16 * 1024 * 1024))
    assert body is not None and len(body) == 16 * 1024 * 1024
    assert time.process_time() - started < 0.5  # `bytes +=` took 2 to 34 s of CPU here
    announced = Pieces(8192, str(64 * 1024 * 1024))
    assert asyncio.run(bounded_body(announced, 16 * 1024 * 1024)) is None and announced.read == 0
    over = Pieces(8192)
    assert asyncio.run(bounded_body(over, 1024 * 1024)) is None and over.read == 513


# -- 9: SIGHUP ------------------------------------------------------------------------------------------------------

def test_sighup_ends_play_web_as_sigterm_does_leaving_the_database_alone(tmp_path):
    import signal

    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db)
    assert request(port, "POST", "/api/throw", {"dice": [3, 4]})[0] == 200
    proc.send_signal(signal.SIGHUP)
    assert proc.wait(timeout=30) == 129
    err = db.with_suffix(".stderr").read_text(errors="replace")
    no_traceback(err)
    assert err.strip().splitlines()[-1] == "shutbox: hung up (its terminal closed); what was saved is kept", err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("g.sqlite3")) == ["g.sqlite3"]
    listed = run_cli("history", "--db", str(db))
    assert "Ann, Bob" in listed.stdout


# -- 13: X-Forwarded-For ----------------------------------------------------------------------------------------------

def test_the_join_code_rate_limit_is_not_bypassed_with_x_forwarded_for(tmp_path):
    from shutbox.companion.web.guard import WRONG_CODES

    db = tmp_path / "g.sqlite3"
    proc, port, code = start_play(db, host="0.0.0.0", extra=())
    statuses = []
    try:
        assert code
        for i in range(WRONG_CODES + 5):
            spoofed = {"X-Forwarded-For": f"203.0.113.{i + 1}", "Forwarded": f"for=198.51.100.{i + 1}"}
            statuses.append(request(port, "POST", "/api/throw?code=WRONG9", {"dice": [3, 4]}, spoofed)[0])
    finally:
        err = quit_play(proc, db)
    assert statuses[:WRONG_CODES] == [403] * WRONG_CODES and set(statuses[WRONG_CODES:]) == {429}, statuses
    assert "203.0.113." not in err and "wrong join codes from 127.0.0.1" in err, err


# -- 12: lines on the game's terminal ------------------------------------------------------------------------------

def test_malformed_requests_bad_photos_and_quitting_with_pages_open_say_at_most_one_line_each(tmp_path):
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    photo = _dice_picture().read_bytes()
    png = _png_of(_dice_picture())
    bad_crc = png[:-20] + bytes([png[-20] ^ 0xFF]) + png[-19:]  # a damaged chunk near the end
    claims = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 10_000, 10_000, 8, 2, 0, 0, 0))
              + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))  # 100 megapixels: Pillow warns
    db = tmp_path / "g.sqlite3"
    proc, port, _ = start_play(db)
    try:
        for _ in range(40):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"NOT HTTP AT ALL\x00\r\n\r\n")
                s.recv(1024)
        for body, kind in ((photo[: len(photo) * 3 // 5], "image/jpeg"), (bad_crc, "image/png"),
                           (claims, "image/png")):
            status, answer = _post_raw(port, body, kind)
            assert status == 400, (status, answer)
        spectator = socket.create_connection(("127.0.0.1", port), timeout=5)
        spectator.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        spectator.recv(1024)
    finally:
        err = quit_play(proc, db)
    no_traceback(err)
    for noise in ("Corrupt JPEG", "Premature end", "libpng", "DecompressionBomb", "Cancel ", "UserWarning"):
        assert noise not in err, err
    assert err.count("Invalid HTTP request") == 1, err


def _post_raw(port: int, body: bytes, kind: str) -> tuple[int, dict]:
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/api/photo", body=body, headers={"Content-Type": kind, "Host": f"127.0.0.1:{port}"})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"{}")
    finally:
        conn.close()


# -- 14: look-alike names ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("other", ["Rene\u0301", "RENÉ", "Ｒｅｎé"])  # decomposed, upper case, full-width letters
def test_look_alike_player_names_are_one_player(tmp_path, other):
    names = f"René,{other}"
    proc = run_cli("play", "--port", "none", "--players", names, "--db", str(tmp_path / "g.sqlite3"))
    assert proc.returncode == 2 and "listed twice" in proc.stderr, proc.stderr
    pad = run_cli("scorepad", "--names", names, "--out", str(tmp_path / "pad.pdf"))
    assert pad.returncode == 2 and "listed twice" in pad.stderr, pad.stderr
    assert not (tmp_path / "pad.pdf").exists()


# -- 16: monitor on a silent port --------------------------------------------------------------------------------------

def test_monitor_on_a_silent_port_says_so_within_seconds():
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "monitor", "--port", port], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(9)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
        os.close(master)
        os.close(slave)
    lines = [line for line in err.splitlines() if not line.startswith(("connected", "shutbox: terminated"))]
    assert lines == [f"nothing from {port} for 5 s: no shutbox firmware is talking on it (it sends a line every "
                     f"second); check the port, or put the firmware on the board with 'shutbox firmware deploy "
                     f"--port {port}'"], err


# -- 17: relative cache folders ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("variable", ["XDG_CACHE_HOME", "SHUTBOX_CACHE_DIR"])
def test_a_relative_cache_folder_is_ignored(tmp_path, variable):
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "SHUTBOX_CACHE_DIR")}
    env.update({variable: "relative-cache", "HOME": str(home)})
    proc = subprocess.run([sys.executable, "-m", "shutbox", "solve"], capture_output=True, text=True, cwd=work,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert list(work.iterdir()) == []  # nothing made in the current folder
    assert (home / ".cache" / "shutbox" / "solver").is_dir()


# -- 18: misleading messages -------------------------------------------------------------------------------------------

def _review_pages(db: Path):
    from shutbox.companion.web.review import ReviewPages
    from shutbox.companion.web.scoreboard import WebBoard

    return WebBoard("127.0.0.1", 0, lambda item: None, pages=ReviewPages(db))


def test_the_web_pages_name_a_database_fault_without_its_path_and_a_vanished_one_is_not_memory(tmp_path):
    import httpx

    from tests.test_hostile_store import make_db

    db = tmp_path / "games.sqlite3"
    make_db(db)
    with _review_pages(db) as web:
        url = f"http://127.0.0.1:{web.port}"
        missing = httpx.get(url + "/api/review/99", timeout=30)
        assert missing.status_code == 404 and str(tmp_path) not in missing.text, missing.text
        assert "game 99: no such game" in missing.json()["error"]
        db.write_bytes(db.read_bytes()[:100] + b"\x00" * 4000)  # damaged
        for path in ("/api/review/1", "/api/stats", "/api/games"):
            answer = httpx.get(url + path, timeout=30)
            assert answer.status_code == 503 and str(tmp_path) not in answer.text, (path, answer.text)
            assert answer.json()["error"].startswith("the game database"), answer.text
        db.unlink()  # gone
        stats = httpx.get(url + "/api/stats", timeout=30)
        assert stats.status_code == 503 and "no such game database" in stats.json()["error"], stats.text
        assert "memory" not in stats.text


def test_a_bad_network_port_is_named_plainly():
    proc = run_cli("monitor", "--port", "socket://:99999")
    assert proc.returncode == 2 and "debug|info" not in proc.stderr, proc.stderr
    assert "give socket://HOST:PORT with a host name or address and a TCP port from 1 to 65535" in proc.stderr


def test_a_micropython_that_ends_at_once_is_said_at_once():
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "shutbox", "sim", "--demo"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "SHUTBOX_MICROPYTHON": "/bin/false"})
    assert proc.returncode == 2 and time.monotonic() - started < 4.5, proc.stderr
    assert proc.stderr.strip() == ("shutbox: error: the simulated box stopped before it sent its first snapshot: "
                                   "/bin/false exited with status 1 (SHUTBOX_MICROPYTHON names the unix-port "
                                   "micropython to run)"), proc.stderr


@pytest.mark.parametrize("kind", ["folder", "fifo", "zero"])
def test_a_shutbox_toml_that_is_no_file_is_said(tmp_path, kind):
    toml = tmp_path / "shutbox.toml"
    if kind == "folder":
        toml.mkdir()
    elif kind == "fifo":
        os.mkfifo(toml)
    else:
        toml.symlink_to("/dev/zero")
    proc = subprocess.run([sys.executable, "-m", "shutbox", "solve"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=30)
    assert proc.returncode == 2 and "shutbox.toml in the current folder is" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_settings_file_with_a_byte_order_mark_is_read_and_a_boolean_is_echoed_as_written(tmp_path):
    (tmp_path / "shutbox.toml").write_bytes(b"\xef\xbb\xbf[rules]\ntiles = 10\n")
    shown = run_cli("config", "show", cwd=tmp_path)
    assert shown.returncode == 0 and "tiles = 10" in shown.stdout, shown.stdout + shown.stderr
    (tmp_path / "shutbox.toml").write_text("[rules]\ntiles = true\n")
    proc = run_cli("solve", cwd=tmp_path)
    assert proc.returncode == 2 and "rules.tiles = true: invalid value" in proc.stderr, proc.stderr
