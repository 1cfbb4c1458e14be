"""The ``shutbox`` command: help, version, config show, kit, exit codes and one-line errors."""

from __future__ import annotations

import tomllib

import pytest

from shutbox.base.version import __version__
from tests.conftest import first_fast


def test_help_and_version(cli):
    proc = cli("--help")
    assert proc.returncode == 0
    assert "config" in proc.stdout and "kit" in proc.stdout
    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"shutbox {__version__}"


def test_no_command_is_usage_error(cli):
    assert cli().returncode == 2


def test_config_show_prints_resolved_toml(cli, tmp_path):
    proc = cli("config", "show", "--tiles", "12", "--match", "tournament", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = tomllib.loads(proc.stdout)
    assert data["rules"]["tiles"] == 12
    assert data["rules"]["limit"] == 100
    (tmp_path / "shutbox.toml").write_text(proc.stdout)
    again = cli("config", "show", cwd=tmp_path)
    assert again.stdout == proc.stdout


def test_one_die_forced_flag_forms(cli, tmp_path):
    on = tomllib.loads(cli("config", "show", "--one-die-forced", cwd=tmp_path).stdout)
    off = tomllib.loads(cli("config", "show", "--one-die-forced", "off", cwd=tmp_path).stdout)
    assert on["rules"]["one_die_forced"] is True
    assert off["rules"]["one_die_forced"] is False


@pytest.mark.parametrize(
    ("args", "needle"),
    first_fast([
        (["--tiles", "55"], "--tiles 55: invalid value; allowed: a whole number from 9 to 54"),
        (["--one-die", "sometimes"], "--one-die sometimes: invalid value; allowed: high-shut, shut-789, sum-6, sum-5, "
                                     "never"),
        (["--limit", "-5"], "--limit -5: invalid value; allowed: a whole number from 1 to 1000000000000"),
        (["--max-tiles-per-throw", "3"], "--max-tiles-per-throw 3"),
        (["--scoring", "x"], "allowed: sum, digits"),
        (["--match", "x"], "allowed: round, drop-out, tournament, long-game"),
        (["--bed", "huge"], "--bed huge"),
        (["--config", "nope.toml"], "no such file"),
        (["--frobnicate"], "unrecognized arguments"),
    ], several=True),
)
def test_bad_flags_are_one_line_and_exit_2(cli, tmp_path, args, needle):
    proc = cli("config", "show", *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert needle in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("args", "line"), [
    (["cad", "--bogus", "3"], "shutbox cad: error: unrecognized arguments: --bogus"),
    (["cad", "chekc"], "shutbox cad: error: argument [check]: invalid choice: 'chekc' (choose from 'check')"),
    (["bogus", "--tiles", "3"], "shutbox: error: unknown command 'bogus'; see `shutbox --help` (commands: config, "),
])
def test_an_unknown_flag_is_named_rather_than_the_value_after_it(cli, tmp_path, args, line):
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(line)


def test_bad_toml_is_one_line_and_exit_2(cli, tmp_path):
    (tmp_path / "shutbox.toml").write_text("[rules]\ntiels = 9\n")
    proc = cli("config", "show", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "tiels" in proc.stderr and "rules.tiles" in proc.stderr
    (tmp_path / "shutbox.toml").write_text("tiles = = 9\n")
    proc = cli("config", "show", cwd=tmp_path)
    assert proc.returncode == 2 and "not valid TOML" in proc.stderr


def test_bad_input_leaves_no_output(cli, tmp_path):
    out = tmp_path / "out"
    proc = cli("kit", "--tiles", "11", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


@pytest.mark.parametrize(("command", "foreign"), first_fast([
    (["monitor"], "--stake"), (["firmware", "deploy"], "--dice-size"), (["sim", "--demo"], "--box-length"),
    (["solve"], "--match"), (["play"], "--bed"), (["cad"], "--pull"), (["history"], "--tiles"),
], several=True))
def test_each_command_takes_only_the_settings_it_declares(cli, command, foreign):
    proc = cli(*command, f"{foreign}=1")
    assert proc.returncode == 2
    assert f"unrecognized arguments: {foreign}=1" in proc.stderr
    assert foreign not in cli(*command, "--help").stdout


@pytest.mark.parametrize("command", [["play"], ["monitor"], ["firmware", "deploy"]])
def test_port_defaults_to_auto_everywhere(command):
    from shutbox.cli.parser import build_parser

    args = build_parser(command[0]).parse_args([*command])
    assert args.port == "auto"


def test_cad_usage_shows_check_as_optional(cli):
    usage = cli("cad", "--help").stdout.split("\n\n")[0]
    assert "[check] ..." in usage
