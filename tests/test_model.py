"""The kit model: every setting validates, precedence of defaults < TOML < flags, TOML round trip."""

from __future__ import annotations

import argparse
import tomllib

import pytest

from shutbox.base.errors import SettingsError
from shutbox.kit.config import kit_to_toml, load_toml, resolve
from shutbox.kit.model import SETTINGS, Kit, bed_size, build_kit, kit_as_flat

GOOD = {
    "rules.tiles": [9, 10, 11, 12, "12", 18, 36, 54],
    "rules.dice": [2, "3", 6, "none"],
    "rules.one_die": ["high-shut", "shut-789", "sum-6", "sum-5", "never"],
    "rules.one_die_forced": [True, False, "on", "off"],
    "rules.max_tiles_per_throw": ["none", 2, "2"],
    "rules.scoring": ["sum", "digits"],
    "rules.match": ["round", "drop-out", "tournament", "long-game"],
    "rules.limit": [1, 45, "300"],
    "rules.stake": [0, 0.5, "2"],
    "box.length_mm": [279.4, "300"],
    "box.width_mm": [183.7],
    "box.height_mm": [54.8],
    "box.wall_mm": [1.2, 3, 5, "15"],
    "box.felt_mm": [0.5, "1.5", 5],
    "dice.size_mm": [19, "16", 8, 40],
    "tile_fit.clearance_mm": [0.25, "0.3"],
    "tile_fit.detent_mm": [0.2, "0.5", 1.5],
    "printer.bed": ["mk4", "core-one", "mini", "xl", "ender3", "bambu", "250x210x220"],
    "sensors.kind": ["reed", "microswitch", "none"],
    "sensors.reed_length_mm": [5, 14, "30"],
    "sensors.reed_diameter_mm": [1, "2.5", 5],
    "sensors.magnet_diameter_mm": [2, 6, "10"],
    "sensors.magnet_height_mm": [1, "3", 5],
    "sensors.magnet_slack_mm": [0, "0.5", 1.5],
    "sensors.board_length_mm": [20, 51, "120"],
    "sensors.board_width_mm": [10, "21", 60],
    "sensors.board_height_mm": [1, 4, "20"],
    "sensors.magnet_grade": ["N35", "N52"],
    "sensors.reed_gap_mm": [3, "5", 12],
    "sensors.reed_operate_mm": [1, 7.5, "40"],
    "sensors.reed_release_mm": [1, "12", 60],
    "sensors.shift_board_length_mm": [20, 50, "100"],
    "sensors.shift_board_width_mm": [10, "20", 40],
    "sensors.shift_board_height_mm": [3, 10, "20"],
    "cad.chord_tolerance_mm": [0.005, "0.05", 0.5],
    "cad.angular_tolerance_deg": [1, "15", 45],
    "cad.engrave_depth_mm": [0.4, "0.6", 2],
    "cad.joint_clearance_mm": [0.05, "0.15", 0.5],
    "cad.cache_limit_mb": [10, "1000", 1_000_000],
    "firmware.board": ["pico", "pico2"],
    "firmware.tile_input": ["gpio", "74hc165"],
    "firmware.pins": ["auto", "2,3,4", " 5, 6 ", [7, 8, 9], "0"],
    "firmware.first_pin": [0, 2, "15"],
    "firmware.button_pin": [22, "0", "none", None],
    "firmware.pull": ["up", "down", "none"],
    "firmware.shut_level": ["low", "high"],
    "firmware.debounce_ms": [1, 30, "1000"],
    "firmware.scan_ms": [1, 5, "100"],
    "play.throws": ["auto", "required", "optional"],
}

