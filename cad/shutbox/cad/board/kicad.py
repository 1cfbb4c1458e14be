"""The KiCad 9 project of a kit's board (``.kicad_pro`` and ``.kicad_pcb``), written as text: no KiCad is needed.

KiCad's frame: x as the box's, y down (``ky = box width - y``), looking at the top side, which faces up into the
box. UUIDs are derived from the kit, so the same settings write the same files.
"""

from __future__ import annotations

import json
import math
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

from shapely.geometry import Polygon

from shutbox.base.errors import ShutboxError
from shutbox.base.version import __version__
from shutbox.cad.board import plan as board_plan
from shutbox.cad.board.footprints import Footprint, Pad
from shutbox.cad.board.pour import LAYER as POUR_LAYER
from shutbox.cad.board.pour import MIN_WIDTH, POUR_CLEARANCE, pour
from shutbox.cad.board.route import (
    CLEARANCE,
    EDGE,
    GRID,
    HOLE_CLEARANCE,
    TRACK,
    VIA,
    VIA_DRILL,
    Lane,
    Routes,
    route_board,
)
from shutbox.cad.board.sexpr import Node, Sym, dumps
from shutbox.cad.geometry.boardfit import THICKNESS
from shutbox.firmware.host.topology import GND, V33
from shutbox.kit.model import Kit, kit_as_flat

FORMAT = 20241229  # KiCad 9's board file version
STEM = "shutbox-switch-row"
_LAYERS = [(0, "F.Cu", "signal"), (2, "B.Cu", "signal"), (1, "F.Mask", "user"), (3, "B.Mask", "user"),
           (5, "F.SilkS", "user", "F.Silkscreen"), (7, "B.SilkS", "user", "B.Silkscreen"), (13, "F.Paste", "user"),
           (15, "B.Paste", "user"), (25, "Edge.Cuts", "user"), (31, "F.CrtYd", "user", "F.Courtyard"),
           (29, "B.CrtYd", "user", "B.Courtyard"), (35, "F.Fab", "user"), (33, "B.Fab", "user")]


@dataclass(frozen=True)
class Design:
    """A kit's board, routed and poured."""

    board: board_plan.Board
    routes: Routes
    zone: Polygon
    fill: tuple[Polygon, ...]


def design(kit: Kit) -> Design:
    """Plan, route and pour the board of ``kit`` (:class:`ShutboxError` for settings it cannot be made for)."""
    board = board_plan.plan_board(kit)
    band = (board.strip[2], board.lay.switch_y, board.strip[3])
    failed: ShutboxError | None = None
    for order in route_orders(board):
        try:
            routes = route_board(board.outline, board.footprints, order, preferred_layers(board), band, GND,
                                 strip_lanes(board))
            break
        except ShutboxError as exc:  # the next order of the nets
            failed = exc
    else:
        assert failed is not None
        raise failed
    zone, fill = pour(board.outline, board.footprints, routes)
    return Design(board, routes, zone, tuple(fill))


def route_orders(board: board_plan.Board) -> list[list[str]]:
    """The orders the nets are routed in, tried in turn until one routes them all: the switches' other side first
    (a bus along the strip), the button (from the strip's far end), then the tiles (nearest the bay first; farthest
    first; every other one from the farthest, then the rest), the remaining nets after."""
    neck = (board.neck[0] + board.neck[1]) / 2
    tiles = [board_plan.tile_net(n) for n in
             sorted(range(1, board.lay.tiles + 1), key=lambda n: abs(board.lay.lane_x(n) - neck))]
    first = [board.wiring.tiles.net, "BUTTON"]
    far = tiles[::-1]
    control = sorted(n for n in board.nets if n.startswith(("SH_LD", "CLK", "QH", "CHAIN")))
    other = [V33 if board.wiring.tiles.net == GND else GND]
    orders = [first + tiles, first + far, first + far[::2] + far[1::2], first + control + far,
              first + other + tiles, first + other + far, first + control + other + far]
    for seed in range(1, SHUFFLES + 1):  # then the tiles in a few fixed shuffled orders
        shuffled = list(tiles)
        random.Random(seed).shuffle(shuffled)
        orders.append(first + shuffled)
    return orders


SHUFFLES = 6
ROW_FROM = 1.8  # the first line of the strip's signal rows behind the switch pads (clear of the screw holes)
LANE_PITCH = 1.0  # the signals' columns up the neck: room for each one's via


