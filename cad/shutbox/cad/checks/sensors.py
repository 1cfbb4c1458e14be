"""``cad check``'s proofs for the sensors as drawn: each reed switch seated in its shaft at the stated gap from the
shut tile's magnet, the magnet's pull (it closes its reed, leaves the neighbours open), and the bay's boards and
wire ways clear of the box and cover."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cadquery as cq

from shutbox.cad.checks.boardfit import check_board
from shutbox.cad.checks.findings import Finding
from shutbox.cad.checks.measure import clash, fingerprint, is_open, memo, slim
from shutbox.cad.geometry.layout import (
    REED_BEND,
    REED_LEAD,
    REED_LEAD_LENGTH,
    Layout,
)
from shutbox.cad.geometry.sensors import (
    BOARD_CLEARANCE,
    CLASH_MM3,
    GAP_TOLERANCE,
    SEAT_NUDGE,
    along_reed,
    controller_board,
    magnet,
    reach,
    reed,
    shift_board,
    switch_fields,
    wire_ways,
)


def check_pull(lay: Layout) -> Iterator[Finding]:
    """A shut tile's magnet closes its reed switch (field along the reed at least the operate field); the same
    magnet with the tile open, and a neighbouring lane's magnet shut, leave it open (below the release field)."""
    kit = lay.kit
    s = kit.sensors
    operate, release = switch_fields(kit)
    shut = abs(along_reed(lay, 1, 1, True))
    magnet_name = f"{s.magnet_diameter_mm:g} x {s.magnet_height_mm:g} mm {s.magnet_grade}"
    yield Finding("magnet", "shut tile", shut >= operate,
                  f"{magnet_name} {s.reed_gap_mm:g} mm over the glass: {shut * 1e3:.1f} mT along the reed, it closes "
                  f"at {operate * 1e3:.1f} mT (rated {s.reed_operate_mm:g} mm; this magnet reaches "
                  f"{reach(kit, operate):.1f} mm)")
    stray = [("open tile", abs(along_reed(lay, 1, 1, False)))]
    if lay.tiles > 1:
        stray.append(("shut neighbour", abs(along_reed(lay, 1, 2, True))))
    for subject, flux in stray:
        yield Finding("magnet", subject, flux < release,
                      f"{flux * 1e3:.2f} mT along the reed of lane 1, it opens below {release * 1e3:.2f} mT (rated "
                      f"{s.reed_release_mm:g} mm; this magnet {reach(kit, release):.1f} mm)")


def seat_reed(lay: Layout, walls: list[Any], tiles: dict[int, Any], number: int) -> dict[str, float]:
    """Lane ``number``'s reed switch and magnet, measured in the assembled box: what the reed, seated and pushed
    ``SEAT_NUDGE`` further, has in common with the box; the same for the magnet in its (shut) tile; and the
    distance from the glass to the magnet."""
    seated, pushed = reed(lay, number), reed(lay, number, SEAT_NUDGE)
    out = {"reed": clash(walls, seated.body), "reed_pushed": clash(walls, pushed.body)}
    tile = tiles.get(number)
    if tile is not None:
        shut = tile.translate(cq.Vector(0, lay.tile_y(True) - lay.tile_y(is_open(lay, tile) is False), 0))
        s, x, y = lay.kit.sensors, lay.lane_x(number), lay.switch_y
        r, z = s.magnet_diameter_mm / 2 + 1.0, lay.magnet_face
        pocket = slim([shut], [((x - r, y - r, z - 1.0), (x + r, y + r, z + s.magnet_height_mm + SEAT_NUDGE + 1.0))])
        out["magnet"] = clash(pocket, magnet(lay, number))
        out["magnet_pushed"] = clash(pocket, magnet(lay, number, lift=SEAT_NUDGE))
    out["gap"] = seated.glass.distance(magnet(lay, number))
    return out