BAD = {
    "rules.tiles": [8, "55", 0, "nine", 9.5, True],
    "rules.dice": [1, "10", "two", 2.5],
    "rules.one_die": ["sometimes", "", 6],
    "rules.one_die_forced": ["maybe", 2],
    "rules.max_tiles_per_throw": [3, 1, "two", True],
    "rules.scoring": ["product"],
    "rules.match": ["league"],
    "rules.limit": [-5, 0, "many"],
    "rules.stake": [-1, "free"],
    "box.length_mm": [-1, 0, "long"],
    "box.width_mm": [0],
    "box.height_mm": [-54.8],
    "box.wall_mm": [1.1, 16, "thick"],
    "box.felt_mm": [0.4, 5.1, "felt"],
    "dice.size_mm": [0, "nan", 7.9, 60],
    "tile_fit.clearance_mm": [-0.1, 0],
    "tile_fit.detent_mm": [0.1, 1.6, "firm"],
    "printer.bed": ["prusa", "250x210", "0x10x10"],
    "sensors.kind": ["laser"],
    "sensors.reed_length_mm": [4.9, 31, "long"],
    "sensors.reed_diameter_mm": [0.9, 5.1, ""],
    "sensors.magnet_diameter_mm": [1.9, 10.1, "big"],
    "sensors.magnet_height_mm": [0.9, 5.1, "nan"],
    "sensors.magnet_slack_mm": [-0.1, 1.6, "loose"],
    "sensors.board_length_mm": [19, 121, "pico"],
    "sensors.board_width_mm": [9, 61, True],
    "sensors.board_height_mm": [0.5, 21, "tall"],
    "sensors.magnet_grade": ["N30", "n35", ""],
    "sensors.reed_gap_mm": [2.9, 12.1, "close"],
    "sensors.reed_operate_mm": [0.9, 41, "far"],
    "sensors.reed_release_mm": [0.5, 61, "nan"],
    "sensors.shift_board_length_mm": [19, 101, "long"],
    "sensors.shift_board_width_mm": [9, 41, True],
    "sensors.shift_board_height_mm": [2.9, 21, "tall"],
    "cad.chord_tolerance_mm": [0.004, 0.6, "fine"],
    "cad.angular_tolerance_deg": [0.5, 46, "inf"],
    "cad.engrave_depth_mm": [0.39, 2.1, "deep"],
    "cad.joint_clearance_mm": [0.04, 0.51, "loose"],
    "cad.cache_limit_mb": [9, 1_000_001, "big"],
    "firmware.board": ["arduino", ""],
    "firmware.tile_input": ["matrix", "74hc595"],
    "firmware.pins": ["", "2,2", "a,b", "-1,2", "2;3", [], True],
    "firmware.first_pin": [-1, "two", 2.5],
    "firmware.button_pin": [-3, "gp22", 1.5],
    "firmware.pull": ["sideways", True],
    "firmware.shut_level": ["0", "medium"],
    "firmware.debounce_ms": [0, 1001, "fast"],
    "firmware.scan_ms": [0, 101, "x"],
    "play.throws": ["sometimes", "Required", "", None, True, 2],
}


def test_every_setting_has_good_and_bad_cases():
    keys = {s.key for s in SETTINGS}
    assert keys == set(GOOD) == set(BAD)


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, vs in GOOD.items() for v in vs])
def test_good_values_are_accepted(key, value):
    context = {"rules.match": "drop-out"} if key == "rules.limit" else {}  # a limit needs a cumulative match
    build_kit({**context, key: value})


@pytest.mark.slow
@pytest.mark.parametrize(("key", "value"), [(k, v) for k, vs in BAD.items() for v in vs])
def test_bad_values_name_the_value_and_what_is_allowed(key, value):
    with pytest.raises(SettingsError) as err:
        build_kit({key: value}, {key: "--flag"})
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("--flag ")
    assert "allowed" in message


