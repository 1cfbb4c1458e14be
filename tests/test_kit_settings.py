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