def strip_lanes(board: board_plan.Board) -> tuple[Lane, ...]:
    """Each tile's signal along the strip to the neck, laid out so that none crosses another: on each side of the
    neck the tile nearest it takes the row nearest the pads and the column nearest the neck's middle, the next
    tile the next row and column out (a farther tile's row passes behind every nearer tile's pads)."""
    lay = board.lay
    nx0, nx1, ny0, _ = board.neck
    middle = (nx0 + nx1) / 2
    first_row = _grid_up(lay.switch_y + ROW_FROM)
    via = _grid_up(board.strip[3] + 1.0)
    lanes = []
    for side in (-1, 1):
        tiles = sorted((n for n in range(1, lay.tiles + 1) if (lay.lane_x(n) - middle) * side > 0),
                       key=lambda n: abs(lay.lane_x(n) - middle))
        for rank, n in enumerate(tiles):
            column = _grid_up(middle + side * (0.75 + rank) * LANE_PITCH)
            pad = "C" if lay.kit.sensors.lever else "1"
            lanes.append(Lane(board_plan.tile_net(n), f"S{n}", pad, first_row + rank * GRID, column, via))
    return tuple(lanes)


def _grid_up(value: float) -> float:
    return math.ceil(value / GRID - 1e-9) * GRID


def preferred_layers(board: board_plan.Board) -> dict[str, int]:
    """Power on the underside (with the pour), signals on top."""
    return {GND: 1, V33: 1}


class _Ids:
    def __init__(self, seed: str) -> None:
        self.space = uuid.uuid5(uuid.NAMESPACE_URL, "shutbox-pcb:" + seed)
        self.count = 0

    def __call__(self) -> Node:
        self.count += 1
        return [Sym("uuid"), str(uuid.uuid5(self.space, str(self.count)))]


def _at(x: float, y: float, *rest: float) -> Node:
    return [Sym("at"), float(x), float(y), *map(float, rest)]


def _effects(size: float = 1.0, hide: bool = False) -> list[Node]:
    out: list[Node] = [[Sym("effects"), [Sym("font"), [Sym("size"), size, size], [Sym("thickness"), size * 0.15]]]]
    if hide:
        out.insert(0, [Sym("hide"), Sym("yes")])
    return out


