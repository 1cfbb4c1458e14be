"""``shutbox play`` on a real terminal (tmux): the live screen keeps what is being typed across redraws,
draws in colour, and shows the result once when the game ends."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
import uuid

import httpx
import pytest

from tests.conftest import require_tool


class Tmux:
    def __init__(self, command: str, size: tuple[int, int] = (100, 45)) -> None:
        self.tmux = require_tool("tmux")
        self.name = f"shutbox-{uuid.uuid4().hex[:8]}"
        subprocess.run([self.tmux, "new-session", "-d", "-s", self.name, "-x", str(size[0]), "-y", str(size[1]),
                        f"{command}; echo EXIT=$?; sleep 60"], check=True)

    def keys(self, *keys: str) -> None:
        subprocess.run([self.tmux, "send-keys", "-t", self.name, *keys], check=True)

    def screen(self, colour: bool = False) -> str:
        return subprocess.run([self.tmux, "capture-pane", "-p", *(["-e"] if colour else []), "-t", self.name],
                              check=True, capture_output=True, text=True).stdout

    def wait(self, pattern: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.screen()
            if re.search(pattern, text, re.M):
                return text
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} not on the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([self.tmux, "kill-session", "-t", self.name], check=False)


@pytest.fixture
def terminal(tmp_path):
    sessions: list[Tmux] = []

    def start(*args: str, size: tuple[int, int] = (100, 45)) -> Tmux:
        command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "shutbox", "play", *args])
        session = Tmux(f"cd {shlex.quote(str(tmp_path))} && {command}", size)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.close()


@pytest.mark.slow
def test_typed_input_survives_a_redraw_and_the_result_is_shown_once(terminal, tmp_path):
    tty = terminal("--port", "none", "--players", "Ann", "--db", str(tmp_path / "g.sqlite3"), "--web", "0")
    found = re.search(r"scoreboard: (http://\S+)", tty.wait(r"scoreboard: http://\S+/"))
    assert found is not None
    url = found.group(1)
    tty.wait(r"→ Ann: throw the dice")
    tty.keys("hi")  # half a command typed ...
    tty.wait(r"> hi")
    assert httpx.post(url + "api/throw", json={"dice": [6, 6]}).status_code == 200  # ... the screen redraws ...
    tty.wait(r"Ann threw 6 \+ 6 = 12")
    assert re.search(r"^> hi\s*$", tty.screen(), re.M)  # ... and the line is still there
    tty.keys("nt", "Enter")
    tty.wait(r"\? best: shut 9 \+ 3")
    assert "not understood" not in tty.screen()
    coloured = tty.screen(colour=True)
    assert re.search(r"\x1b\[[0-9;]*48;(5;[0-9]+|2;[0-9;]+)m", coloured)  # tiles drawn on a background colour
    for keys in ("shut 9 3", "6 6", "shut 8 4", "6 6", "shut 7 5", "6 6"):
        tty.keys(keys, "Enter")
        time.sleep(0.2)
    text = tty.wait(r"until you press Enter")
    assert text.count("game over: Ann wins") == 1, text
    assert "★ game over: Ann wins" in text
    tty.keys("Enter")
    text = tty.wait(r"EXIT=0")
    assert text.count("game over: Ann wins") == 1, text


@pytest.mark.slow
def test_the_hand_over_is_an_instruction_not_an_error(terminal, tmp_path):
    tty = terminal("--port", "none", "--players", "Ann,Bob", "--db", str(tmp_path / "g.sqlite3"))
    tty.wait(r"→ Ann: throw the dice")
    tty.keys("quit", "Enter")
    text = tty.wait(r"EXIT=0")
    assert "game 1 is saved; `shutbox play --resume` continues it" in text
    assert "!!" not in text


@pytest.mark.slow
def test_a_tile_moved_while_typing_does_not_eat_the_line(terminal, tmp_path):
    """The issue's case: type '3', a tile moves on the box (the screen redraws), finish with ' 5' and Enter."""
    from shutbox.companion.sim.box import SimBox
    from shutbox.kit.model import build_kit

    with SimBox(build_kit({"firmware.debounce_ms": 5, "firmware.scan_ms": 1}), connect=False) as box:
        tty = terminal("--port", box.port, "--players", "Ann,Bob", "--db", str(tmp_path / "g.sqlite3"),
                       "--throws", "required")  # typed throws: a tile moved first is a board to put right
        tty.wait(r"→ Ann: throw the dice")
        tty.keys("3")
        tty.wait(r"^> 3\s*$")
        box.set_tile(4, True)
        tty.wait(r"→ Ann's turn: open tile 4 to start with every tile open")
        box.set_tile(4, False)
        tty.wait(r"→ Ann: throw the dice")
        assert re.search(r"^> 3\s*$", tty.screen(), re.M)
        tty.keys(" 5", "Enter")
        tty.wait(r"• Ann threw 3 \+ 5 = 8")
        assert "not understood" not in tty.screen()
        tty.keys("quit", "Enter")
        tty.wait(r"EXIT=0")


