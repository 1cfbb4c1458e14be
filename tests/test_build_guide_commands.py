"""Every shell command the build guide shows (its ```sh blocks, one ``$ `` line each) is run here, in a temporary
folder, in the guide's order, as the user types it; only what stands in for the hardware is added.

What each command is run against (``RUNNERS`` names every kind of command; a command of no known kind fails):

- ``shutbox config show ... > shutbox.toml``: run as written; the file it writes must give the guide's kit.
- ``shutbox cad --out cad``: run as written (slow: a CAD build); the ``cad/build.md`` it writes must be this guide.
- ``shutbox firmware build --out fw``: run as written; the bundle and its wiring sheet must be there.
- ``shutbox pcb --out pcb``: run as written (KiCad's kicad-cli); the fab zip and the pictures the guide shows must
  be there.
- ``shutbox firmware deploy --bundle fw``: needs a board. As written (``--port auto``) on a machine without a Pico
  it must say so in one line and exit 2; with ``--port`` of a blank emulated Pico (shutbox.firmware.host.emulator,
  slow, Node) it must copy the bundle and find the firmware running.
- ``sudo usermod -aG dialout $USER``: never run (it changes the machine's users); it must be the fix the
  scorekeeper's "permission denied" error gives.
- ``shutbox monitor --test``, ``shutbox monitor``, ``shutbox play --players ...``: with ``--port`` of a simulated box
  (shutbox.companion.sim.box: the bundle just built, on the unix MicroPython port, behind a pseudo-terminal), the
  test doing what the wiring test says; ``shutbox play ... --port none`` (the guide for a kit without sensors)
  as written.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.cad.build.export import plan
from shutbox.cad.guide.buildnotes import build_notes
from shutbox.firmware.host.serialport import PORT_GROUP, group_command, open_failure
from shutbox.kit.config import load_toml
from shutbox.kit.model import Kit, build_kit
from tests.conftest import ctrl_c_as_at_a_terminal

#: The kits whose guides are read: the default one, 12 tiles on a 74HC165 chain, one with microswitches and one
#: without sensors.
KITS = {"default": {}, "74hc165": {"rules.tiles": 12, "firmware.tile_input": "74hc165"},
        "microswitches": {"sensors.kind": "microswitch"}, "no sensors": {"sensors.kind": "none"}}


def guide(settings: dict) -> tuple[Kit, str]:
    kit = build_kit(settings)
    return kit, build_notes(kit, *plan(kit))


def guide_commands(notes: str) -> list[str]:
    """The ``$ `` lines of every ```sh block, in order."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", notes, re.M | re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    assert all(line.startswith("$ ") for line in lines), lines
    return [line[2:] for line in lines]


def kind(command: str) -> str | None:
    """Which runner runs ``command`` (see the module docstring), or None."""
    argv = shlex.split(command)
    if argv[:3] == ["shutbox", "config", "show"] and argv[-2:] == [">", "shutbox.toml"]:
        return "settings"
    if argv[0] == "sudo":
        return "group" if command == group_command(PORT_GROUP) else None
    known = {("shutbox", "cad", "--out", "cad"): "cad", ("shutbox", "firmware", "build", "--out", "fw"): "firmware",
             ("shutbox", "pcb", "--out", "pcb"): "pcb",
             ("shutbox", "firmware", "deploy", "--bundle", "fw"): "deploy", ("shutbox", "monitor", "--test"): "wiring",
             ("shutbox", "monitor"): "monitor"}
    if tuple(argv) in known:
        return known[tuple(argv)]
    if argv[:3] == ["shutbox", "play", "--players"] and len(argv) in (4, 6):
        return "play" if len(argv) == 4 else ("play-boxless" if argv[4:] == ["--port", "none"] else None)
    return None


RUNNERS = {"settings", "cad", "firmware", "pcb", "deploy", "group", "wiring", "monitor", "play", "play-boxless"}


def shell(command: str, folder: Path, extra: str = "", **kwargs) -> subprocess.Popen[str]:
    """``command`` (plus ``extra`` flags) started by bash in ``folder``, ``shutbox`` being this Python's."""
    line = re.sub(r"^shutbox ", f"{shlex.quote(sys.executable)} -m shutbox ", command)
    if extra:
        line = re.sub(r"( >.*)?$", lambda m: f" {extra}{m.group(0)}", line, count=1)
    return subprocess.Popen(["bash", "-c", line], cwd=folder, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)


def run(command: str, folder: Path, extra: str = "", stdin: str | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = shell(command, folder, extra, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
    out, err = proc.communicate(stdin, timeout=timeout)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


@pytest.mark.parametrize("name", KITS)
def test_every_command_in_the_guide_has_a_runner(name):
    _, notes = guide(KITS[name])
    commands = guide_commands(notes)
    assert commands, "the guide shows no command"
    unknown = [c for c in commands if kind(c) not in RUNNERS]
    assert not unknown, f"commands no test runs: {unknown}"
    # A command the text names (`shutbox cad` writes ...) must be one the blocks show, its words in that order.
    shown = [shlex.split(c) for c in commands]
    for named in re.findall(r"`(shutbox [a-z][^`]*)`", notes):
        words = shlex.split(named)
        assert any(argv[:len(words)] == words for argv in shown), f"`{named}` is named but shown in no block"


def test_a_command_of_no_known_kind_is_refused():
    assert kind("shutbox firmware deploy") is None  # the old guide's words, without the bundle
    assert kind("sudo rm -rf /") is None
    assert kind('shutbox play --players "Ann,Bob"') == "play"


def test_the_group_command_is_the_fix_the_port_error_gives():
    """Not run: it changes the machine's users. It is the one the scorekeeper prints for a port it may not open."""
    _, notes = guide({})
    command = next(c for c in guide_commands(notes) if kind(c) == "group")
    denied = open_failure("/dev/ttyACM0", PermissionError(13, "Permission denied"))
    assert command in denied and "log out and back in" in denied
    assert "dialout" in notes and "uucp" in notes


def _with(kinds: set[str], notes: str) -> list[str]:
    return [c for c in guide_commands(notes) if kind(c) in kinds]


def _settings_and_firmware(kit: Kit, notes: str, folder: Path) -> None:
    """The guide's first commands: its settings into ./shutbox.toml, then the firmware bundle."""
    for command in _with({"settings", "firmware"}, notes):
        proc = run(command, folder)
        assert proc.returncode == 0, (command, proc.stderr)
    assert build_kit(load_toml(folder / "shutbox.toml")[0]) == kit
    if kit.sensors.kind != "none":
        assert (folder / "fw" / "wiring.md").is_file() and (folder / "fw" / "bundle.json").is_file()


def _wiring_test(command: str, folder: Path, box) -> str:
    """``monitor --test`` on the simulated box, doing what it says; its output."""
    from tests.test_companion_live_wiring import Faults, running

    running(box)
    proc = shell(command, folder, f"--port {box.port} --step-timeout 1.5")
    assert proc.stdout is not None and proc.stderr is not None
    out = []
    for line in proc.stdout:
        out.append(line)
        Faults().act(box, line)
    assert proc.wait(timeout=60) == 0, "".join(out) + proc.stderr.read()
    return "".join(out)


def _monitor(command: str, folder: Path, box) -> str:
    """``monitor`` on the simulated box: a line for the start and one for a tile shut, then Ctrl-C."""
    proc = shell(command, folder, f"--port {box.port}", start_new_session=True, preexec_fn=ctrl_c_as_at_a_terminal)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        first = proc.stdout.readline()
        box.set_tile(3, True)
        second = proc.stdout.readline()
        box.set_tile(3, False)
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=30)
    finally:  # a failed check leaves no monitor running
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert code == 130, (code, proc.stderr.read())
    assert "3" in second and second != first, (first, second)
    return first + second


def _play(command: str, folder: Path, extra: str) -> str:
    proc = run(command, folder, f"{extra} --db {shlex.quote(str(folder / 'games.sqlite3'))}".strip(),
               stdin="quit\n", timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Ann" in proc.stdout and "game 1 is saved" in proc.stdout, proc.stdout[-2000:]
    return proc.stdout


@pytest.mark.slow  # a real-time walk through the wiring test, tile by tile (7 s); the boxless guide stays fast
@pytest.mark.parametrize("name", ["default", "74hc165"])
def test_the_guides_commands_run_in_order_on_a_simulated_box(name, tmp_path):
    """Settings, firmware, deploy as far as it goes without a board, the wiring test, monitor and play."""
    from shutbox.companion.sim.box import SimBox

    try:
        from shutbox.companion.sim.box import find_micropython

        find_micropython()
    except Exception as exc:  # noqa: BLE001  (the dev extra's unix MicroPython)
        pytest.skip(str(exc))
    kit, notes = guide(KITS[name])
    _settings_and_firmware(kit, notes, tmp_path)
    for command in _with({"deploy"}, notes):
        helped = run(command, tmp_path, "--help")
        assert helped.returncode == 0 and "--bundle" in helped.stdout, helped.stderr
        from shutbox.firmware.host.deploy import NoBoard, choose_port

        try:
            choose_port("auto")
        except NoBoard:  # no board here: the command as written must say so in one line
            proc = run(command, tmp_path)
            assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
            assert "no Raspberry Pi Pico running MicroPython found" in proc.stderr
        except ShutboxError:
            pass  # several boards connected: nothing to check as written
    with SimBox(kit, bundle=tmp_path / "fw", connect=False) as box:
        for command in _with({"wiring"}, notes):
            assert f"wiring OK: {kit.rules.tiles} tiles" in _wiring_test(command, tmp_path, box)
        for command in _with({"monitor"}, notes):
            _monitor(command, tmp_path, box)
        for command in _with({"play"}, notes):
            _play(command, tmp_path, f"--port {box.port}")
    assert _with({"play"}, notes)


def test_the_boxless_guides_play_command_runs_as_written(tmp_path):
    kit, notes = guide(KITS["no sensors"])
    _settings_and_firmware(kit, notes, tmp_path)
    commands = _with({"play-boxless"}, notes)
    assert commands and not _with({"wiring", "monitor", "deploy", "play"}, notes)
    for command in commands:
        _play(command, tmp_path, "")


@pytest.mark.slow
def test_the_guides_deploy_onto_an_emulated_pico(tmp_path):
    """The deploy command with ``--port`` of a blank emulated Pico: copied, reset, the firmware answers."""
    from shutbox.companion.sim.emulated import EmulatedBox
    from tests.emulator_support import needs_emulator

    needs_emulator()
    kit, notes = guide({})
    _settings_and_firmware(kit, notes, tmp_path)
    with EmulatedBox(kit, blank=True) as board:
        for command in _with({"deploy"}, notes):
            proc = run(command, tmp_path, f"--port {board.port}")
            assert proc.returncode == 0, proc.stderr
            assert "the box is running: firmware" in proc.stdout and f"{kit.rules.tiles} tiles" in proc.stdout


@pytest.mark.slow
def test_the_guides_cad_command_writes_this_guide(tmp_path):
    """``shutbox cad --out cad`` in the folder of the guide's shutbox.toml writes the parts and this very guide,
    every picture it links among them."""
    kit, notes = guide({})
    _settings_and_firmware(kit, notes, tmp_path)
    for command in _with({"cad"}, notes):
        start = time.monotonic()
        proc = run(command, tmp_path, timeout=1200)
        assert proc.returncode == 0, (proc.stderr[-3000:], time.monotonic() - start)
    written = (tmp_path / "cad" / "build.md").read_text(encoding="utf-8")
    assert written == notes
    for image in re.findall(r"\]\((preview/[^)]+)\)", written):
        assert (tmp_path / "cad" / image).is_file(), image


def test_the_guides_settings_flags_keep_a_match_whose_limit_needs_it():
    from shutbox.cad.guide.buildnotes import settings_flags
    from shutbox.kit.model import build_kit

    # without --match drop-out, the limit 45 its format gave is refused: the flag stays (it broke `shutbox kit`)
    assert settings_flags(build_kit({"rules.match": "drop-out"})) == " --match drop-out"
    assert settings_flags(build_kit({"rules.match": "tournament", "rules.limit": 150})) == \
        " --match tournament --limit 150"
    assert settings_flags(build_kit({"rules.tiles": 12})) == " --tiles 12"


@pytest.mark.parametrize("name", ["default", "74hc165"])
def test_the_guides_board_command_writes_what_the_guide_shows(name, tmp_path):
    """``shutbox pcb --out pcb`` as the guide has it, after its settings: the fab zip it says to upload and the two
    pictures it shows (linked from ``cad/build.md``, beside which ``pcb/`` lies)."""
    from tests.conftest import require_tool

    require_tool("kicad-cli")
    kit, notes = guide(KITS[name])
    for command in _with({"settings"}, notes):
        assert run(command, tmp_path).returncode == 0
    board = _with({"pcb"}, notes)
    assert board == ["shutbox pcb --out pcb"]
    proc = run(board[0], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "pcb" / "shutbox-switch-row-fab.zip").is_file()
    pictures = re.findall(r"!\[[^]]*\]\((\.\./pcb/[^)]+)\)", notes)
    assert len(pictures) == 2
    for picture in pictures:
        assert (tmp_path / "cad" / picture).resolve().is_file(), picture