class Writer:
    """Turns a :class:`Design` into the board file's nodes."""

    def __init__(self, d: Design) -> None:
        self.d = d
        self.width = d.board.lay.width
        self.ids = _Ids(json.dumps(kit_as_flat(d.board.kit), sort_keys=True, default=str))
        self.nets = {name: i for i, name in enumerate(d.board.nets, start=1)}

    def k(self, x: float, y: float) -> tuple[float, float]:
        """Box frame to KiCad's."""
        return round(x, 4), round(self.width - y, 4)

    def net(self, name: str | None) -> list[Node]:
        return [[Sym("net"), self.nets[name], name]] if name else []

    def board(self) -> Node:
        d = self.d
        kit = d.board.kit
        head: Node = [Sym("kicad_pcb"), [Sym("version"), FORMAT], [Sym("generator"), "shutbox"],
                      [Sym("generator_version"), __version__],
                      [Sym("general"), [Sym("thickness"), THICKNESS], [Sym("legacy_teardrops"), Sym("no")]],
                      [Sym("paper"), "A3"],
                      [Sym("title_block"), [Sym("title"), f"Shut the Box switch row, {kit.rules.tiles} tiles"],
                       [Sym("rev"), __version__], [Sym("company"), "shutbox"],
                       [Sym("comment"), 1.0, f"sensors {kit.sensors.kind}, tile input {kit.firmware.tile_input}, "
                                             f"{d.board.pins.board.title}"]],
                      [Sym("layers"), *[[float(i), *[Sym(t) if n == 2 else t for n, t in enumerate(rest)]]
                                        for i, *rest in _LAYERS]],
                      [Sym("setup"), [Sym("pad_to_mask_clearance"), 0.0],
                       [Sym("allow_soldermask_bridges_in_footprints"), Sym("no")]],
                      [Sym("net"), 0.0, ""]]
        head[7] = [Sym("layers"), *[[i, name, Sym(kind), *alias] for i, name, kind, *alias in _LAYERS]]
        head[-1] = [Sym("net"), 0, ""]
        head += [[Sym("net"), i, name] for name, i in self.nets.items()]
        head += self.outline()
        head += [self.footprint(f) for f in d.board.footprints]
        head += self.tracks()
        head.append(self.zone())
        head += self.labels()
        return head

    def outline(self) -> list[Node]:
        rings = [self.d.board.outline.exterior, *self.d.board.outline.interiors]
        out: list[Node] = []
        for ring in rings:
            pts = [[Sym("xy"), *self.k(x, y)] for x, y in list(ring.coords)[:-1]]
            out.append([Sym("gr_poly"), [Sym("pts"), *pts], [Sym("stroke"), [Sym("width"), 0.1], [Sym("type"),
                        Sym("solid")]], [Sym("fill"), Sym("no")], [Sym("layer"), "Edge.Cuts"], self.ids()])
        return out

    def footprint(self, f: Footprint) -> Node:
        x, y = self.k(f.x, f.y)
        silk = "F.SilkS" if f.attr == "through_hole" or f.ref.startswith("U") else "F.Fab"
        cx0, cy0, cx1, cy1 = f.courtyard
        node: Node = [Sym("footprint"), f.name, [Sym("layer"), "F.Cu"], self.ids(), _at(x, y),
                      [Sym("property"), "Reference", f.ref, _at(0, -(cy1 + 0.8), 0), [Sym("layer"), silk], self.ids(),
                       *_effects(1.0)],
                      [Sym("property"), "Value", f.value, _at(0, -cy0 + 0.8, 0), [Sym("layer"), "F.Fab"], self.ids(),
                       *_effects(0.8)],
                      [Sym("property"), "Description", f.description, _at(0, 0, 0), [Sym("layer"), "F.Fab"],
                       self.ids(), *_effects(0.8, hide=True)]]
        for name, value in f.fields.items():
            node.append([Sym("property"), name, value, _at(0, 0, 0), [Sym("layer"), "F.Fab"], self.ids(),
                         *_effects(0.8, hide=True)])
        if f.attr == "hole":
            node.append([Sym("attr"), Sym("exclude_from_pos_files"), Sym("exclude_from_bom")])
        else:
            node.append([Sym("attr"), Sym(f.attr)])
            node.append([Sym("fp_rect"), [Sym("start"), cx0, -cy1], [Sym("end"), cx1, -cy0],
                         [Sym("stroke"), [Sym("width"), 0.05], [Sym("type"), Sym("solid")]], [Sym("fill"), Sym("no")],
                         [Sym("layer"), "F.CrtYd"], self.ids()])
        if f.keepout is not None and f.attr != "hole":
            kx0, ky0, kx1, ky1 = f.keepout
            node.append([Sym("fp_rect"), [Sym("start"), kx0, -ky1], [Sym("end"), kx1, -ky0],
                         [Sym("stroke"), [Sym("width"), 0.12], [Sym("type"), Sym("solid")]], [Sym("fill"), Sym("no")],
                         [Sym("layer"), "F.SilkS"], self.ids()])
        node += [self.pad(p) for p in f.pads]
        node.append([Sym("embedded_fonts"), Sym("no")])
        return node

    def pad(self, p: Pad) -> Node:
        layers = {"thru_hole": ["*.Cu", "*.Mask"], "np_thru_hole": ["*.Cu", "*.Mask"],
                  "smd": ["F.Cu", "F.Mask", "F.Paste"]}[p.kind]
        node: Node = [Sym("pad"), p.name, Sym(p.kind), Sym(p.shape), _at(p.dx, -p.dy), [Sym("size"), p.w, p.h]]
        if p.drill:
            node.append([Sym("drill"), p.drill])
        node.append([Sym("layers"), *layers])
        node += self.net(p.net)
        node.append(self.ids())
        return node

    def tracks(self) -> list[Node]:
        out: list[Node] = []
        for t in self.d.routes.tracks:
            out.append([Sym("segment"), [Sym("start"), *self.k(*t.start)], [Sym("end"), *self.k(*t.end)],
                        [Sym("width"), TRACK], [Sym("layer"), t.layer], [Sym("net"), self.nets[t.net]], self.ids()])
        for v in self.d.routes.vias:
            out.append([Sym("via"), _at(*self.k(*v.at)), [Sym("size"), VIA], [Sym("drill"), VIA_DRILL],
                        [Sym("layers"), "F.Cu", "B.Cu"], [Sym("net"), self.nets[v.net]], self.ids()])
        return out

    def zone(self) -> Node:
        def pts(poly: Polygon) -> Node:
            return [Sym("pts"), *[[Sym("xy"), *self.k(x, y)] for x, y in list(poly.exterior.coords)[:-1]]]

        node: Node = [Sym("zone"), [Sym("net"), self.nets[GND]], [Sym("net_name"), GND], [Sym("layer"), POUR_LAYER],
                      self.ids(), [Sym("name"), "ground pour"], [Sym("hatch"), Sym("edge"), 0.5],
                      [Sym("connect_pads"), Sym("yes"), [Sym("clearance"), POUR_CLEARANCE]],
                      [Sym("min_thickness"), MIN_WIDTH], [Sym("filled_areas_thickness"), Sym("no")],
                      [Sym("fill"), Sym("yes"), [Sym("thermal_gap"), 0.5], [Sym("thermal_bridge_width"), 0.5],
                       [Sym("island_removal_mode"), 0]],
                      [Sym("polygon"), pts(self.d.zone)]]
        node += [[Sym("filled_polygon"), [Sym("layer"), POUR_LAYER], pts(piece)] for piece in self.d.fill]
        return node

    def labels(self) -> list[Node]:
        """The kit on the silkscreen, at the strip's left end."""
        b = self.d.board
        kit = b.kit
        x0, _, y0, y1 = b.strip
        text = f"shutbox {__version__}: {kit.rules.tiles} tiles, {kit.sensors.kind}, {kit.firmware.tile_input}"
        return [[Sym("gr_text"), text, _at(*self.k(x0 + 1.5, y1 - 1.8)), [Sym("layer"), "B.SilkS"], self.ids(),
                 [Sym("effects"), [Sym("font"), [Sym("size"), 1.0, 1.0], [Sym("thickness"), 0.15]],
                  [Sym("justify"), Sym("left"), Sym("mirror")]]]]


