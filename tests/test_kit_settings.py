"""``shutbox kit`` writes the settings and a manifest of what it produced."""

from __future__ import annotations

import tomllib

from shutbox.cli.commands.kit import GENERATORS, write_settings
from shutbox.kit.model import build_kit


def test_settings_generator_writes_resolved_toml(tmp_path):
    kit = build_kit({"rules.tiles": 10})
    files = write_settings(kit, tmp_path)
    assert files == ["shutbox.toml"]
    assert tomllib.loads((tmp_path / "shutbox.toml").read_text())["rules"]["tiles"] == 10


def test_generators_are_importable_targets():
    import importlib

    for name, target in GENERATORS:
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), name


def test_the_last_lines_name_the_build_guide_and_the_demo(monkeypatch, tmp_path, capsys):
    import argparse

    from shutbox.cli.commands import kit as kit_command

    guide = "cad/build.md"
    monkeypatch.setattr(kit_command, "build_kit_folder", lambda kit, out: {"files": [guide, "manifest.json"]})
    assert kit_command.run(argparse.Namespace(out=tmp_path / "out"), build_kit({})) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert str(tmp_path / "out" / guide) in last and "shutbox sim --demo" in last


def test_the_demo_is_named_as_it_can_be_typed(monkeypatch, tmp_path):
    import os

    from shutbox.cli.commands.kit import invoked_as

    tool = tmp_path / ".venv" / "bin" / "shutbox"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", [".venv/bin/shutbox", "kit"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert invoked_as() == os.path.join(".venv", "bin", "shutbox")  # `make kit`: not on the PATH
    monkeypatch.setenv("PATH", str(tool.parent))
    assert invoked_as() == "shutbox"  # an activated venv
    monkeypatch.setattr("sys.argv", ["/x/shutbox/__main__.py"])
    assert invoked_as() == "shutbox"
