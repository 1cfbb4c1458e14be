"""The switch-row board (`shutbox pcb`): read back, its nets are the firmware's pin plan and its footprints sit where
the CAD layout puts each tile's switch, the Pico and the cover's pins; KiCad's own DRC passes it for every tile
count, tile input and sensor kind; the fab set is whole; bad settings are one line and nothing written."""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import pytest

from shutbox.cad.board.fab import drc
from shutbox.cad.board.folder import write_board
from shutbox.cad.board.kicad import STEM, design, write_project
from shutbox.cad.board.plan import pico_centre
from shutbox.cad.board.readback import read_board
from shutbox.cad.geometry.layout import layout
from shutbox.firmware.host.plan import HC165_PINS, pin_map
from shutbox.kit.model import build_kit
from tests.conftest import require_tool

TOLERANCE = 0.3  # mm: a footprint against the CAD layout
MATRIX = [(t, ti, s) for t in (9, 10, 12) for ti in ("gpio", "74hc165") for s in ("reed", "microswitch")]


def _kit(tiles: int = 9, tile_input: str = "gpio", sensors: str = "reed", **more: str):
    return build_kit({"rules.tiles": tiles, "firmware.tile_input": tile_input, "sensors.kind": sensors, **more})


def _written(kit, folder: Path) -> Path:
    write_project(design(kit), folder)
    return folder / f"{STEM}.kicad_pcb"


def _check_against_plan(kit, board: Path) -> None:
    """Every tile's switch net is the net of its pin in the firmware's pin plan (a Pico GPIO, or its 74HC165
    input), and every footprint is where the CAD layout has it."""
    lay, pins = layout(kit), pin_map(kit)
    placed = {p.ref: p for p in read_board(board)}
    pico = placed["U1"]
    assert pico.box_xy(lay.width) == pytest.approx(pico_centre(lay), abs=TOLERANCE)
    for n in range(1, kit.rules.tiles + 1):
        switch = placed[f"S{n}"]
        assert switch.properties["Tile"] == str(n)
        assert switch.box_xy(lay.width) == pytest.approx((lay.lane_x(n), lay.switch_y), abs=TOLERANCE)
        net = switch.nets["C" if kit.sensors.lever else "1"]
        assert net is not None
        if pins.tile_input == "gpio":
            assert pico.nets[str(pins.board.header_pin(pins.tile_gpio(n)))] == net, f"tile {n}"
        else:
            chip, letter = pins.chain_input(n)
            assert placed[f"U{chip + 1}"].nets[str(HC165_PINS[letter])] == net, f"tile {n}"
    for name, gpio in zip(("SH_LD", "CLK", "QH"), pins.pins if pins.tile_input == "74hc165" else (), strict=False):
        assert pico.nets[str(pins.board.header_pin(gpio))] == name
    ox, oy = lay.cover_origin
    holes = sorted(c for p in placed.values() if p.name.startswith("ShutBox:Hole_2.2") for c in p.box_xy(lay.width))
    assert holes == pytest.approx(sorted(c for x, y in lay.pin_points() for c in (ox + x, oy + y)), abs=TOLERANCE)
    nets = {net for p in placed.values() for net in p.nets.values() if net}
    assert len({placed[f"S{n}"].nets["C" if kit.sensors.lever else "1"] for n in range(1, kit.rules.tiles + 1)}) \
        == kit.rules.tiles
    assert "GND" in nets


@pytest.mark.parametrize("tiles, tile_input, sensors", [(9, "gpio", "reed"), (12, "74hc165", "microswitch")])
def test_board_read_back_matches_pin_plan_and_layout(tmp_path: Path, tiles: int, tile_input: str, sensors: str):
    kit = _kit(tiles, tile_input, sensors)
    _check_against_plan(kit, _written(kit, tmp_path))


def _footprint_span(text: str, ref: str) -> tuple[int, int]:
    at = text.index(f'(property "Reference" "{ref}"')
    start = text.rindex("(footprint", 0, at)
    return start, text.index("(footprint", at) if "(footprint" in text[at:] else len(text)