def board_text(d: Design) -> str:
    """The ``.kicad_pcb`` file."""
    return dumps(Writer(d).board()) + "\n"


def project_text(stem: str) -> str:
    """The ``.kicad_pro`` file: the design rules the board was routed to (a common fab house's least figures)."""
    rules = {"min_clearance": CLEARANCE, "min_copper_edge_clearance": EDGE, "min_hole_clearance": HOLE_CLEARANCE,
             "min_hole_to_hole": 0.25, "min_through_hole_diameter": VIA_DRILL, "min_track_width": 0.2,
             "min_via_annular_width": 0.13, "min_via_diameter": 0.5, "min_connection": 0.0,
             "solder_mask_to_copper_clearance": 0.0, "min_silk_clearance": 0.0, "min_text_height": 0.8,
             "min_text_thickness": 0.08, "min_microvia_diameter": 0.2, "min_microvia_drill": 0.1,
             "min_resolved_spokes": 1, "use_height_for_length_calcs": True}
    classes = [{"name": "Default", "clearance": CLEARANCE, "track_width": TRACK, "via_diameter": VIA,
                "via_drill": VIA_DRILL, "microvia_diameter": 0.3, "microvia_drill": 0.1, "diff_pair_gap": 0.25,
                "diff_pair_via_gap": 0.25, "diff_pair_width": 0.2, "line_style": 0, "wire_width": 6, "bus_width": 12,
                "pcb_color": "rgba(0, 0, 0, 0.000)", "schematic_color": "rgba(0, 0, 0, 0.000)",
                "priority": 2147483647}]
    project = {
        "board": {"design_settings": {"defaults": {}, "diff_pair_dimensions": [], "drc_exclusions": [],
                                      "rules": rules, "track_widths": [TRACK], "via_dimensions": [
                                          {"diameter": VIA, "drill": VIA_DRILL}]}},
        "boards": [], "libraries": {"pinned_footprint_libs": [], "pinned_symbol_libs": []},
        "meta": {"filename": f"{stem}.kicad_pro", "version": 3},
        "net_settings": {"classes": classes, "meta": {"version": 4}},
        "pcbnew": {"page_layout_descr_file": ""}, "sheets": [], "text_variables": {},
    }
    return json.dumps(project, indent=2) + "\n"


def write_project(d: Design, folder: Path, stem: str = STEM) -> list[str]:
    """Write ``stem.kicad_pro`` and ``stem.kicad_pcb`` into ``folder``; the names written."""
    (folder / f"{stem}.kicad_pcb").write_text(board_text(d), encoding="utf-8")
    (folder / f"{stem}.kicad_pro").write_text(project_text(stem), encoding="utf-8")
    return [f"{stem}.kicad_pro", f"{stem}.kicad_pcb"]
