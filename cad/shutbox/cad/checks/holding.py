"""``cad check``'s proofs that the box holds what it must: captive tiles, a detent that clicks and screw
holes with plastic round them. Each is measured with OCCT booleans on the assembled solids.

- captive: every tile moved 5 mm past either end of its travel, and shifted sideways by the full
  clearance either way, overlaps the box (pieces and gates) by at least ``CAPTIVE_MM3``;
- detent: a tile leaning away from its bump, moved off its notch onto the plain lane wall, overlaps the
  wall by the engagement (the arm must give way that far): at least ``DETENT_MARGIN``;
- button: the end-turn button's hole is clear, with a ring of panel round it and room behind for its nut;
- fasteners: a ring ``WALL_MIN`` wide round every pilot hole is solid plastic over the hole's whole depth,
  every countersink has that ring inside its part, and each pilot hole keeps ``USB_CLEAR`` from the USB
  opening.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shutbox.cad.checks.findings import Finding
from shutbox.cad.checks.measure import bounds, common_solid, fingerprint, memo, volume_in

CAPTIVE_MM3 = 20.0
OVERTRAVEL = 5.0
FULL = 0.995  # share of a ring's volume that must be plastic (facets of the mesh-free BREP: exact, but tolerant)


def _box_like(solids: list[tuple[str, str, Any]]) -> list[Any]:
    return [shape for _, kind, shape in solids if kind in ("box", "gate")]


def _near(shapes: list[Any], tile: Any, reach_y: float) -> list[Any]:
    """The parts of ``shapes`` round ``tile`` (1 mm round it, ``reach_y`` along its lane): one boolean with
    each big piece, then small ones."""
    import cadquery as cq


    bb = bounds(tile)
    lo = cq.Vector(bb.xmin - 1.0, bb.ymin - reach_y, bb.zmin - 1.0)
    region = cq.Solid.makeBox(bb.xlen + 2.0, bb.ylen + 2 * reach_y, bb.zlen + 2.0, lo)
    near = common_solid(shapes, region)
    return [near] if near is not None else []


def check_captive(solids: list[tuple[str, str, Any]], lay: Any) -> Iterator[Finding]:
    """Each tile, pushed 5 mm past either end of its travel at either side of its play, hits the box."""
    import cadquery as cq


    walls = _box_like(solids)
    walls_print = [_print(w) for w in walls]
    c = lay.clearance
    for name, kind, tile in solids:
        if kind != "tile":
            continue
        at_open = bounds(tile).ymin > lay.tile_y(True) + lay.travel / 2
        start = lay.tile_y(False) if at_open else lay.tile_y(True)
        moves = {"shut": lay.tile_y(True) - OVERTRAVEL - start, "open": lay.tile_y(False) + OVERTRAVEL - start}

        def measure(tile: Any = tile, moves: dict[str, float] = moves) -> list[float]:
            near = _near(walls, tile, lay.travel + OVERTRAVEL + 1.0)
            out = []
            for dy in moves.values():
                for dx in (-c, c):
                    out.append(volume_in(near, tile.translate(cq.Vector(dx, dy, 0.0))))
            return out

        volumes = memo("captive", [_print(tile), walls_print, moves, c], measure)
        worst = min(volumes)
        yield Finding("captive", name, worst >= CAPTIVE_MM3,
                      f"5 mm past shut/open, shifted +-{c:g} mm: overlaps the box by "
                      f"{', '.join(f'{v:.0f}' for v in volumes)} mm3 (at least {CAPTIVE_MM3:g})")


def check_detent(solids: list[tuple[str, str, Any]], lay: Any) -> Iterator[Finding]:
    """A tile leaning away from its bump (sideways by the clearance), moved off its notch onto the plain lane
    wall: the bump overlaps the wall by the engagement."""
    import cadquery as cq

    from shutbox.cad.geometry.layout import BUMP_BASE, DETENT_MARGIN

    boxes = [shape for _, kind, shape in solids if kind == "box"]
    boxes_print = [_print(b) for b in boxes]
    c = lay.clearance
    for name, kind, tile in solids:
        if kind != "tile":
            continue
        bb = bounds(tile)
        at_open = bb.ymin > lay.tile_y(True) + lay.travel / 2
        dy = -BUMP_BASE if at_open else BUMP_BASE  # off the notch, towards the middle of the travel

        def measure(tile: Any = tile, dy: float = dy) -> float:
            common = common_solid(_near(boxes, tile, BUMP_BASE + 1.0), tile.translate(cq.Vector(-c, dy, 0.0)))
            return common.BoundingBox().xlen if common is not None else 0.0

        depth = memo("detent", [_print(tile), boxes_print, dy, c], measure)
        ok = depth >= DETENT_MARGIN - 1e-3 and abs(depth - lay.engagement) <= 0.02
        yield Finding("detent", name, ok, f"leaning away by {c:g} mm the bump still catches {depth:.2f} mm of lane "
                      f"wall (detent {lay.kit.tile_fit.detent_mm:g} - 2 x clearance = {lay.engagement:.2f}, at least "
                      f"{DETENT_MARGIN:g})")


def _ring(x: float, y: float, r0: float, r1: float, z0: float, z1: float) -> Any:
    import cadquery as cq

    outer = cq.Solid.makeCylinder(r1, z1 - z0, cq.Vector(x, y, z0))
    return outer.cut(cq.Solid.makeCylinder(r0, z1 - z0 + 2.0, cq.Vector(x, y, z0 - 1.0)))


def _ring_share(shapes: list[Any], ring: Any) -> float:
    return volume_in(shapes, ring) / ring.Volume()


def check_fasteners(solids: list[tuple[str, str, Any]], lay: Any, cuts: tuple[float, ...],
                    ycuts: tuple[float, ...] = ()) -> Iterator[Finding]:
    """Plastic round every screw hole over its whole depth, countersinks inside their parts, USB kept clear."""
    from shutbox.cad.geometry.layout import (
        COVER_THICKNESS,
        SCREW_CLEAR,
        SCREW_HEAD,
        SCREW_PILOT,
        TAB_THICKNESS,
        USB_CLEAR,
        WALL_MIN,
        gates,
    )

    boxes = [shape for _, kind, shape in solids if kind == "box"]
    known: dict[int, list[Any]] = {}

    def prints(shapes: list[Any]) -> list[Any]:
        return [known.setdefault(id(shape), _print(shape)) for shape in shapes]

    covers = [shape for _, kind, shape in solids if kind == "cover"]
    gate_parts = [shape for _, kind, shape in solids if kind == "gate"]
    rp, rc, rh = SCREW_PILOT / 2, SCREW_CLEAR / 2, SCREW_HEAD / 2
    sink = rh - rc
    # (label, x, y, pilot z0, pilot z1, the parts the screw holds, their countersunk face's z, their thickness)
    holes: list[tuple[str, float, float, float, float, list[Any], float, float]] = []
    if lay.sensors:
        ox, oy = lay.cover_origin
        z0, z1 = lay.cover_pilot
        for i, (sx, sy) in enumerate(lay.screw_points(), 1):
            holes.append((f"cover screw {i}", ox + sx, oy + sy, z0, z1, covers, 0.0, COVER_THICKNESS))
    for gate in gates(lay, cuts):
        z0, z1 = lay.gate_pilot
        for i, (x, y) in enumerate(gate.screw_points(lay), 1):
            holes.append((f"{gate.name} screw {i}", x, y, z0, z1, gate_parts, lay.height,
                          lay.height - lay.gate_floor))
    from shutbox.cad.geometry.box import tab_keys, usb_opening
    from shutbox.cad.geometry.split import tab_screw

    for i, key in enumerate(tab_keys(lay, cuts, ycuts), 1):  # from below through a tray piece's tab
        x, y = tab_screw(lay, key)
        z0, z1 = lay.tab_pilot
        holes.append((f"tab screw {i}", x, y, z0, z1, boxes, 0.0, TAB_THICKNESS))
    usb = usb_opening(lay, lay.length + 1.0) if lay.sensors else None
    for label, x, y, z0, z1, held, face, thick in holes:
        def measure(x: float = x, y: float = y, z0: float = z0, z1: float = z1, held: list[Any] = held,
                    face: float = face, thick: float = thick) -> list[float]:
            pilot = _ring_share(boxes, _ring(x, y, rp, rp + WALL_MIN, z0, z1))
            # The part it holds: clearance hole ring below the countersink, and the countersink's own ring.
            down = -1.0 if face else 1.0  # the countersunk face: the cover's bottom (z 0) or the gate's top
            lo_sink, hi_sink = sorted((face, face + down * sink))
            lo_rest, hi_rest = sorted((face + down * sink, face + down * thick))
            through = _ring_share(held, _ring(x, y, rc, rc + WALL_MIN, lo_rest, hi_rest))
            head = _ring_share(held, _ring(x, y, rh, rh + WALL_MIN, lo_sink, hi_sink))
            gap = usb.distance(_ring(x, y, 0.0, rp, z0, z1)) if usb is not None else float("inf")
            return [pilot, through, head, gap]

        pilot, through, head, gap = memo("fastener", [label, x, y, z0, z1, prints(boxes), prints(held)], measure)
        ok = pilot >= FULL and through >= FULL and head >= FULL and gap >= USB_CLEAR - 1e-3
        yield Finding("fastener", label, ok,
                      f"{WALL_MIN:g} mm ring round the pilot {pilot:.1%} plastic over z {z0:.1f}-{z1:.1f}, round the "
                      f"clearance hole {through:.1%}, round the countersink {head:.1%}; "
                      + (f"{gap:.1f} mm from the USB opening" if gap != float("inf") else "no USB opening"))


def check_button(solids: list[tuple[str, str, Any]], lay: Any) -> Iterator[Finding]:
    """The end-turn button's hole goes through the end wall with a ring of plastic round it, and its body and nut
    have room behind the panel."""
    import cadquery as cq

    from shutbox.cad.geometry.box import teardrop_x
    from shutbox.cad.geometry.layout import BUTTON_BODY, BUTTON_HOLE, BUTTON_NUT, BUTTON_PANEL, WALL_MIN

    if not lay.sensors:
        return
    boxes = [shape for _, kind, shape in solids if kind == "box"]
    yb, zb = lay.button_at
    inner = lay.length - BUTTON_PANEL
    axis = cq.Vector(1, 0, 0)

    def measure() -> list[float]:
        thread = cq.Solid.makeCylinder(BUTTON_HOLE / 2 - 0.05, BUTTON_PANEL + 1.0, cq.Vector(inner - 0.5, yb, zb), axis)
        behind = cq.Vector(inner - BUTTON_BODY + 0.5, yb, zb)
        body = cq.Solid.makeCylinder(BUTTON_NUT / 2 - 0.05, BUTTON_BODY - 0.5, behind, axis)
        # The ring round the hole, less the hole's 45-degree teardrop top (the panel's own roof over it).
        ring = cq.Solid.makeCylinder(BUTTON_HOLE / 2 + WALL_MIN, BUTTON_PANEL, cq.Vector(inner, yb, zb), axis).cut(
            teardrop_x(inner - 1.0, lay.length + 1.0, yb, zb, BUTTON_HOLE / 2 + 0.01))
        return [volume_in(boxes, thread), volume_in(boxes, body), volume_in(boxes, ring) / ring.Volume()]

    thread, body, ring = memo("button", [yb, zb, inner, [_print(b) for b in boxes]], measure)
    ok = thread < 1e-3 and body < 1e-3 and ring >= FULL
    yield Finding("button", "end-turn button", ok,
                  f"hole clear ({thread:.3f} mm3 of box in it), room for nut and body ({body:.3f} mm3), "
                  f"{WALL_MIN:g} mm ring of panel round it {ring:.1%} plastic")


def _print(shape: Any) -> list[Any]:

    return fingerprint(shape)


JOINT_MOVE = 1.0  # mm each piece is moved, in each of the six directions
JOINT_BLOCK_MM3 = 1.0  # material in the way of a move that counts as holding it


def check_joints(solids: list[tuple[str, str, Any]], lay: Any,
                 blockers: tuple[str, ...] = ("box", "gate")) -> Iterator[Finding]:
    """Every box piece of a split box, moved 1 mm in each of the six directions, runs into another piece, a gate
    or (downwards) the table: held without glue (screws are not modelled; a gate screwed across a cut counts
    as material in the way unless ``blockers`` leaves gates out). Meshes and manifold booleans."""
    import numpy as np
    import trimesh

    from shutbox.cad.geometry.mesh import tessellate

    pieces = [(name, shape) for name, kind, shape in solids if kind == "box"]
    if len(pieces) < 2:
        return
    others = [shape for _, kind, shape in solids if kind in blockers]
    meshes = {id(s): tessellate(s, 0.1, 20.0) for s in others}
    for name, shape in pieces:
        rest = [meshes[id(s)] for s in others if s is not shape]
        blocked = []
        for axis, label in enumerate("xyz"):
            for sign in (1, -1):
                if label == "z" and sign < 0 and float(meshes[id(shape)].bounds[0][2]) <= 1e-3:
                    blocked.append("-z table")
                    continue
                moved = meshes[id(shape)].copy()
                step = np.zeros(3)
                step[axis] = sign * JOINT_MOVE
                moved.apply_translation(step)
                volume = 0.0
                for other in rest:
                    if (moved.bounds[0] > other.bounds[1]).any() or (other.bounds[0] > moved.bounds[1]).any():
                        continue
                    volume += trimesh.boolean.intersection([moved, other], engine="manifold").volume
                blocked.append(f"{'+' if sign > 0 else '-'}{label} {volume:.0f} mm3")
        free = [b for b in blocked if not b.endswith("table") and float(b.split()[1]) < JOINT_BLOCK_MM3]
        yield Finding("joint", name, not free, "moved 1 mm: " + ", ".join(blocked)
                      + (f"; free to move {', '.join(b.split()[0] for b in free)}" if free else ""))
