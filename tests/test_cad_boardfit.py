"""The box takes the switch-row circuit board (shutbox.cad.geometry.boardfit, shutbox.cad.checks.boardfit): its slots
hold the board's strip and neck with play, its screws miss the cuts of a split box, and in the assembled box the
board, the Pico on it and the chips touch neither box nor cover, rest on the cover and are held up by the screws."""

from __future__ import annotations

import pytest

from shutbox.cad.board.plan import plan_board
from shutbox.cad.geometry.boardfit import BOARD_PLAY, board_fit
from shutbox.cad.geometry.layout import layout
from shutbox.cad.geometry.split import plan_split
from shutbox.kit.model import build_kit
from tests.conftest import skip_module_without

skip_module_without("cadquery")


@pytest.mark.parametrize("settings", [{}, {"rules.tiles": 12, "firmware.tile_input": "74hc165"},
                                      {"sensors.kind": "microswitch", "printer.bed": "mini"}])
def test_the_board_lies_where_its_plan_has_it_and_its_screws_miss_the_cuts(settings):
    kit = build_kit(settings)
    lay = layout(kit)
    fit = board_fit(lay)
    assert fit is not None
    board = plan_board(kit)
    assert (fit.strip, fit.neck, fit.carrier) == (board.strip, board.neck, board.carrier)
    assert fit.plane == board.plane
    x0, y0, x1, y1 = board.outline.bounds
    assert fit.strip[0] == x0 and fit.strip[1] <= x1 and fit.carrier[3] == y1
    cuts = plan_split(lay, kit.printer.bed_mm).xs
    assert fit.screws and all(abs(x - c) > lay.pitch / 2 for x, _ in fit.screws for c in cuts)
    holes = {(round(p.x, 3), round(p.y, 3)) for p in board.footprints if p.ref.startswith("H")}
    assert {(round(x, 3), round(y, 3)) for x, y in fit.screws} <= holes
    assert BOARD_PLAY >= 0.3


def test_no_board_without_sensors_or_with_another_controller():
    assert board_fit(layout(build_kit({"sensors.kind": "none"}))) is None
    assert board_fit(layout(build_kit({"sensors.board_length_mm": 60}))) is None


@pytest.mark.slow
@pytest.mark.parametrize("settings", [{}, {"firmware.tile_input": "74hc165"}])
def test_the_assembled_box_takes_the_board(settings):
    from shutbox.cad.checks.boardfit import check_board
    from tests.test_cad_sensors import assembled_solids

    solids, lay = assembled_solids(settings)
    findings = list(check_board(solids, lay))
    subjects = [f.subject for f in findings]
    assert subjects[:2] == ["circuit board", "Pico on the board"] and subjects[-1] == "held"
    assert all(f.ok for f in findings), [f.line() for f in findings if not f.ok]
    # Fed a board the box was not built for (10 tiles' lanes and screws in a box of 9): it runs into the box.
    other = layout(build_kit({**settings, "rules.tiles": 10}))
    wrong = {f.subject: f for f in check_board(solids, other)}
    assert not wrong["circuit board"].ok, wrong["circuit board"].line()