def check_reeds(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """Each lane's reed switch, folded as the guide says and pushed up its shaft, seats without touching the box
    and stops there (pushed further it runs into the shaft's ceiling), its glass at the gap the guide states from
    the magnet of the shut tile (which fits its pocket the same way)."""

    pieces = [shape for _, kind, shape in solids if kind == "box"]
    tiles = {int(name.split("-")[1]): shape for name, kind, shape in solids if kind == "tile"}
    prints = [fingerprint(w) for w in pieces]
    want = lay.kit.sensors.reed_gap_mm
    walls: list[Any] = []
    for n in range(1, lay.tiles + 1):
        tile_print = fingerprint(tiles[n]) if n in tiles else None

        def measure(n: int = n) -> dict[str, float]:
            if not walls:  # the pieces along the row of shafts, once for every lane
                reach = lay.shaft_radius + 1.5
                z0 = lay.reed_top - lay.kit.sensors.reed_length_mm - REED_LEAD_LENGTH - 1.0
                z1 = lay.shaft_ceiling + SEAT_NUDGE + 1.0
                walls.extend(slim(pieces, [((lay.lane_x(k) - reach, lay.switch_y - reach, z0),
                                             (lay.lane_x(k) + reach, lay.switch_y + reach, z1))
                                            for k in range(1, lay.tiles + 1)]))
            return seat_reed(lay, walls, tiles, n)

        got = memo("reed-seat", [prints, tile_print, n, _reed_identity(lay)], measure)
        clear = got["reed"] <= CLASH_MM3 and got.get("magnet", 0.0) <= CLASH_MM3
        stops = got["reed_pushed"] > CLASH_MM3 and got.get("magnet_pushed", 1.0) > CLASH_MM3
        near = abs(got["gap"] - want) <= GAP_TOLERANCE
        yield Finding("reed", f"lane {n}", clear and stops and near,
                      f"seated: {got['reed']:.3f} mm3 in the box (magnet {got.get('magnet', float('nan')):.3f} in its "
                      f"tile); pushed {SEAT_NUDGE:g} mm on {got['reed_pushed']:.2f} mm3 (it stops); glass "
                      f"{got['gap']:.2f} mm from the shut tile's magnet, guide {want:g} +- {GAP_TOLERANCE:g}")


def _reed_identity(lay: Layout) -> list[Any]:
    s = lay.kit.sensors
    return [s.reed_length_mm, s.reed_diameter_mm, s.reed_gap_mm, s.magnet_diameter_mm, s.magnet_height_mm,
            s.magnet_slack_mm, REED_BEND, REED_LEAD, REED_LEAD_LENGTH]


def check_bay(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """The controller board and (when the kit needs it) the 74HC165 board, on the fitted cover, touch neither the
    box nor the cover, keep ``BOARD_CLEARANCE`` from the box, and rest on what holds them (dropped
    ``SEAT_NUDGE`` they run into it); the wires have a clear way from the switches' channel to the 74HC165 board
    and on to the controller."""

    pieces = [shape for _, kind, shape in solids if kind == "box"]
    covers = [shape for _, kind, shape in solids if kind == "cover"]
    boards = [("controller board", controller_board)] + ([("74HC165 board", shift_board)] if lay.shift_board else [])
    prints = [[fingerprint(b) for b in pieces], [fingerprint(c) for c in covers]]
    boxes: list[Any] = []

    def near_bay() -> list[Any]:
        if not boxes:  # the pieces round the bay and the wires' way into it, once
            ox, oy = lay.cover_origin
            w, h = lay.cover_size
            boxes.extend(slim(pieces, [((ox - 3.0, lay.switch_y - 3.0, -1.0),
                                         (ox + w + 3.0, oy + h + 3.0, lay.cavity_height + lay.cavity_width + 3.0))]))
        return boxes

    for label, make in boards:
        def measure(make: Any = make) -> list[float]:
            body, dropped = make(lay), make(lay, -SEAT_NUDGE)
            gap = min((n.distance(body) for n in near_bay()), default=float("inf"))
            return [clash(near_bay(), body), clash(covers, body), clash(covers, dropped), gap]

        in_box, in_cover, rests, gap = memo("bay-board", [prints, label, _bay_identity(lay)], measure)
        ok = in_box <= CLASH_MM3 and in_cover <= CLASH_MM3 and rests > CLASH_MM3 and gap >= BOARD_CLEARANCE - 1e-6
        yield Finding("bay", label, ok, f"{in_box:.3f} mm3 in the box, {in_cover:.3f} in the cover, {gap:.2f} mm from "
                      f"the box (at least {BOARD_CLEARANCE:g}); dropped {SEAT_NUDGE:g} mm: {rests:.2f} mm3 (it rests)")
    ways = wire_ways(lay)
    in_ways = memo("bay-wires", [prints, _bay_identity(lay)],
                   lambda: [clash(near_bay() + covers, w) for _, w in ways])
    yield Finding("bay", "wire ways", all(c <= CLASH_MM3 for c in in_ways),
                  ", ".join(f"{label} {c:.3f} mm3 of plastic" for (label, _), c in zip(ways, in_ways, strict=True)))


def _bay_identity(lay: Layout) -> list[Any]:
    s = lay.kit.sensors
    return [lay.cavity, lay.cover_origin, lay.board_origin, lay.shift_origin, lay.shift_board, s.board_length_mm,
            s.board_width_mm, s.board_height_mm, s.shift_board_length_mm, s.shift_board_width_mm,
            s.shift_board_height_mm]


def check_sensors(solids: list[tuple[str, str, Any]], lay: Layout) -> Iterator[Finding]:
    """The sensor findings on an assembly: reeds seated and the magnet's pull, or the microswitches seated and worked
    by their tiles; the bay (nothing without sensors)."""
    if not lay.sensors:
        return
    if lay.kit.sensors.lever:
        from shutbox.cad.checks.switches import check_switches

        yield from check_switches(solids, lay)
    else:
        yield from check_reeds(solids, lay)
        yield from check_pull(lay)
    yield from check_bay(solids, lay)
    yield from check_board(solids, lay)


def check_seated(folder: Path) -> list[Finding]:
    """``shutbox cad check``'s sensor findings on a built folder (its assembly.step as read for the other checks).
    Not part of the build's own checks: the booleans take seconds, and the build's time is kept."""
    from shutbox.cad.checks.check import check_context, read_assembly

    ctx = check_context(Path(folder))
    if not ctx["lay"].sensors:
        return []
    if "solids" not in ctx:
        ctx["solids"] = read_assembly(Path(folder), ctx["manifest"])
    return list(check_sensors(ctx["solids"], ctx["lay"]))