def test_at_80_by_24_the_newest_message_and_the_prompt_stay_in_view(terminal, tmp_path):
    """Four players, a drop-out match with a stake (a tall picture): after every entry the newest message and
    the input line are on the 24-line screen."""
    tty = terminal("--port", "none", "--players", "Ann,Bob,Cy,Dan", "--match", "drop-out", "--stake", "1",
                   "--db", str(tmp_path / "g.sqlite3"), "--web", "0", size=(80, 24))
    tty.wait(r"→ Ann: throw the dice")
    for keys, newest in (("6 6", r"• Ann threw 6 \+ 6 = 12"), ("shut 9 3", r"• Ann shut 9 \+ 3"),
                         ("6 6", r"• Ann threw 6 \+ 6 = 12"), ("shut 8 4", r"• Ann shut 8 \+ 4"),
                         ("2 2", r"# no move for 4: Ann scores 21"), ("nonsense", r"✗ 'nonsense': not understood")):
        tty.keys(keys, "Enter")
        text = tty.wait(newest)
        lines = text.rstrip("\n").split("\n")
        assert len(lines) <= 24
        assert re.search(r"^>( |$)", text, re.M), text  # the prompt is on the screen
    tty.keys("quit", "Enter")
    tty.wait(r"EXIT=0")


def test_the_picture_fits_any_height_down_to_24_lines_newest_message_last():
    from shutbox.companion.live.livestate import LiveState
    from shutbox.companion.live.tui import body_height, fitted, screen, to_ansi
    from shutbox.game.replay import Game
    from shutbox.kit.model import Rules

    rules = Rules(match="drop-out", stake=1.0)
    game = Game(rules).add_players("Ann", "Bob", "Cy", "Dan").throw(6, 6).shut(9, 3).throw(6, 6).shut(8, 4)
    game.throw(2, 2).throw(3, 4)
    state = LiveState(rules=rules, game=game, game_id=1, boxless=True, throws="required",
                      box=frozenset({3, 4, 8, 9}), connected=True, device="", firmware="", verdict=None,
                      help="type a throw: '3 5' (the dice), '4' (one die) or '= 27' (a drawn total), then the "
                           "tiles: 'shut 3 5'; or end, undo, hint, quit", end_accepted=False)
    notes = [("recorded", f"message {n}") for n in range(8)]
    extra = ["scoreboard: http://127.0.0.1:8000/"]
    height = body_height(24, 80, state.help)
    assert to_ansi(screen(state, notes, extra), 79).count("\n") > height  # too tall as drawn in full
    picture = fitted(state, notes, extra, 79, height)
    lines = picture.rstrip("\n").split("\n")
    assert len(lines) <= height
    assert "message 7" in lines[-1]  # the newest message is the last line
    assert "Shut the Box" in lines[0] and any("drop-out" in line for line in lines)
    tall = fitted(state, notes, extra, 79, 60)
    assert all(f"message {n}" in tall for n in range(8))  # room for everything: nothing dropped
