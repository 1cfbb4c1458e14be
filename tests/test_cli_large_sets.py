"""Larger sets at the command line: the rules take them, the box's CAD, firmware and kit refuse them in one line."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("args", "message"), [
    (["cad", "--tiles", "18"], "--tiles 18: the CAD is built for a box of 9, 10 or 12 tiles only (allowed: 9, 10, "
                               "12); play larger sets without the box (shutbox play --port none)"),
    (["firmware", "build", "--tiles", "11"], "--tiles 11: the firmware is built for a box of 9, 10 or 12 tiles only"),
    (["kit", "--tiles", "36", "--dice", "6"], "--tiles 36: the kit (box, firmware and dice) is built for a box of "
                                              "9, 10 or 12 tiles only"),
    (["kit", "--tiles", "12", "--dice", "3"], "--dice 3: the kit (box, firmware and dice) prints the box's 2 dice "
                                              "only (allowed: 2)"),
])
def test_the_box_refuses_sets_it_cannot_build_or_read(cli, tmp_path, args: list[str], message: str) -> None:
    out = tmp_path / "out"
    proc = cli(*args, "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"shutbox: error: {message}" + proc.stderr.split(message, 1)[1]
    assert proc.stderr.count("\n") == 1 and not out.exists()


def test_config_show_resolves_the_dice_for_a_larger_set(cli, tmp_path) -> None:
    shown = cli("config", "show", "--tiles", "40", cwd=tmp_path).stdout
    assert "\ntiles = 40 " in shown and "\ndice = 7 " in shown  # 7 dice reach tile 40
    again = tmp_path / "shutbox.toml"
    again.write_text(shown, encoding="utf-8")
    assert cli("config", "show", cwd=tmp_path).stdout == shown
