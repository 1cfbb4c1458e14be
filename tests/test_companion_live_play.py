"""``shutbox play`` and ``shutbox monitor`` as subprocesses on a simulated box (the real firmware on a
pseudo-terminal): throws typed on stdin, tiles moved on the box; unplug and replug in the middle of a
turn; kill -9 at random moments, then ``--resume`` with nothing lost."""

from __future__ import annotations

import json
import queue
import random
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from shutbox.companion.sim.box import SimBox
from shutbox.companion.store.database import GameStore
from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules, build_kit
from tests.conftest import first_fast, unstamped

FAST_KIT = {"firmware.debounce_ms": 5, "firmware.scan_ms": 1}


class Died(Exception):
    """The play process ended (or was killed) while a line was awaited."""


class Player:
    """A ``shutbox play`` subprocess: type lines, wait for lines of its output."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "shutbox", "play", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def type(self, text: str) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise Died() from None

    def expect(self, pattern: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r} within {timeout} s; output:\n"
                                     + "\n".join(self.output[-40:])) from None
            if line is None:
                raise Died()
            self.output.append(line)
            if re.search(pattern, line):
                return line

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: no clean-up of any kind

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        code = self.proc.wait(timeout=timeout)
        while (line := self.lines.get(timeout=timeout)) is not None:
            self.output.append(line)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()


@pytest.fixture
def box():
    with SimBox(build_kit(FAST_KIT), connect=False) as simbox:
        yield simbox


def stored(db: Path, game_id: int = 1) -> list[ev.Event]:
    with GameStore(db) as store:
        return unstamped(store.events(game_id))


# -- a scripted game as steps, each with the output line that confirms it --------------------------

@dataclass(frozen=True)
class Step:
    kind: str  # "type" or "flip"
    text: str = ""
    tiles: tuple[int, ...] = ()
    shut: bool = True
    confirm: str = ""  # a regex of the output line that confirms the step
    event: ev.Event | None = None  # the event the step records, if any


def turn_steps(player: str, moves: list[tuple[tuple[int, int], tuple[int, ...]]], dead: tuple[int, int] | None,
               next_player: str | None) -> list[Step]:
    steps = []
    shut: list[int] = []
    for dice, tiles in moves:
        steps.append(Step("type", f"{dice[0]} {dice[1]}", confirm=rf"^\* {player} threw {dice[0]} \+ {dice[1]}",
                          event=ev.throw(*dice)))
        steps.append(Step("flip", tiles=tiles, confirm=rf"^\* {player} shut ", event=ev.shut(*sorted(tiles))))
        shut += tiles
    if dead is not None:
        steps.append(Step("type", f"{dead[0]} {dead[1]}", confirm=rf"^# no move for {sum(dead)}: {player} scores",
                          event=ev.throw(*dead)))
    else:
        steps.append(Step("type", "end", confirm=rf"^\* {player} ended the turn", event=ev.end_turn()))
    if next_player is not None:
        steps.append(Step("flip", tiles=tuple(shut), shut=False, confirm=rf">> {next_player}: throw the dice"))
    return steps


E21 = [((6, 6), (9, 3)), ((6, 6), (8, 4))]  # then 2 2 is dead: 1 2 5 6 7 open, scores 21
E9 = [((6, 6), (9, 3)), ((6, 6), (8, 4)), ((6, 6), (7, 5))]  # then 6 6 is dead: 1 2 6 open, scores 9


def drop_out_game() -> list[Step]:
    """Drop-out to 30 (see test_companion_live_sim): Ann 21+9, Bob 9+9, Cy 21+9; Bob is left and wins."""
    plan = [("Ann", E21, (2, 2)), ("Bob", E9, (6, 6)), ("Cy", E21, (2, 2)),
            ("Ann", E9, (6, 6)), ("Bob", E9, (6, 6)), ("Cy", E9, (6, 6))]
    steps = []
    for i, (name, moves, dead) in enumerate(plan):
        following = plan[i + 1][0] if i + 1 < len(plan) else None
        if name == "Ann" and i == 3:
            following = "Bob"  # Ann drops out after her turn; Bob is next either way
        steps += turn_steps(name, moves, dead, following)
    return steps


def run_step(step: Step, player: Player, simbox: SimBox) -> None:
    if step.kind == "type":
        player.type(step.text)
    else:
        for tile in step.tiles:
            simbox.set_tile(tile, step.shut)
    player.expect(step.confirm)


# -- the tests --------------------------------------------------------------------------------------

def test_a_whole_game_typed_on_stdin_and_moved_on_the_box(box, tmp_path):
    db = tmp_path / "games.sqlite3"
    player = Player("--port", box.port, "--players", "Ann,Bob,Cy", "--match", "drop-out", "--limit", "30",
                    "--db", str(db))
    player.expect(r"^- game 1: Ann, Bob, Cy — drop-out, 9 tiles")
    steps = drop_out_game()
    for step in steps:
        run_step(step, player, box)
    player.expect(r"^# game over: Bob wins")
    code, err = player.finish()
    assert code == 0, err
    expected = [ev.players(["Ann", "Bob", "Cy"])] + [s.event for s in steps if s.event is not None]
    assert stored(db) == expected
    out = "\n".join(player.output)
    assert "  box    --  --  --  --  --  --  --  --  --" not in out  # nobody shut the box
    assert re.search(r"totals \(limit 30, reaching it drops out\): Ann 30 out · Bob 18 · Cy 30 out", out)


@pytest.mark.slow
def test_unplug_and_replug_in_the_middle_of_a_turn(box, tmp_path):
    db = tmp_path / "games.sqlite3"
    player = Player("--port", box.port, "--players", "Ann,Bob", "--db", str(db))
    player.expect(r">> Ann: throw the dice")
    player.type("6 6")
    player.expect(r"^\* Ann threw 6 \+ 6 = 12")
    box.set_tile(9, True)
    player.expect(r"moving: tile 9 of 12")
    box.unplug()
    player.expect(r"^~ lost the box on .*; waiting for it to come back")
    player.expect(r"\[box unplugged: last seen\]")
    player.type("end")
    player.expect(r"^! waiting for the box")
    box.set_tile(3, True)  # the player finishes the move while the cable is out
    time.sleep(0.3)
    box.replug()
    player.expect(r"^~ connected to the box on ")
    player.expect(r"^\* Ann shut 9 \+ 3")
    player.type("quit")
    player.expect(r"game 1 is saved; `shutbox play --resume` continues it")
    code, err = player.finish()
    assert code == 0, err
    assert stored(db) == [ev.players(["Ann", "Bob"]), ev.throw(6, 6), ev.shut(3, 9)]


DROP_OUT_30 = Rules(match="drop-out", limit=30)


def kill_plan(rng: random.Random, kills: int, i: int, n_steps: int) -> tuple[float | None, int]:
    """When this life dies: after a random time (while starting or replaying) and/or at a step (-1: never)."""
    plan = rng.choice(["step", "step", "step", "time"]) if kills < 8 else "none"
    if plan == "time":  # a fast machine may replay and play on before the timer: then kill at the next step
        return rng.uniform(0.05, 0.5), min(i + 1, n_steps - 1)
    if plan == "step":
        return None, min(i + rng.randint(0, 6), n_steps - 1)
    return None, -1


def start_then_kill(step: Step, player: Player, box: SimBox, after_s: float) -> None:
    """Begin ``step`` (type it or move its tiles), then SIGKILL the player ``after_s`` later."""
    if step.kind == "type":
        player.type(step.text)
    else:
        for tile in step.tiles:
            box.set_tile(tile, step.shut)
    time.sleep(after_s)
    player.kill()
    raise Died()


def saved_game(db: Path) -> tuple[list[ev.Event], bool]:
    """The events in effect in the database's game 1, and whether it is over."""
    with GameStore(db) as store:
        saved = Game.from_events(DROP_OUT_30, store.events(1)).effective_events() if store.games() else []
        return saved, bool(saved) and store.latest_unfinished() is None


