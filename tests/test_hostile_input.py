"""Hostile input wherever it enters (issue 11, item 3): flags, the settings file, game files, sim scripts.

Sizes, digits and nesting are bounded before parsing (Python refuses int() of more than 4,300 digits;
json and tomllib recurse per level), numbers must be finite, a bool is not a number, names hold no
control characters, and every message that repeats outside text escapes it and keeps it short.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox.base.bounded import MAX_DEPTH, nesting_depth, parse_json, parse_toml
from shutbox.base.errors import ShutboxError
from shutbox.base.text import SHOWN_LIMIT, safe_line, shown
from shutbox.game import events as ev
from shutbox.game.gamefile import game_from_json
from shutbox.game.rules import IllegalMove
from tests.conftest import first_fast

BIG = "9" * 5000
ESC = "\x1b[31mRED\x1b[0m\x07"


def one_line_error(proc, *parts: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert len(proc.stderr) < 800, len(proc.stderr)
    for part in parts:
        assert part in proc.stderr, proc.stderr


# -- the echo: escaped and short, whatever comes in ---------------------------------------------------------


@pytest.mark.slow
@given(st.one_of(st.text(), st.binary(), st.integers(), st.floats(), st.lists(st.text())))
def test_shown_is_printable_and_short_for_anything(value):
    text = shown(value)
    assert text.isprintable()
    assert len(text) <= SHOWN_LIMIT + 40


@given(st.text())
def test_safe_line_is_one_printable_line(text):
    line = safe_line("shutbox: error: " + text)
    assert line.isprintable() and "\n" not in line and len(line) < 500


def test_shown_escapes_terminal_controls_surrogates_and_bidi_overrides():
    assert shown("a\x1b[2Jb\x00c") == "a\\x1b[2Jb\\x00c"
    assert shown("\ud800") == "\\ud800"
    assert shown("abc\u202edef") == "abc\\u202edef"
    assert shown("x" * 20_000_000).endswith(f"…(+{20_000_000 - SHOWN_LIMIT} chars)")


# -- bounded parsing ------------------------------------------------------------------------------------------


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list('[]{}",:0123456789.eE-+ aNIfinty\\u\n')), max_size=200))
def test_parse_json_only_ever_raises_one_line_errors(text):
    try:
        parse_json(text, "f.json")
    except ShutboxError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200)
@given(st.text(max_size=200))
def test_parse_toml_only_ever_raises_one_line_errors(text):
    try:
        parse_toml(text, "f.toml")
    except ShutboxError as exc:
        assert "\n" not in str(exc)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000,
                                  f"[{BIG}]", "[NaN]", "[Infinity]", "[-Infinity]", "[1e999]", "{\"a\": -1e400}"])
def test_json_too_deep_too_long_or_not_finite_is_refused(text):
    with pytest.raises(ShutboxError, match="f.json"):
        parse_json(text, "f.json")


@pytest.mark.parametrize("text", ["a = " + "[" * 100_000 + "]" * 100_000, f"a = {BIG}", "a = nan", "a = inf",
                                  "a = -inf", "a = 1e999"])
def test_toml_too_deep_too_long_or_not_finite_is_refused(text):
    with pytest.raises(ShutboxError, match="f.toml"):
        parse_toml(text, "f.toml")


def test_nesting_depth_is_an_upper_bound_and_cheap():
    assert nesting_depth('{"a": [[1], [2]]}') == 3 or nesting_depth('{"a": [[1], [2]]}') >= 3
    assert nesting_depth("[" * 10_000_000) > MAX_DEPTH


# -- the settings file and flags ------------------------------------------------------------------------------


SETTINGS_FILES = {
    "deep": ("a = " + "[" * 100_000 + "]" * 100_000, "nested more than"),
    "digits": (f"[rules]\ntiles = {BIG}", "not valid TOML"),
    "many digits": (f"[rules]\ntiles = {'9' * 4000}", "rules.tiles"),
    "nan": ("[rules]\nstake = nan", "not a finite number"),
    "inf": ("[rules]\nstake = inf", "not a finite number"),
    "huge": ("[rules]\nstake = 1e300", "rules.stake"),
    "bool": ("[rules]\ntiles = true", "rules.tiles"),
    "float tiles": ("[rules]\ntiles = 9.5", "rules.tiles"),
    "escape value": (f'[rules]\nmatch = {json.dumps(ESC)}', "\\x1b[31mRED"),
    "escape key": (f'[rules]\n{json.dumps(ESC)} = 1', "\\x1b[31mRED"),
    "escape section": (f'[{json.dumps(ESC)}]\nx = 1', "\\x1b[31mRED"),
    "raw escape": (f'[rules]\nmatch = "{ESC}"', "Illegal character"),
    "date": ("[rules]\ntiles = 1979-05-27", "rules.tiles"),
    "pins": ("[firmware]\npins = [" + ",".join(["1"] * 10_000) + "]", "firmware.pins"),
    "bed": (f'[printer]\nbed = "{"1" * 400}x1x1"', "printer.bed"),
    "not a table": ("rules = [1, 2]", "must be a table"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETTINGS_FILES))
def test_a_hostile_settings_file_is_one_short_escaped_line(cli, tmp_path, name):
    text, expected = SETTINGS_FILES[name]
    path = tmp_path / "shutbox.toml"
    path.write_text(text, encoding="utf-8")
    one_line_error(cli("config", "show", "--config", str(path)), expected)


@pytest.mark.slow
def test_a_20_mb_setting_is_not_echoed_whole(cli, tmp_path):
    path = tmp_path / "big.toml"
    path.write_text('[rules]\nmatch = "' + "x" * 20_000_000 + '"', encoding="utf-8")
    proc = cli("config", "show", "--config", str(path))
    assert proc.returncode == 2 and len(proc.stderr) < 800, proc.stderr[:200]
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    one_line_error(cli("config", "show", "--config", str(binary)), "not UTF-8")
    one_line_error(cli("config", "show", "--config", "/dev/zero"), "larger than")


@pytest.mark.parametrize("args", first_fast([
    ["config", "show", "--bed", "1" * 400 + "x1x1"],
    ["config", "show", "--bed", "1e9x1x1"],
    ["config", "show", "--stake", "nan"],
    ["config", "show", "--stake", "1e400"],
    ["config", "show", "--tiles", BIG],
    ["config", "show", "--first-pin", BIG],
    ["config", "show", "--pins", BIG],
    ["config", "show", "--tiles", ESC],
    ["config", "show", "--tiles", "x" * 20_000],
    ["solve", "--state", BIG],
    ["solve", "--state", "² 3"],
    ["advise", "--throw", BIG],
    ["advise", "--throw", "٣"],
    ["advise", "--open", BIG, "--throw", "3"],
    ["scorepad", "--out", "pad.pdf", "--players", BIG],
    ["history", "show", BIG],
    ["sim", "--demo", "--speed", "nan"],
    ["sim", "--demo", "--seed", BIG],
    ["history", "show", "1", "--db=--"],  # found by the fuzz: argparse handed the command an empty list
    ["stats", "--csv=--"],
]))
def test_hostile_flags_are_one_line(cli, tmp_path, args):
    one_line_error(cli(*args, cwd=tmp_path))


def test_config_show_never_writes_what_it_cannot_read_back(cli, tmp_path):
    proc = cli("config", "show", "--bed", "300.5x200x180.25")
    assert proc.returncode == 0
    path = tmp_path / "shutbox.toml"
    path.write_text(proc.stdout, encoding="utf-8")
    again = cli("config", "show", "--config", str(path))
    assert again.returncode == 0 and again.stdout == proc.stdout


# -- game files -----------------------------------------------------------------------------------------------

EVENTS = [e.to_dict() for e in (ev.players(["Ann", "Bob"]), ev.throw(3, 4), ev.shut(7))]


def game_text(**over) -> str:
    data = {"format": "shutbox-game", "version": 1, "settings": {}, "events": EVENTS}
    data.update(over)
    return json.dumps(data)


def with_event(index: int, **fields) -> str:
    events = [dict(e) for e in EVENTS]
    events[index].update(fields)
    return game_text(events=events)


GAME_FILES = {
    "version true": (game_text(version=True), "version True is not supported"),
    "version 1.0": (game_text(version=1.0), "version 1.0 is not supported"),
    "event v true": (with_event(0, v=True), "event version must be 1"),
    "deep": ("[" * 100_000 + "]" * 100_000, "nested more than"),
    "digits": (game_text().replace("[3, 4]", f"[{BIG}, 4]"), "digits"),
    "at NaN": (with_event(1, at=math.nan), "not a finite number"),
    "at Infinity": (with_event(1, at=math.inf), "not a finite number"),
    "at 1e300": (with_event(1, at=1e300), "'at' must be a time"),
    "at true": (with_event(1, at=True), "'at' must be a time"),
    "lone surrogate": (game_text(events=[ev.players(["\ud800"]).to_dict()]), "not visible text"),
    "escape in a name": (game_text(events=[ev.players([ESC]).to_dict()]), "\\x1b[31mRED"),
    "NUL in a name": (game_text(events=[ev.players(["A\x00B"]).to_dict()]), "not visible text"),
    "long name": (game_text(events=[ev.players(["x" * 100_000]).to_dict()]), "at most 40 characters"),
    "throw total too big": (game_text(events=[EVENTS[0], {"v": 1, "type": "throw", "total": 10**20}]), "total"),
    "settings not an object": (game_text(settings=[1]), "'settings' must be an object"),
    "escape in settings": (game_text(settings={"tiles": ESC}), "\\x1b[31mRED"),
    "events not a list": (game_text(events={"a": 1}), "'events' must be a list"),
}


@pytest.mark.parametrize("name", list(GAME_FILES))
def test_a_hostile_game_file_is_refused_in_one_line(name):
    text, expected = GAME_FILES[name]
    with pytest.raises(ShutboxError) as err:
        game_from_json(text, "game.json")
    message = str(err.value)
    assert expected in message and "\n" not in message and "\x1b" not in message and len(message) < 600


@pytest.mark.parametrize("name", ["deep", "digits", "lone surrogate", "escape in a name", "version true"])
def test_the_commands_reading_game_files_say_one_line(cli, tmp_path, name):
    path = tmp_path / "game.json"
    path.write_text(GAME_FILES[name][0], encoding="utf-8", errors="surrogatepass")
    one_line_error(cli("scorepad", "--from-game", str(path), "--out", str(tmp_path / "sheet.pdf")))
    assert not (tmp_path / "sheet.pdf").exists()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
                    max_leaves=20))
def test_any_event_value_is_an_illegal_move_or_a_clean_event(value):
    try:
        clean = ev.from_dict(value).to_dict()
    except IllegalMove as exc:
        assert "\n" not in str(exc)
        return
    assert clean["v"] == 1 and type(clean["v"]) is int and ev.from_dict(clean).to_dict() == clean


# -- sim scripts ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("script", "expected"), [
    ("players Ann\nthrow ² 3\n", ":2:"),
    (f"players Ann\nthrow {BIG}\n", ":2:"),
    ("players Ann\nthrow ٣ 4\n", ":2:"),
    (f"players {ESC}\n", "\\x1b[31mRED"),
    (f"{ESC}\n", "\\x1b[31mRED"),
    (f"players Ann\nthrow 3 4\nshut {BIG}\n", ":3:"),
])
@pytest.mark.slow
def test_a_hostile_sim_script_is_one_line(cli, tmp_path, script, expected):
    path = tmp_path / "game.txt"
    path.write_text(script, encoding="utf-8")
    one_line_error(cli("sim", "--script", str(path), "--json"), expected)


def test_typed_play_input_cannot_crash_the_session(tmp_path):
    """A 5000-digit throw, superscripts and escapes typed during play are refused, the game goes on."""
    from shutbox.companion.live.session import LiveSession
    from shutbox.companion.live.terminal import Notes
    from shutbox.companion.store.database import MEMORY, GameStore
    from shutbox.kit.model import Rules

    notes = Notes()
    with GameStore(MEMORY) as store:
        session = LiveSession(Rules(), store, notes)
        session.start(["Ann", "Bob"])
        session.on_box(frozenset())
        for text in [BIG, f"{BIG} {BIG}", "² 3", "٣ 4", ESC, "x" * 1_000_000, "shut " + BIG, "\ud800", "3 " + BIG]:
            session.typed(text)
        session.typed("3 4")
        assert session.game is not None and session.game.pending is not None
        refused = [text for kind, text in notes.items if kind == "refused"]
        assert len(refused) >= 8 and all("\x1b" not in t and len(t) < 600 for t in refused)


# -- bounded numbers: every id, count, time and speed (issue 29, faults 1 and 13) -------------------------------


def _saved_game_db(path):
    from shutbox.companion.store.database import GameStore
    from shutbox.game.gamefile import settings_of
    from shutbox.kit.model import Rules

    with GameStore(path) as store:
        store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
    return path


@pytest.mark.parametrize(("args", "expected"), first_fast([
    (["history", "show", "99999999999999999999999"], "from 1 to 9223372036854775807"),
    (["history", "show", "0"], "from 1 to 9223372036854775807"),
    (["history", "show", "--", "-3"], "from 1 to 9223372036854775807"),
    (["review", "99999999999999999999999"], "from 1 to 9223372036854775807"),
    (["sim", "--demo", "--speed", "1e-300"], "--speed 1e-300: allowed: a number from 0.01 to 1000"),
    (["sim", "--demo", "--speed", "1e300"], "--speed 1e300: allowed: a number from 0.01 to 1000"),
    (["sim", "--demo", "--speed", "inf"], "from 0.01 to 1000"),
    (["sim", "--demo", "--seed", "-1"], "--seed -1: allowed: a whole number from 0 to"),
    (["monitor", "--count", "0"], "--count 0: allowed: a whole number from 1 to"),
    (["monitor", "--test", "--step-timeout", "1e300"], "--step-timeout 1e300: allowed: a number from 0 to 3600"),
], several=True))
def test_an_out_of_range_number_is_one_line_naming_both_bounds(cli, tmp_path, args, expected):
    db = _saved_game_db(tmp_path / "g.sqlite3")
    if args[0] in ("history", "review"):
        args = [*args, "--db", str(db)]
    one_line_error(cli(*args, cwd=tmp_path), expected)


def test_every_number_setting_names_both_its_bounds():
    from shutbox.kit.model import SETTINGS

    for s in SETTINGS:
        if s.choices is None and s.parse is not None and "number" in s.allowed() and "GPIO numbers" not in s.allowed():
            text = s.allowed()
            assert (" from " in text and " to " in text) or ("<=" in text and (">" in text)), (s.flag, text)
            assert "e+" not in text, (s.flag, text)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=40), st.integers(), st.floats(), st.booleans(), st.none()))
def test_the_bounded_parsers_only_ever_refuse_in_one_line(value):
    from shutbox.base.bounded import real_within, whole_within

    for parse in (lambda v: whole_within(v, "--n", 1, 100), lambda v: real_within(v, "--x", 0.01, 1000)):
        try:
            number = parse(value)
        except ShutboxError as exc:
            assert "\n" not in str(exc) and "from" in str(exc) and str(exc).isprintable()
        else:
            assert math.isfinite(number) and 0.01 <= number <= 1000


# -- one text sanitizer: names people read, CSV cells (issue 29, faults 9 and 15) ---------------------------------


@pytest.mark.parametrize("name", first_fast(["Ann\u2028x", "Ann\u2029", "A\u00a0nn", "\u3164", "Ann\u3164", "\u2800",
                                             "A\u200bnn", "\u0301", "Ann\x1b[2J", "Ann\u202e", "\u115f\u1160"]))
def test_scorepad_names_refuse_invisible_and_control_characters(cli, tmp_path, name):
    proc = cli("scorepad", "--names", f"{name},Bob", "--out", "pad.pdf", cwd=tmp_path)
    one_line_error(proc, "--names")
    assert proc.stderr.rstrip("\n").isprintable()
    assert not (tmp_path / "pad.pdf").exists()


@pytest.mark.parametrize("name", first_fast(["José", "李小龙", "Zoë", "Ann Lee", "O'Brien", "Ann-Marie"]))
def test_scorepad_names_take_any_visible_text(cli, tmp_path, name):
    assert cli("scorepad", "--names", f"{name},Bob", "--out", "pad.pdf", cwd=tmp_path).returncode == 0


def test_a_recorded_player_name_is_visible_text():
    from shutbox.game.replay import Game
    from shutbox.kit.model import Rules

    for bad in ("An\u2028n", "\u3164", "\u2800"):
        with pytest.raises(IllegalMove, match="not visible text"):
            Game(Rules()).apply(ev.players([bad, "Bob"]))


@pytest.mark.parametrize("name", first_fast(['=HYPERLINK("http://evil.example")', "+1+1", "-2+3", "@SUM(A1)"]))
def test_stats_csv_writes_a_formula_looking_name_as_text(cli, tmp_path, name):
    import csv

    from shutbox.base.text import csv_cell

    assert csv_cell(name).startswith("'") and csv_cell("Ann") == "Ann" and csv_cell("\tx") == "\\x09x"
    db = tmp_path / "g.sqlite3"
    played = cli("sim", "--demo", "--speed", "1000", "--seed", "3", "--json", f"--players={name},Bob",
                 "--db", str(db), cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    proc = cli("stats", "--db", str(db), "--csv", "t.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.reader((tmp_path / "t.csv").open(encoding="utf-8")))
    names = sorted(row[1] for row in rows[1:])
    assert names == sorted(["'" + name, "Bob"]), names


@pytest.mark.slow  # its message measures the 12-tile long game (seconds)
def test_a_long_game_pad_beyond_its_measured_sets_names_the_tiles_asked_for(cli, tmp_path):
    """Issue 29, fault 17: 54 tiles with 9 dice was refused as "--dice 9 with --tiles 12", a pair nobody asked for."""
    proc = cli("scorepad", "--match", "long-game", "--tiles", "54", "--dice", "9", "--out", "pad.pdf", cwd=tmp_path)
    one_line_error(proc, "--tiles 54: long-game pads are measured up to 12 tiles", "from 9 to 12")
    assert "--tiles 12" not in proc.stderr and "--dice 9" not in proc.stderr
    assert not (tmp_path / "pad.pdf").exists()
