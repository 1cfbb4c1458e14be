"""``shutbox firmware build``: pin map from the kit, .mpy modules, generated config, wiring sheet; errors."""

from __future__ import annotations

import json
import re

import pytest
from PIL import Image

from shutbox.cli.commands.kit import GENERATORS
from shutbox.firmware.host.bundle import compile_module, device_modules, firmware_dir, write_bundle
from shutbox.firmware.host.plan import BOARDS, config_module, pin_map
from shutbox.kit.model import LEVELS, PULLS, TILE_INPUTS, build_kit


@pytest.mark.slow
def test_build_default_bundle(cli, tmp_path):
    out = tmp_path / "fw"
    proc = cli("firmware", "build", "--out", str(out), check=True)
    assert "GP2 tile 1" in proc.stdout and "GP22 button" in proc.stdout
    manifest = json.loads((out / "bundle.json").read_text())
    modules = {p.stem for p in device_modules()}
    assert modules == {"box", "debounce", "guard", "inputs", "link", "wire"}
    assert sorted(manifest["device_files"]) == sorted(["main.py", "boxcfg.mpy", *(m + ".mpy" for m in modules)])
    assert sorted(p.name for p in (out / "device").iterdir()) == sorted(manifest["device_files"])
    assert (manifest["board"], manifest["mpy_arch"], manifest["tiles"]) == ("pico", "armv6m", 9)
    assert "mpy v6" in manifest["mpy_cross"]
    for name in manifest["device_files"]:
        data = (out / "device" / name).read_bytes()
        if name.endswith(".mpy"):
            assert data[:2] == b"M\x06", name  # .mpy version 6
    assert (out / "device" / "main.py").read_bytes() == (firmware_dir() / "main.py").read_bytes()
    kit = build_kit({})
    assert (out / "boxcfg.py").read_text() == config_module(pin_map(kit))


def test_generated_config_follows_the_kit():
    pins = pin_map(build_kit({"rules.tiles": 12, "firmware.first_pin": 10, "firmware.button_pin": 3}))
    namespace: dict = {}
    exec(config_module(pins), namespace)  # noqa: S102 - our own generated module
    assert namespace["TILES"] == 12
    # consecutive header GPIOs from GP10, skipping the ones the Pico does not bring out (23-25)
    assert namespace["PINS"] == (10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21)
    assert (namespace["BUTTON"], namespace["SHUT_LEVEL"], namespace["DEBOUNCE_MS"]) == (3, 0, 30)


def test_auto_pins_skip_the_button_and_missing_gpios():
    pins = pin_map(build_kit({"firmware.first_pin": 14, "firmware.button_pin": 16}))
    assert pins.pins == (14, 15, 17, 18, 19, 20, 21, 22, 26)
    explicit = pin_map(build_kit({"firmware.pins": "28,27,26,0,1,2,3,4,5"}))
    assert explicit.pins == (28, 27, 26, 0, 1, 2, 3, 4, 5)
    chain = pin_map(build_kit({"firmware.tile_input": "74hc165", "rules.tiles": 12, "firmware.pins": "5,6,7"}))
    assert chain.pins == (5, 6, 7) and chain.chips == 2
    assert [chain.chain_input(t) for t in (1, 8, 9, 12)] == [(1, "H"), (1, "A"), (2, "H"), (2, "E")]


@pytest.mark.slow
def test_wiring_sheet_for_gpio(cli, tmp_path):
    out = tmp_path / "fw"
    cli("firmware", "build", "--out", str(out), "--tiles", "10", "--first-pin", "6", check=True)
    sheet = (out / "wiring.md").read_text()
    rows = re.findall(r"^\| (\d+) \| GP(\d+) \| (\d+) \| GND \|$", sheet, re.M)
    board = BOARDS["pico"]
    assert [(int(t), int(g)) for t, g, _p in rows] == [(t, t + 5) for t in range(1, 11)]
    assert all(board.header_pin(int(g)) == int(p) for _t, g, p in rows)
    assert "| push button | GP22 | 29 | GND |" in sheet
    with Image.open(out / "wiring.png") as image:
        assert image.format == "PNG" and image.size == (1120, 820)
        counted = image.getcolors(1 << 20)
        assert counted is not None
        colours = {c for _n, c in counted}
        assert (255, 214, 90) in colours  # used pads are highlighted


@pytest.mark.slow
def test_wiring_sheet_for_a_74hc165_chain(cli, tmp_path):
    out = tmp_path / "fw"
    cli("firmware", "build", "--out", str(out), "--tiles", "12", "--tile-input", "74hc165", "--button-pin", "none",
        check=True)
    sheet = (out / "wiring.md").read_text()
    assert "| load | GP2 | 4 | SH/LD (pin 1) of every chip |" in sheet
    assert "| 9 | 2 | H | 6 |" in sheet and "| 12 | 2 | E | 3 |" in sheet
    assert "QH (pin 9) of chip 2 → SER (pin 10) of chip 1." in sheet
    assert "push button" not in sheet and "send the line `REPL`" in sheet
    with Image.open(out / "wiring.png") as image:
        assert image.format == "PNG" and image.width > 1000


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_mpy_cross_compiles_every_firmware_module(tmp_path, board):
    sources = [*device_modules(), firmware_dir() / "main.py", firmware_dir() / "sim" / "machine.py"]
    for source in sources:
        target = tmp_path / (source.stem + ".mpy")
        compile_module(source, target, BOARDS[board].mpy_arch)
        assert target.read_bytes()[:2] == b"M\x06"


