"""``cad check``'s proof for the lever microswitches as drawn: each seated in its pocket, pressed by its shut tile
within the switch's travel and released by the open one, its lever clear of box and tile."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shutbox.cad.checks.findings import Finding
from shutbox.cad.checks.measure import clash, fingerprint, is_open, memo, slim
from shutbox.cad.geometry.layout import SQRT2, Layout
from shutbox.cad.geometry.microswitch import (
    CLASH_MM3,
    DIFFERENTIAL,
    FREE,
    HEIGHT,
    HINGE_INSET,
    HOLE_UP,
    LENGTH,
    LEVER_LENGTH,
    LEVER_THICKNESS,
    LEVER_WIDTH,
    OPERATE,
    OVERTRAVEL,
    PRESS,
    PRESS_TOLERANCE,
    RELEASE_MARGIN,
    SEAT_NUDGE,
    TAB_AT,
    TAB_LENGTH,
    TIP_AT,
    TOP_OVER_HOLES,
    WIDTH,
    body_top,
    body_y,
    gap_bottom,
    switch,
)


def held_tip(lay: Layout, number: int, tile: Any, lift: float = 0.0) -> float:
    """How high over the holes ``tile`` (placed as it is) lets lane ``number``'s lever tip rise (the switch seated
    ``lift`` higher): the highest tip, up to FP, at which the lever clears the tile (to 0.005 mm)."""

    def clear(tip: float) -> bool:
        return clash([tile], switch(lay, number, tip, lift).lever) <= CLASH_MM3

    lo, hi = TOP_OVER_HOLES + LEVER_THICKNESS, FREE
    if clear(hi):
        return hi
    while hi - lo > 0.005:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if clear(mid) else (lo, mid)
    return lo


def measure(lay: Layout, walls: list[Any], tile: Any | None, number: int, lift: float = 0.0) -> dict[str, float]:
    """Lane ``number``'s switch in the assembled box: the body's collision with the box seated and dropped
    ``SEAT_NUDGE``; where the shut tile holds the lever's tip and where the open tile lets it rise (over the
    holes); the lever in either state against box and tile."""
    import cadquery as cq


    seated, pushed = switch(lay, number, lift=lift), switch(lay, number, lift=lift - SEAT_NUDGE)
    out = {"body": clash(walls, seated.body), "pushed": clash(walls, pushed.body)}
    if tile is None:
        return out

    open_now = is_open(lay, tile)
    shut = tile.translate(cq.Vector(0, lay.tile_y(True) - lay.tile_y(not open_now), 0))
    opened = tile.translate(cq.Vector(0, lay.tile_y(False) - lay.tile_y(not open_now), 0))
    pressed, released = held_tip(lay, number, shut, lift), held_tip(lay, number, opened, lift)
    out["pressed"], out["released"] = pressed, released
    out["lever_shut"] = clash(walls, switch(lay, number, pressed, lift).lever)
    out["lever_open"] = clash(walls, switch(lay, number, released, lift).lever)
    return out


def verdict(lay: Layout, got: dict[str, float]) -> tuple[bool, str]:
    """Whether a lane's measured switch works, and the figures: seated clear and resting on its ledges; pressed past
    OP with the tile lifted by the lever to its flanks, within OT with the tile down on the floor, within
    ``PRESS_TOLERANCE`` of the stated press; released (above the highest release point) with the tile open; the
    lever clear of box and tile either way."""
    c = lay.clearance
    seated = got["body"] <= CLASH_MM3 and got["pushed"] > CLASH_MM3
    text = (f"seated: {got['body']:.3f} mm3 in the box; dropped {SEAT_NUDGE:g} mm: {got['pushed']:.2f} mm3 (it "
            "rests on its ledges)")
    if "pressed" not in got:
        return seated, text
    pressed, released = got["pressed"], got["released"]
    lifted, down = pressed + c * SQRT2, pressed - c
    presses = lifted <= OPERATE and down >= OPERATE - OVERTRAVEL and abs(pressed - PRESS) <= PRESS_TOLERANCE
    frees = released >= OPERATE + DIFFERENTIAL + RELEASE_MARGIN
    clear = got["lever_shut"] <= CLASH_MM3 and got["lever_open"] <= CLASH_MM3
    text += (f"; shut tile holds the lever's tip {pressed:.2f} mm over the holes (guide {PRESS:g} +- "
             f"{PRESS_TOLERANCE:g}; {down:.2f} on the floor to {lifted:.2f} lifted, operates at {OPERATE:g}, "
             f"overtravel to {OPERATE - OVERTRAVEL:g}); open tile lets it rise to {released:.2f} (releases by "
             f"{OPERATE + DIFFERENTIAL:g}); lever {got['lever_shut']:.3f} / {got['lever_open']:.3f} mm3 in the box")
    return seated and presses and frees and clear, text


def check_switches(solids: list[tuple[str, str, Any]], lay: Layout, lift: float = 0.0) -> Iterator[Finding]:
    """Each lane's microswitch seated in its pocket of the assembled box, worked by its tile (:func:`verdict`);
    ``lift``: as if each sat that much higher than drawn (what the tests feed it)."""

    pieces = [shape for _, kind, shape in solids if kind == "box"]
    tiles = {int(name.split("-")[1]): shape for name, kind, shape in solids if kind == "tile"}
    prints = [fingerprint(w) for w in pieces]
    walls: list[Any] = []
    for n in range(1, lay.tiles + 1):
        tile_print = fingerprint(tiles[n]) if n in tiles else None

        def measure_lane(n: int = n) -> dict[str, float]:
            if not walls:  # the pieces round the row of pockets, once for every lane
                y0, y1 = body_y(lay)
                z0 = gap_bottom(lay) - TAB_LENGTH - 1.0
                reach = WIDTH / 2 + 2.0
                walls.extend(slim(pieces, [((lay.lane_x(k) - reach, y0 - 2.0, z0),
                                             (lay.lane_x(k) + reach, y1 + 2.0, lay.height + 1.0))
                                            for k in range(1, lay.tiles + 1)]))
            return measure(lay, walls, tiles.get(n), n, lift)

        got = memo("microswitch-seat", [prints, tile_print, n, lift, _identity(lay)], measure_lane)
        ok, text = verdict(lay, got)
        yield Finding("microswitch", f"lane {n}", ok, text)


def _identity(lay: Layout) -> list[Any]:
    return [LENGTH, WIDTH, HEIGHT, HOLE_UP, TAB_AT, TAB_LENGTH, LEVER_LENGTH, LEVER_WIDTH, LEVER_THICKNESS,
            HINGE_INSET, PRESS, TIP_AT, OPERATE, FREE, OVERTRAVEL, DIFFERENTIAL, body_top(lay), body_y(lay),
            lay.clearance]
