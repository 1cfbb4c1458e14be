"""``cad check``'s proof that the box takes the switch-row circuit board (:mod:`shutbox.cad.board`): the board as
planned (its outline, 1.6 mm thick, on the cover's standoffs), the Pico soldered flat on it and the 74HC165 chips
beside it, placed in the assembly, touch neither the box nor the cover; dropped ``SEAT_NUDGE`` the carrier runs into
the cover (it rests on it), and pushed up as much the strip runs into its screw blocks (its screws pull it there)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cadquery as cq

from shutbox.base.errors import ShutboxError
from shutbox.cad.board.plan import Board, plan_board
from shutbox.cad.checks.findings import Finding
from shutbox.cad.checks.measure import clash, fingerprint, memo, slim
from shutbox.cad.geometry.boardfit import THICKNESS, board_fit
from shutbox.cad.geometry.layout import Layout
from shutbox.cad.geometry.sensors import CLASH_MM3, DIP16, SEAT_NUDGE, controller_board
from shutbox.cad.geometry.shapes import shape_of

DIP_HEIGHT = 4.0  # a DIP-16's body and its seat over the board


def board_bodies(lay: Layout, board: Board, lift: float = 0.0) -> list[tuple[str, cq.Shape]]:
    """The board, the Pico on it and the chips (box frame), ``lift`` higher than planned."""
    z = board.plane + lift
    pcb = shape_of(cq.Workplane("XY").workplane(offset=z).polyline(_points(board.outline.exterior.coords))
                   .close().extrude(THICKNESS))
    holes = [shape_of(cq.Workplane("XY").workplane(offset=z - 1.0).polyline(_points(ring.coords)).close()
                      .extrude(THICKNESS + 2.0)) for ring in board.outline.interiors]
    holes += [cq.Solid.makeCylinder(pad.drill / 2, THICKNESS + 2.0,
                                    cq.Vector(part.x + pad.dx, part.y + pad.dy, z - 1.0))
              for part in board.footprints for pad in part.pads if pad.kind == "np_thru_hole"]
    bodies: list[tuple[str, cq.Shape]] = [("circuit board", pcb.cut(*holes).clean()),
                                          ("Pico on the board", controller_board(lay, THICKNESS + lift))]
    length, width = DIP16
    for part in board.footprints:
        if part.value == "74HC165":
            corner = cq.Vector(part.x - length / 2, part.y - width / 2, z + THICKNESS)
            bodies.append((f"74HC165 {part.ref}", cq.Solid.makeBox(length, width, DIP_HEIGHT, corner)))
    return bodies


def _points(coords: Any) -> list[tuple[float, float]]:
    """A closed ring's corners (the last, the first again, left out)."""
    return [(float(x), float(y)) for x, y in list(coords)[:-1]]


def check_board(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """The board findings (none for a kit without a board)."""
    fit = board_fit(lay)
    if fit is None:
        return
    try:
        board = plan_board(lay.kit)
    except ShutboxError as exc:  # settings the pin plan refuses: no board to place
        yield Finding("board", "circuit board", False, f"no board for these settings: {exc}")
        return
    pieces = [shape for _, kind, shape in solids if kind == "box"]
    covers = [shape for _, kind, shape in solids if kind == "cover"]
    prints = [[fingerprint(b) for b in pieces], [fingerprint(c) for c in covers]]
    x0, y0, x1, y1 = board.outline.bounds

    def measure() -> dict[str, list[float]]:
        near = slim(pieces, [((x0 - 3.0, y0 - 3.0, -1.0), (x1 + 3.0, y1 + 3.0, fit.top + 20.0))])
        placed = board_bodies(lay, board)
        dropped = board_bodies(lay, board, -SEAT_NUDGE)[0][1]
        lifted = board_bodies(lay, board, SEAT_NUDGE)[0][1]
        out = {label: [clash(near, body), clash(covers, body)] for label, body in placed}
        out["moved"] = [clash(covers, dropped), clash(near, lifted)]
        return out

    holes = [[part.x + pad.dx, part.y + pad.dy, pad.drill] for part in board.footprints for pad in part.pads
             if pad.kind == "np_thru_hole"]
    chips = [[part.x, part.y] for part in board.footprints if part.value == "74HC165"]
    identity = [prints, [list(p) for p in board.outline.exterior.coords], holes, chips, fit.plane, list(fit.screws),
                THICKNESS, DIP_HEIGHT]
    got = memo("board-fit", identity, measure)
    rests, held = got.pop("moved")
    for label, (in_box, in_cover) in got.items():
        yield Finding("board", label, in_box <= CLASH_MM3 and in_cover <= CLASH_MM3,
                      f"{in_box:.3f} mm3 in the box, {in_cover:.3f} in the cover")
    yield Finding("board", "held", rests > CLASH_MM3 and (held > CLASH_MM3 or not fit.screws),
                  f"dropped {SEAT_NUDGE:g} mm: {rests:.2f} mm3 in the cover (it rests on its standoffs); pushed up "
                  f"{SEAT_NUDGE:g} mm: {held:.2f} mm3 in the box (its {len(fit.screws)} screws pull the strip up to "
                  "their blocks)")