BAD_BUILDS = [
    (["--tiles", "11"], "--tiles 11"),
    (["--tiles", "12", "--first-pin", "15"], "--first-pin 15"),
    (["--first-pin", "23"], "--first-pin 23"),
    (["--pins", "2,3,4"], "--pins 2,3,4"),
    (["--pins", "2,3,4,5,6,7,8,9,30"], "GPIO 30"),
    (["--pins", "2,3,4,5,6,7,8,9,22"], "GPIO 22 is also the --button-pin"),
    (["--tile-input", "74hc165", "--pins", "2,3"], "--pins 2,3"),
    (["--button-pin", "24"], "--button-pin 24"),
    (["--scan-ms", "20"], "--scan-ms 20"),
    (["--sensors", "none"], "--sensors none"),
    (["--pins", "2,2,3"], "--pins 2,2,3"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("flags", "named"), BAD_BUILDS, ids=[" ".join(f) for f, _n in BAD_BUILDS])
def test_bad_settings_exit_2_with_one_line_and_write_nothing(cli, tmp_path, flags, named):
    out = tmp_path / "fw"
    proc = cli("firmware", "build", "--out", str(out), *flags)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "allowed" in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_failed_build_leaves_an_existing_bundle_alone(cli, tmp_path):
    out = tmp_path / "fw"
    cli("firmware", "build", "--out", str(out), check=True)
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert cli("firmware", "build", "--out", str(out), "--first-pin", "27").returncode == 2
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fw"]


def test_kit_generator(tmp_path):
    assert ("firmware", "shutbox.firmware.host.bundle:write_bundle") in GENERATORS
    assert write_bundle(build_kit({"sensors.kind": "none"}), tmp_path) == []
    files = write_bundle(build_kit({"rules.tiles": 12}), tmp_path)
    assert "device/main.py" in files and "wiring.png" in files
    assert all((tmp_path / f).is_file() for f in files)


def test_help_lists_firmware_commands(cli):
    proc = cli("firmware", "--help", check=True)
    assert "build" in proc.stdout and "deploy" in proc.stdout
    proc = cli("firmware", "deploy", "--help", check=True)
    assert "2E8A:0005" in proc.stdout and "--bundle" in proc.stdout


@pytest.mark.parametrize("tile_input", TILE_INPUTS)
@pytest.mark.parametrize("shut_level", LEVELS)
@pytest.mark.parametrize("pull", PULLS)
def test_wiring_text_and_drawing_show_one_topology(pull, shut_level, tile_input):
    """wiring.md and wiring.png describe the same second side for the tile switches and the button, and that
    side makes the input read the shut level exactly when the tile is shut (or the button pressed)."""
    from shutbox.firmware.host.topology import GND, V33, topology
    from shutbox.firmware.host.wiring import other_side, wiring_markdown
    from shutbox.firmware.host.wiring_drawing import drawn_labels

    kit = build_kit({"firmware.pull": pull, "firmware.shut_level": shut_level, "firmware.tile_input": tile_input})
    pins = pin_map(kit)
    wiring = topology(pins)
    level = LEVELS.index(shut_level)
    for link, pull_of_input in ((wiring.tiles, "none" if tile_input == "74hc165" else pull), (wiring.button, pull)):
        assert link is not None
        idle = {"up": V33, "down": GND}.get(pull_of_input, link.resistor_to)
        closed_net = link.net
        # read level when shut: a normally-open contact closes onto its net; a normally-closed one opens to idle
        shut_reads = idle if link.normally_closed else closed_net
        open_reads = closed_net if link.normally_closed else idle
        assert (shut_reads, open_reads) == ((V33, GND) if level == 1 else (GND, V33))
        assert (link.resistor_to is None) == (pull_of_input != "none")
    sheet = wiring_markdown(pins)
    labels = drawn_labels(pins)
    assert wiring.button is not None
    assert f"| {other_side(wiring.button, pins)} |" in sheet
    assert wiring.button.drawn in labels
    assert wiring.tiles.drawn in labels or any(label.startswith(wiring.tiles.drawn + " (pin") for label in labels)
    if tile_input == "gpio":
        assert f"| {other_side(wiring.tiles, pins)} |" in sheet
    else:
        assert f"switch to {wiring.tiles.net}" in sheet and f"Unused inputs → {wiring.chain_idle}" in sheet
        assert wiring.chain_idle in labels


def test_the_known_bug_74hc165_pull_up_shut_high_button_goes_to_gnd_through_nc():
    from shutbox.firmware.host.wiring import wiring_markdown
    from shutbox.firmware.host.wiring_drawing import drawn_labels

    pins = pin_map(build_kit({"firmware.pull": "up", "firmware.shut_level": "high", "firmware.tile_input": "74hc165"}))
    assert "| GND, through a normally-closed contact (opens when shut) |" in wiring_markdown(pins)
    assert "GND (NC contact)" in drawn_labels(pins)
