"""``shutbox kit`` writes the settings and a manifest of what it produced."""

from __future__ import annotations

import tomllib

from shutbox.commands.kit import GENERATORS, write_settings
from shutbox.model import build_kit


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

    from shutbox.commands import kit as kit_command

    guide = "cad/build.md"
    monkeypatch.setattr(kit_command, "build_kit_folder", lambda kit, out: {"files": [guide, "manifest.json"]})
    assert kit_command.run(argparse.Namespace(out=tmp_path / "out"), build_kit({})) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert str(tmp_path / "out" / guide) in last and "shutbox sim --demo" in last