def test_defaults_follow_rules_md():
    kit = Kit()
    assert kit.rules.tiles == 9
    assert kit.rules.one_die == "high-shut"
    assert kit.rules.one_die_forced is False
    assert kit.rules.max_tiles_per_throw is None
    assert kit.rules.scoring == "sum"
    assert kit.rules.match == "round"
    assert kit.rules.limit is None
    assert (kit.box.length_mm, kit.box.width_mm, kit.box.height_mm) == (279.4, 183.7, 54.8)
    assert kit.dice.size_mm == 19.0
    assert kit.tile_fit.clearance_mm == 0.25
    assert kit.printer.bed_mm == (250.0, 210.0, 220.0)


def test_match_limits_default_per_format():
    assert build_kit({"rules.match": "drop-out"}).rules.limit == 45
    assert build_kit({"rules.match": "tournament"}).rules.limit == 100
    assert build_kit({"rules.match": "tournament", "rules.limit": 60}).rules.limit == 60
    with pytest.raises(SettingsError, match=r"^--limit 60 does not apply to --match round"):
        build_kit({"rules.match": "round", "rules.limit": 60})


def test_bed_sizes():
    assert bed_size("xl") == (360.0, 360.0, 360.0)
    assert build_kit({"printer.bed": "200X180x100"}).printer.bed_mm == (200.0, 180.0, 100.0)


def test_unknown_key_suggests_closest():
    with pytest.raises(SettingsError, match=r"unknown setting 'rules.tile'; did you mean 'rules.tiles'"):
        build_kit({"rules.tile": 9})


def _args(**flags):
    ns = argparse.Namespace(config=None)
    for s in SETTINGS:
        setattr(ns, s.dest, None)
    for k, v in flags.items():
        setattr(ns, k, v)
    return ns


def test_precedence_defaults_then_toml_then_flags(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve(_args()).rules.tiles == 9
    (tmp_path / "shutbox.toml").write_text('[rules]\ntiles = 10\nscoring = "digits"\n')
    kit = resolve(_args())
    assert (kit.rules.tiles, kit.rules.scoring) == (10, "digits")
    kit = resolve(_args(rules__tiles="12"))
    assert (kit.rules.tiles, kit.rules.scoring) == (12, "digits")
    other = tmp_path / "other.toml"
    other.write_text("[rules]\ntiles = 12\n")
    kit = resolve(_args(config=str(other)))
    assert (kit.rules.tiles, kit.rules.scoring) == (12, "sum")


def test_toml_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[rules\ntiles = 9\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_toml(bad)
    bad.write_text("[rules]\ntiles = 55\n")
    with pytest.raises(SettingsError, match=r"rules.tiles = 55: invalid value; allowed: a whole number from 9 to 54"):
        resolve(_args(config=str(bad)))
    bad.write_text("[rule]\ntiles = 9\n")
    with pytest.raises(SettingsError, match=r"unknown section \[rule\]; did you mean 'rules'"):
        load_toml(bad)
    bad.write_text("[rules]\nscorin = 'sum'\n")
    with pytest.raises(SettingsError, match=r"did you mean 'rules.scoring'"):
        resolve(_args(config=str(bad)))
    with pytest.raises(SettingsError, match="no such file"):
        load_toml(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"rules.tiles": 12, "rules.match": "drop-out", "rules.limit": 60, "rules.one_die_forced": True},
        {"rules.max_tiles_per_throw": 2, "rules.scoring": "digits", "printer.bed": "200x200x150"},
        {"rules.tiles": 30, "rules.dice": 6, "rules.one_die": "shut-789"},
        {"rules.match": "long-game", "rules.stake": 1.5, "sensors.kind": "none", "dice.size_mm": 16},
        {"firmware.tile_input": "74hc165", "firmware.pins": "6,7,8", "firmware.button_pin": "none"},
    ],
)
def test_toml_round_trip(tmp_path, values):
    kit = build_kit(values)
    text = kit_to_toml(kit)
    tomllib.loads(text)
    path = tmp_path / "s.toml"
    path.write_text(text)
    again = resolve(_args(config=str(path)))
    assert again == kit
    assert kit_as_flat(again) == kit_as_flat(kit)