@pytest.mark.slow
def test_kill_9_at_random_moments_then_resume_loses_nothing(box, tmp_path):
    """Each life of ``shutbox play`` is killed with SIGKILL: while starting or replaying, or a few
    milliseconds after a throw was typed or a tile moved (before or after the event is saved). The
    next ``--resume`` replays the record, reads the box afresh and goes on; the test goes on from
    the first step whose event is not in the database. The final record is the whole game."""
    db = tmp_path / "games.sqlite3"
    steps = drop_out_game()
    needed = [sum(s.event is not None for s in steps[:i]) for i in range(len(steps) + 1)]
    rng = random.Random(20240607)
    first = ["--players", "Ann,Bob,Cy", "--match", "drop-out", "--limit", "30"]
    args = first
    kills = 0
    i = 0
    while True:
        player = Player("--port", box.port, "--db", str(db), *args)
        delay, kill_at = kill_plan(rng, kills, i, len(steps))
        killer = threading.Timer(delay if delay is not None else 3600.0, player.kill)  # cancelled before it fires
        killer.daemon = True
        killer.start()
        try:
            if args != first:
                player.expect(r"^- resuming game 1: Ann, Bob, Cy — drop-out, \d+ events replayed")
            while i < len(steps):
                if i == kill_at:
                    start_then_kill(steps[i], player, box, rng.uniform(0.0, 0.04))
                run_step(steps[i], player, box)
                i += 1
            player.expect(r"^# game over: Bob wins")
            killer.cancel()
            code, err = player.finish()
            if code == 0:
                break
        except Died:
            pass
        finally:
            killer.cancel()
        player.kill()
        player.proc.wait()
        kills += 1
        saved, over = saved_game(db)
        # Everything confirmed is saved; at most the step in progress got further.
        committed = max(0, len(saved) - 1)  # events after the players event
        assert needed[i] <= committed <= needed[min(i + 1, len(steps))]
        if over:  # killed after the last event was saved, before it was shown
            assert committed == needed[-1]
            break
        i = needed.index(committed)
        args = ["--resume"] if saved else first
    assert kills >= 3
    expected = [ev.players(["Ann", "Bob", "Cy"])] + [s.event for s in steps if s.event is not None]
    assert stored(db) == expected  # no event lost, none doubled, no undo needed
    with GameStore(db) as store:
        assert store.latest_unfinished() is None