def test_read_back_check_fails_on_a_swapped_net_or_a_moved_part(tmp_path: Path):
    """The check can fail: two tiles' switch nets swapped, or a switch 0.5 mm off its pocket, are caught."""
    kit = _kit()
    board = _written(kit, tmp_path)
    text = board.read_text(encoding="utf-8")
    a0, a1 = _footprint_span(text, "S1")
    b0, b1 = _footprint_span(text, "S2")
    swapped = (text[:a0] + text[a0:a1].replace('"TILE1"', '"TILE2"') + text[a1:b0]
               + text[b0:b1].replace('"TILE2"', '"TILE1"') + text[b1:])
    board.write_text(swapped, encoding="utf-8")
    with pytest.raises(AssertionError, match="tile 1"):
        _check_against_plan(kit, board)
    x = layout(kit).lane_x(3)
    c0, c1 = _footprint_span(text, "S3")
    moved = text[c0:c1].replace(f"(at {x:.4f}".rstrip("0"), f"(at {x + 0.5:.4f}".rstrip("0"), 1)
    assert moved != text[c0:c1]
    board.write_text(text[:c0] + moved + text[c1:], encoding="utf-8")
    with pytest.raises(AssertionError):
        _check_against_plan(kit, board)


def _drc_clean(kit, folder: Path) -> None:
    cli = require_tool("kicad-cli")
    board = _written(kit, folder)
    report = drc(cli, board, folder / "drc.json")
    assert report.violations == [] and report.unconnected == [], report.summary()


def test_default_board_passes_kicad_drc(tmp_path: Path):
    _drc_clean(_kit(), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("tiles, tile_input, sensors", [m for m in MATRIX if m != (9, "gpio", "reed")])
def test_every_board_passes_kicad_drc(tmp_path: Path, tiles: int, tile_input: str, sensors: str):
    kit = _kit(tiles, tile_input, sensors)
    _drc_clean(kit, tmp_path)
    _check_against_plan(kit, tmp_path / f"{STEM}.kicad_pcb")


def test_drc_finds_a_broken_board(tmp_path: Path):
    """The DRC check can fail: a board with one track cut short has an unconnected item."""
    cli = require_tool("kicad-cli")
    board = _written(_kit(), tmp_path)
    text = board.read_text(encoding="utf-8")
    start = text.index("(segment")
    end = text.index("(segment", start + 1)
    board.write_text(text[:start] + text[end:], encoding="utf-8")
    assert not drc(cli, board, tmp_path / "drc.json").clean


def test_fab_set(tmp_path: Path):
    """`shutbox pcb`'s folder: Gerbers and drill in the zip, a placement line and a BOM row for every part."""
    require_tool("kicad-cli")
    files = write_board(_kit(), tmp_path)
    with zipfile.ZipFile(tmp_path / f"{STEM}-fab.zip") as z:
        names = z.namelist()
    for suffix in (".gtl", ".gbl", ".gts", ".gbs", ".gto", ".gm1", "-PTH.drl", "-NPTH.drl"):
        assert any(n.endswith(suffix) for n in names), suffix
    placed = {p.ref for p in read_board(tmp_path / f"{STEM}.kicad_pcb") if not p.name.startswith("ShutBox:Hole")}
    with (tmp_path / f"{STEM}-pos.csv").open(encoding="utf-8") as f:
        assert {row["Ref"] for row in csv.DictReader(f)} == placed
    with (tmp_path / f"{STEM}-bom.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {ref for row in rows for ref in row["References"].split()} == placed
    assert sum(int(row["Quantity"]) for row in rows) == len(placed)
    for side in ("front", "back"):
        assert (tmp_path / f"{STEM}-{side}.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    manifest = json.loads((tmp_path / "pcb.json").read_text(encoding="utf-8"))
    assert manifest["drc"] == "0 violations, 0 unconnected items" and manifest["kicad"].startswith("9.")
    assert set(files) == set(manifest["files"]) | {"pcb.json"}


@pytest.mark.parametrize("flags, says", [
    (["--sensors", "none"], "--sensors none"),
    (["--tiles", "13"], "--tiles 13"),
    (["--board-length", "60"], "--board-length 60"),
])
def test_bad_settings_one_line_nothing_written(tmp_path: Path, cli, flags: list[str], says: str):
    out = tmp_path / "board"
    proc = cli("pcb", "--out", str(out), *flags)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and says in proc.stderr
    assert not out.exists()
