"""Pictures of the sensors seated as drawn, rendered from the model like the kit's previews: a reed switch with its
folded leads in its shaft under a shut tile (a section through the shaft), a microswitch on its ledges with its
lever held down by a shut tile (a section along the lane), and the 74HC165 board beside the controller in the bay
(the box turned over, the cover with both boards lifted out beside it).

They take a box build each, so they are not part of every ``shutbox cad`` build: ``python -m
shutbox.cad.guide.buildnotes`` writes them into ``docs/img/`` (``cad-reed-seated.png``, ``cad-microswitch-seated.png``,
``cad-shift-board-bay.png``);
``python -m shutbox.cad.guide.sensorviews DIR`` into any folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cadquery as cq
import numpy as np

from shutbox.cad.geometry.layout import Layout, layout
from shutbox.cad.guide.figures import BAY_VIEW, MICROSWITCH_VIEW, REED_VIEW
from shutbox.cad.guide.preview import CLOSE_CHORD, VIEW_CHORD, mesh_of, render
from shutbox.kit.model import Kit, build_kit

BOX = (205, 170, 115)
TILE = (240, 228, 200)
GLASS = (150, 200, 225)
LEAD = (120, 120, 125)
MAGNET = (70, 80, 100)
PCB = (30, 120, 70)
CHIP = (40, 40, 45)
COVER = (170, 135, 90)


def reed_view(lay: Layout, box: cq.Shape, path: Path) -> None:
    """Lane 1 cut through its shaft (the half behind the shaft's axis): the seated switch with its folded leads,
    and tile 1 shut over it with its magnet, seen from the front."""
    from shutbox.cad.geometry.sensors import magnet, reed
    from shutbox.cad.geometry.tiles import build_tile, place_tile

    s = lay.kit.sensors
    x, y = lay.lane_x(1), lay.switch_y
    z0 = lay.reed_top - s.reed_length_mm - 6.0
    window = cq.Solid.makeBox(16.0, 12.0, lay.height + 1.0 - z0, cq.Vector(x - 8.0, y, z0))
    tile = place_tile(lay, build_tile(lay, 1), 1, shut=True)
    switch = reed(lay, 1)
    meshes = [(mesh_of(box.intersect(window), CLOSE_CHORD), BOX), (mesh_of(tile.intersect(window), CLOSE_CHORD), TILE),
              (mesh_of(switch.glass, 0.02), GLASS), (mesh_of(switch.leads, 0.02), LEAD),
              (mesh_of(magnet(lay, 1), 0.02), MAGNET)]
    focus = ((x - 8.0, y, z0), (x + 8.0, y + 12.0, lay.height))
    render(meshes, path, (700, 1000), azimuth=-12, elevation=8, margin=0.03, focus=focus)


def microswitch_view(lay: Layout, box: cq.Shape, path: Path) -> None:
    """Lane 1 cut along its middle (the half to its left kept): the microswitch on its ledges in the shelf, its lever
    held down by tile 1 shut over it, seen from the right."""
    from shutbox.cad.geometry import microswitch as m
    from shutbox.cad.geometry.tiles import build_tile, place_tile

    x = lay.lane_x(1)
    y0, y1 = m.shelf_y(lay)
    z0 = m.shelf_bottom(lay) - m.TAB_LENGTH - 3.0
    window = cq.Solid.makeBox(14.0, y1 - y0 + 16.0, lay.height + 1.0 - z0, cq.Vector(x - 14.0, y0 - 8.0, z0))
    tile = place_tile(lay, build_tile(lay, 1), 1, shut=True)
    switch = m.switch(lay, 1)
    meshes = [(mesh_of(box.intersect(window), CLOSE_CHORD), BOX), (mesh_of(tile.intersect(window), CLOSE_CHORD), TILE),
              (mesh_of(switch.body, 0.02), CHIP), (mesh_of(switch.lever, 0.02), LEAD)]
    focus = ((x - 14.0, y0 - 8.0, z0), (x + 4.0, y1 + 8.0, lay.height))
    render(meshes, path, (1100, 700), azimuth=75, elevation=12, margin=0.03, focus=focus)


def bay_view(lay: Layout, box: cq.Shape, path: Path) -> None:
    """The bay with the box turned over (about its long axis), the cover lifted out beside it with the controller
    and the 74HC165 board on it, their wire ways between."""
    from shutbox.cad.geometry.cover import build_cover, place_cover
    from shutbox.cad.geometry.sensors import controller_board, shift_board_parts

    ox, oy = lay.cover_origin
    w, h = lay.cover_size
    window = cq.Solid.makeBox(w + 24.0, lay.width - (lay.switch_y - 8.0), lay.height + 2.0,
                              cq.Vector(ox - 12.0, lay.switch_y - 8.0, -1.0))
    turn = np.diag([1.0, -1.0, -1.0, 1.0])
    turn[1:3, 3] = (lay.width, lay.height)
    bay = mesh_of(box.intersect(window), VIEW_CHORD)
    bay.apply_transform(turn)
    beside = -h - 14.0 - oy  # the cover in front of the turned box, pins up
    parts = [(place_cover(lay, build_cover(lay)), COVER), (controller_board(lay), PCB)]
    if lay.shift_board:
        board, chips = shift_board_parts(lay)
        parts += [(board, PCB)] + [(chip, CHIP) for chip in chips]
    meshes = [(bay, BOX)]
    for solid, colour in parts:
        mesh = mesh_of(solid, 0.05)
        mesh.apply_translation((0.0, beside, lay.height))
        meshes.append((mesh, colour))
    render(meshes, path, (1200, 900), azimuth=-15, elevation=60, margin=0.03)


def sensor_views(folder: Path, kit: Kit | None = None) -> list[str]:
    """Write the pictures into ``folder`` for ``kit`` (default: the default kit): a reed switch and a microswitch
    seated, each in the same kit with that sensor, and the bay of the same kit read through a 74HC165 chain when it
    has no such board; their file names."""
    from shutbox.cad.geometry.box import build_box
    from shutbox.kit.model import kit_as_flat

    kit = kit or Kit()
    names = []
    for kind, view, name in (("reed", reed_view, REED_VIEW), ("microswitch", microswitch_view, MICROSWITCH_VIEW)):
        lay = layout(kit if kit.sensors.kind == kind else build_kit({**kit_as_flat(kit), "sensors.kind": kind}))
        view(lay, build_box(lay), folder / name)
        names.append(name)
    lay = layout(kit)
    if not lay.shift_board or not lay.sensors:
        lay = layout(build_kit({**kit_as_flat(kit), "firmware.tile_input": "74hc165",
                                "sensors.kind": kit.sensors.kind if lay.sensors else "reed"}))
    bay_view(lay, build_box(lay), folder / BAY_VIEW)
    return [*names, BAY_VIEW]


if __name__ == "__main__":
    sensor_views(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("."))