@pytest.mark.slow
def test_a_box_with_another_tile_count_is_refused_before_a_game_is_made(tmp_path):
    db = tmp_path / "games.sqlite3"
    with SimBox(build_kit({**FAST_KIT, "rules.tiles": 10}), connect=False) as ten:
        player = Player("--port", ten.port, "--players", "Ann", "--db", str(db))
        code, err = player.finish()
    assert code == 2
    assert err == (f"shutbox: error: the box on {ten.port} has 10 tiles but the settings are for 9; "
                   "connect a 9-tile box or play with --tiles 10\n")
    assert not db.exists()  # nothing written


@pytest.mark.parametrize(("args", "message"), first_fast([
    (["--port", "auto", "--players", "Ann"], "--port auto: no Raspberry Pi Pico running MicroPython found"),
    (["--port", "/dev/nonexistent-box", "--players", "Ann"], "--port /dev/nonexistent-box: cannot open"),
    (["--port", "auto"], "--players is required to start a game"),
    (["--players", "Ann,ann"], "--players 'Ann,ann': player 'ann' is listed twice"),
    (["--players", "Ann,Bob,Cy", "--match", "long-game"], "the long game is for exactly 2 players"),
    (["--resume"], "--resume: no game database at"),
    (["--resume", "--players", "Ann"], "--players Ann: not allowed with --resume"),
    (["--resume", "--tiles", "10"], "--tiles 10: not allowed with --resume"),
], several=True))
def test_bad_play_arguments(cli, tmp_path, args, message):
    proc = cli("play", "--db", str(tmp_path / "g.sqlite3"), *args)
    assert proc.returncode == 2
    assert message in proc.stderr and proc.stderr.count("\n") == 1
    assert not (tmp_path / "g.sqlite3").exists()  # nothing written


def test_monitor_prints_json_lines_for_each_snapshot(box):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "monitor", "--port", box.port, "--json", "--count", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = json.loads(proc.stdout.readline())  # the snapshot asked for on connecting
    box.set_tile(4, True)
    second = json.loads(proc.stdout.readline())
    box.set_tile(9, True)
    third = json.loads(proc.stdout.readline())
    assert proc.wait(timeout=10) == 0
    assert (first["shut"], second["shut"], third["shut"]) == ([], [4], [4, 9])
    assert (second["reason"], third["reason"]) == ("change", "change")
    assert third["seq"] == second["seq"] + 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", third["time"])
    assert "box: firmware 0.1.0, 9 tiles" in proc.stderr.read()  # type: ignore[union-attr]


def test_hands_free_play_the_button_on_the_unix_port_firmware_ends_each_turn(box, tmp_path):
    """``shutbox play`` on the simulated box (throws optional by default with a box): tiles flipped, the box's
    button pressed; an accidental press asks first; nothing is typed but ``quit``."""
    db = tmp_path / "games.sqlite3"
    player = Player("--port", box.port, "--players", "Ann,Bob", "--db", str(db))
    player.expect(r"^- game 1: Ann, Bob — round, 9 tiles; throws optional")
    for tile in (9, 8, 7):
        box.set_tile(tile, True)
    player.expect(r"shut 9 \+ 8 \+ 7 with no throw entered \(unverified\)")
    box.press_button()
    player.expect(r"^# turn ended \(unverified\): Ann scores 21")
    for tile in (9, 8, 7):
        box.set_tile(tile, False)
    player.expect(r">> Bob: throw the dice")
    box.press_button()
    player.expect(r"^! press again to end with nothing shut$")
    box.press_button()
    player.expect(r"^# turn ended \(unverified\): Bob scores 45")
    player.expect(r"^# game over: Ann wins")
    code, err = player.finish()
    assert code == 0, err
    assert stored(db) == [ev.players(["Ann", "Bob"]), ev.shut(7, 8, 9, unverified=True), ev.end_turn(declared=True),
                          ev.end_turn(declared=True)]


def test_hands_free_tiles_held_in_a_turn_survive_kill_9_and_resume(box, tmp_path):
    """Throws optional: tiles moved with no throw entered are not events until the turn ends, yet they are saved
    before they are shown; ``play --resume`` after kill -9 goes on with them instead of asking for the board to be
    set up again, and the turn ends with every tile it moved."""
    db = tmp_path / "games.sqlite3"
    player = Player("--port", box.port, "--players", "Ann,Bob", "--db", str(db))
    player.expect(r"^- game 1: Ann, Bob — round, 9 tiles; throws optional")
    player.expect(r">> Ann: throw the dice")
    box.set_tile(9, True)
    box.set_tile(8, True)
    player.expect(r"shut (9 \+ 8|8 \+ 9) with no throw entered \(unverified\)")
    player.kill()
    player.finish()
    assert stored(db) == [ev.players(["Ann", "Bob"])]  # held, not yet recorded

    player = Player("--resume", "--port", box.port, "--db", str(db))
    player.expect(r"^- resuming game 1")
    player.expect(r"^- Ann's turn goes on: shut (9 \+ 8|8 \+ 9) with no throw entered before the restart")
    player.expect(r"shut (9 \+ 8|8 \+ 9) with no throw entered \(unverified\)")
    box.set_tile(7, True)
    player.expect(r"shut 9 \+ 8 \+ 7 with no throw entered \(unverified\)|shut 7 \+ 8 \+ 9 with no throw")
    box.press_button()
    player.expect(r"^# turn ended \(unverified\): Ann scores 21")
    player.type("quit")
    code, err = player.finish()
    assert code == 0, err
    out = "\n".join(player.output)
    before_the_end = out[:out.index("turn ended (unverified): Ann")]
    assert "to start with every tile open" not in before_the_end  # Ann was never asked to set the board up again
    assert stored(db) == [ev.players(["Ann", "Bob"]), ev.shut(7, 8, 9, unverified=True), ev.end_turn(declared=True)]
