"""The board's traces, laid in code: a maze router on a 0.5 mm grid over both copper layers (no autorouter is needed).

Every track is 0.25 mm wide on grid lines 0.5 mm apart, so two tracks of different nets on neighbouring lines keep
0.25 mm apart, more than the 0.2 mm clearance; a pad or a hole keeps the grid points round it for its own net or
for none, by its exact distance; a via (0.6 mm) keeps its neighbours. Each net is grown as a tree from one of its
pads to the nearest of the others in turn (A* over both layers, a via costs ``VIA_COST`` steps).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from shapely import contains_xy, distance, points
from shapely.geometry import Point, Polygon, box
from shapely.prepared import prep

from shutbox.base.errors import ShutboxError
from shutbox.cad.board.footprints import PICO_INNER, Footprint, Pad

GRID = 0.5
TRACK = 0.25
CLEARANCE = 0.2
VIA, VIA_DRILL = 0.6, 0.3
EDGE = 0.5  # copper from the board's edge
#: A track between two grid points passes a round pad off the grid nearer than either point does: by at most this.
SAG = 0.035
HOLE_CLEARANCE = 0.25  # copper from an unplated hole
VIA_COST = 8.0
OFF_LAYER = 1.6  # a step on a net's less preferred layer costs this much
TURN = 0.3  # a change of direction costs this much
WRONG_WAY = 3.0  # in the bay a step across the layer's way (top along x, bottom along y) costs this many
ROW_COST = 0.05  # along the strip, a step this much dearer for every grid line away from the nets' own side
LAYERS = ("F.Cu", "B.Cu")
FREE, BLOCKED = -1, -2
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass(frozen=True)
class Track:
    net: str
    layer: str
    start: tuple[float, float]
    end: tuple[float, float]


@dataclass(frozen=True)
class Via:
    net: str
    at: tuple[float, float]


@dataclass(frozen=True)
class Lane:
    """A signal's way along the strip, laid before the rest is routed: from pad ``pad`` of part ``ref`` straight
    back (+y) on the top side to the line ``row``, along it to the line ``column``, back along that to ``via``,
    where a via takes it to the bottom side (box-frame mm, each the nearest grid line)."""

    net: str
    ref: str
    pad: str
    row: float
    column: float
    via: float


@dataclass(frozen=True)
class Routes:
    tracks: tuple[Track, ...]
    vias: tuple[Via, ...]


def pad_shape(part: Footprint, pad: Pad) -> Polygon:
    """A pad's copper in the box frame."""
    x, y = part.x + pad.dx, part.y + pad.dy
    if pad.shape == "circle":
        return Point(x, y).buffer(pad.w / 2, quad_segs=16)
    return box(x - pad.w / 2, y - pad.h / 2, x + pad.w / 2, y + pad.h / 2)


class Grid:
    """Both layers' grid points: who may use each (a net's index, FREE or BLOCKED), for tracks and for vias."""

    def __init__(self, outline: Polygon, nets: list[str]) -> None:
        x0, y0, x1, y1 = outline.bounds
        self.x0, self.y0 = math.floor(x0 / GRID) * GRID, math.floor(y0 / GRID) * GRID
        self.nx, self.ny = int((x1 - self.x0) / GRID) + 2, int((y1 - self.y0) / GRID) + 2
        self.index = {n: i for i, n in enumerate(nets)}
        self.nets = nets
        xs, ys = self.coords()
        inside = contains_xy(outline.buffer(-(EDGE + TRACK / 2 + 0.01)), xs, ys)
        via_inside = contains_xy(outline.buffer(-(EDGE + VIA / 2 + 0.01)), xs, ys)
        self.manhattan = np.zeros(self.ny, dtype=bool)
        self.track = np.where(inside, FREE, BLOCKED).astype(np.int32)[None].repeat(2, axis=0)
        self.via = np.where(via_inside, FREE, BLOCKED).astype(np.int32)[None].repeat(2, axis=0)
        #: (reference, pad) -> (net, the grid points inside the pad's copper)
        self.targets: dict[tuple[str, str], tuple[str, set[tuple[int, int, int]]]] = {}

    def coords(self) -> tuple[np.ndarray, np.ndarray]:
        xs = self.x0 + GRID * np.arange(self.nx)
        ys = self.y0 + GRID * np.arange(self.ny)
        gx, gy = np.meshgrid(xs, ys)
        return gx, gy

    def point(self, i: int, j: int) -> tuple[float, float]:
        return (round(self.x0 + GRID * i, 4), round(self.y0 + GRID * j, 4))

    def _window(self, shape: Polygon, reach: float) -> tuple[slice, slice, np.ndarray, np.ndarray]:
        x0, y0, x1, y1 = shape.bounds
        i0 = max(0, int((x0 - reach - self.x0) / GRID) - 1)
        i1 = min(self.nx, int((x1 + reach - self.x0) / GRID) + 2)
        j0 = max(0, int((y0 - reach - self.y0) / GRID) - 1)
        j1 = min(self.ny, int((y1 + reach - self.y0) / GRID) + 2)
        gx, gy = self.coords()
        return slice(j0, j1), slice(i0, i1), gx[j0:j1, i0:i1], gy[j0:j1, i0:i1]

    def claim(self, shape: Polygon, layers: Iterable[int], owner: int, track_reach: float, via_reach: float) -> None:
        """Keep the grid points within ``track_reach`` (``via_reach`` for vias) of ``shape`` for ``owner`` (a net's
        index, or BLOCKED); points another net keeps already become BLOCKED."""
        rows, cols, gx, gy = self._window(shape, max(track_reach, via_reach))
        d = distance(shape, _points(gx, gy))
        for layer in layers:
            for grid, reach in ((self.track, track_reach), (self.via, via_reach)):
                near = d < reach
                view = grid[layer, rows, cols]
                if owner == BLOCKED:
                    view[near] = BLOCKED
                else:
                    clash = near & (view != FREE) & (view != owner)
                    view[near & (view == FREE)] = owner
                    view[clash] = BLOCKED

    def add_pad(self, part: Footprint, pad: Pad) -> None:
        shape = pad_shape(part, pad)
        if pad.kind == "np_thru_hole":
            self.claim(shape, (0, 1), BLOCKED, HOLE_CLEARANCE + TRACK / 2 + SAG, HOLE_CLEARANCE + VIA / 2)
            return
        layers = [LAYERS.index(layer) for layer in pad.copper]
        owner = self.index[pad.net] if pad.net else BLOCKED
        self.claim(shape, layers, owner, CLEARANCE + TRACK / 2 + SAG, CLEARANCE + VIA / 2)
        if pad.net:
            rows, cols, gx, gy = self._window(shape, 0.0)
            prepared = prep(shape.buffer(-0.05))
            cells: set[tuple[int, int, int]] = set()
            self.targets[(part.ref, pad.name)] = (pad.net, cells)
            for layer in layers:
                inside = [(layer, rows.start + r, cols.start + c) for r in range(gx.shape[0])
                          for c in range(gx.shape[1]) if prepared.contains(Point(gx[r, c], gy[r, c]))]
                cells.update(inside)
            if not cells:
                raise ShutboxError(f"pad {part.ref}.{pad.name} holds no grid point")  # pragma: no cover

    def keep_free(self, shape: Polygon, layers: Iterable[int]) -> None:
        """No copper at all in ``shape`` on ``layers``."""
        self.claim(shape, layers, BLOCKED, TRACK / 2, VIA / 2)


def _points(gx: np.ndarray, gy: np.ndarray) -> Any:
    """The grid points as shapely points (an array of them)."""
    return points(gx, gy)


def route_board(outline: Polygon, parts: tuple[Footprint, ...], order: list[str], prefer: dict[str, int],
                band: tuple[float, float, float], ground: str, lanes: tuple[Lane, ...] = ()) -> Routes:
    """Route every net of ``parts`` in ``order`` (nets not listed after them).

    ``prefer``: a net's cheaper layer (0 top, 1 bottom; default top). ``band``: y of the strip's front edge, of its
    row of switch pads and of its back edge: there a signal pays ``ROW_COST`` a step for every grid line it runs
    behind the pads, a net preferring the bottom for every line behind the front edge, so the nets routed first
    take the lines nearest the pads and the later ones pass behind them. ``ground``'s net may run under the screw
    heads. Raises :class:`ShutboxError` naming a net that cannot be routed."""
    nets = sorted({p.net for f in parts for p in f.pads if p.net})
    grid = Grid(outline, nets)
    row_cost = _row_costs(grid, band)
    _add_parts(grid, parts, ground)
    tracks: list[Track] = []
    vias: list[Via] = []
    back = band[2]
    for part in parts:
        if part.y > back:  # in the bay every top-side pad is reached through a via of its own
            for pad in part.pads:
                if pad.net and pad.kind == "smd":
                    _fan_out(grid, part, pad, tracks, vias)
    for lane in lanes:
        _lay_lane(grid, lane, tracks, vias)
    grid.manhattan = grid.y0 + GRID * np.arange(grid.ny) > back - 1.0  # there: top along x, bottom along y
    for net in order + [n for n in nets if n not in order]:
        terminals = [cells for owner, cells in grid.targets.values() if owner == net]
        layer = prefer.get(net, 0)
        t, v = _route_net(grid, net, terminals, row_cost[layer])
        tracks += t
        vias += v
    return Routes(tuple(tracks), tuple(vias))


def _row_costs(grid: Grid, band: tuple[float, float, float]) -> dict[int, np.ndarray]:
    """A step's cost on (top, bottom) by grid line, for a net preferring the top (a signal) and the bottom (power):
    a signal keeps to the top along the strip and to the bottom in the bay, power to the bottom."""
    ys = grid.y0 + GRID * np.arange(grid.ny)
    front, pads, back = band
    inside = ys < back
    signal = np.where(inside, ROW_COST * np.abs(ys - pads) / GRID, 0.0)
    power = np.where(inside, ROW_COST * np.maximum(0.0, ys - front) / GRID, 0.0)
    return {0: np.stack([signal + np.where(inside, 1.0, OFF_LAYER), signal + np.where(inside, OFF_LAYER, 1.0)]),
            1: np.stack([power + OFF_LAYER, power + 1.0])}


def _add_parts(grid: Grid, parts: tuple[Footprint, ...], ground: str) -> None:
    for part in parts:
        for pad in part.pads:
            grid.add_pad(part, pad)
        if part.keepout is not None and part.attr == "hole":  # a screw head's ring on the underside
            ring = Point(part.x, part.y).buffer(part.keepout[2], quad_segs=16)
            grid.claim(ring, (1,), grid.index.get(ground, BLOCKED), TRACK / 2, VIA / 2)
    for net, cells in grid.targets.values():  # a pad's own copper is its net's, whatever is near it
        for layer, j, i in cells:
            grid.track[layer, j, i] = grid.index[net]


def _lay_lane(grid: Grid, lane: Lane, tracks: list[Track], vias: list[Via]) -> None:
    owner = grid.index[lane.net]
    _, cells = grid.targets[(lane.ref, lane.pad)]
    i0 = round((lane.column - grid.x0) / GRID)
    j_row = round((lane.row - grid.y0) / GRID)
    j_via = round((lane.via - grid.y0) / GRID)
    top = [c for c in cells if c[0] == 0]
    centre = sum(i for _, _, i in top) / len(top)
    i_pad = min({i for _, _, i in top}, key=lambda i: abs(i - centre))
    j_pad = max(j for _, j, i in top if i == i_pad)
    path = [(0, j, i_pad) for j in range(j_pad, j_row + 1)]
    step = 1 if i0 > i_pad else -1
    path += [(0, j_row, i) for i in range(i_pad + step, i0 + step, step)]
    path += [(0, j, i0) for j in range(j_row + 1, j_via + 1)] + [(1, j_via, i0)]
    for layer, j, i in path:
        if grid.track[layer, j, i] not in (FREE, owner):
            raise ShutboxError(f"the board cannot be routed for these settings: net {lane.net}'s way along the "
                               "strip is taken")
    t, v = _lay(grid, lane.net, owner, path)
    tracks += t
    vias += v
    cells.update(path)


def _fan_out(grid: Grid, part: Footprint, pad: Pad, tracks: list[Track], vias: list[Via]) -> None:
    """A via beside a top-side pad in the bay and a stub to it: inwards from a Pico pad (its edge pads reach the
    board's edge), outwards from a chip's; a two-pad part's pads both the same way."""
    owner = grid.index[str(pad.net)]
    x, y = part.x + pad.dx, part.y + pad.dy
    i = round((x - grid.x0) / GRID)
    if part.keepout is not None:  # the Pico
        side = 1.0 if pad.dy > 0 else -1.0
        want = part.y + side * (PICO_INNER + VIA / 2 + 0.2)
    else:
        side = (1.0 if pad.dy >= 0 else -1.0)
        want = y + side * (pad.h / 2 + CLEARANCE + VIA / 2 + 0.1)
    j = math.ceil((want - grid.y0) / GRID) if side > 0 else math.floor((want - grid.y0) / GRID)
    _, cells = grid.targets[(part.ref, pad.name)]
    inside = [c for c in cells if c[0] == 0 and c[2] == i]
    if not inside:
        raise ShutboxError(f"pad {part.ref}.{pad.name} is off the routing grid")  # pragma: no cover
    end = min(inside, key=lambda c: abs(c[1] - j))
    step = 1 if end[1] > j else -1
    stub = [(0, jj, i) for jj in range(j, end[1] + step, step)]
    at = grid.point(i, j)
    disc = Point(*at).buffer(VIA / 2, quad_segs=16)
    grid.claim(disc, (0, 1), owner, CLEARANCE + TRACK / 2 + 0.001, CLEARANCE + VIA / 2 + 0.001)
    for layer, jj, ii in stub + [(1, j, i)]:
        grid.track[layer, jj, ii] = owner
        cells.add((layer, jj, ii))
    vias.append(Via(str(pad.net), at))
    tracks.append(Track(str(pad.net), "F.Cu", at, grid.point(i, end[1])))


def _route_net(grid: Grid, net: str, terminals: list[set[tuple[int, int, int]]],
               row_cost: np.ndarray) -> tuple[list[Track], list[Via]]:
    if len(terminals) < 2:
        return [], []
    owner = grid.index[net]
    tree = set(terminals[0])
    left = terminals[1:]
    tracks: list[Track] = []
    vias: list[Via] = []
    while left:
        # the terminal nearest the tree goes next
        goal = left.pop(_nearest(tree, left))
        path = _astar(grid, owner, tree, goal, row_cost)
        if path is None:
            raise ShutboxError(f"the board cannot be routed for these settings: no way for net {net}")
        t, v = _lay(grid, net, owner, path)
        tracks += t
        vias += v
        tree.update(path)
        tree.update(goal)
    return tracks, vias


def _nearest(tree: set[tuple[int, int, int]], left: list[set[tuple[int, int, int]]]) -> int:
    """The index of the terminal in ``left`` nearest ``tree`` (its middle, by grid steps)."""
    tj = np.array([j for _, j, _ in tree])
    ti = np.array([i for _, _, i in tree])

    def gap(cells: set[tuple[int, int, int]]) -> float:
        cj = sum(j for _, j, _ in cells) / len(cells)
        ci = sum(i for _, _, i in cells) / len(cells)
        return float(np.min(np.abs(tj - cj) + np.abs(ti - ci)))

    return min(range(len(left)), key=lambda k: gap(left[k]))


Node = tuple[int, int, int]


def _moves(grid: Grid, owner: int, node: Node, heading: int, row_cost: np.ndarray) -> Iterator[tuple[Node, float, int]]:
    """The steps from ``node``: (next node, its cost, its heading; -1 for a via)."""
    layer, j, i = node
    track, via = grid.track, grid.via
    layer_cost = row_cost[layer]
    hv = grid.manhattan[j]
    for d, (di, dj) in enumerate(_STEPS):
        wrong = WRONG_WAY if hv and (dj != 0 if layer == 0 else di != 0) else 1.0
        ii, jj = i + di, j + dj
        if not (0 <= ii < grid.nx and 0 <= jj < grid.ny):
            continue
        who = track[layer, jj, ii]
        if who == FREE or who == owner:
            yield (layer, jj, ii), layer_cost[jj] * wrong + (TURN if heading not in (-1, d) else 0.0), d
    other = 1 - layer
    if via[layer, j, i] in (FREE, owner) and via[other, j, i] in (FREE, owner) and track[other, j, i] in (FREE, owner):
        yield (other, j, i), VIA_COST, -1


def _astar(grid: Grid, owner: int, sources: set[tuple[int, int, int]], goal: set[tuple[int, int, int]],
           row_cost: np.ndarray) -> list[tuple[int, int, int]] | None:
    gj = np.array([j for _, j, _ in goal])
    gi = np.array([i for _, _, i in goal])
    jmin, jmax, imin, imax = int(gj.min()), int(gj.max()), int(gi.min()), int(gi.max())

    def h(j: int, i: int) -> float:
        return max(0, jmin - j, j - jmax) + max(0, imin - i, i - imax)

    best: dict[Node, float] = {}
    came: dict[Node, Node | None] = {}
    heading: dict[Node, int] = {}
    heap: list[tuple[float, float, Node]] = []
    for node in sources:
        best[node] = 0.0
        came[node] = None
        heading[node] = -1
        heapq.heappush(heap, (h(node[1], node[2]), 0.0, node))
    while heap:
        _, cost, node = heapq.heappop(heap)
        if cost > best.get(node, math.inf):
            continue
        if node in goal:
            path = []
            step: Node | None = node
            while step is not None:
                path.append(step)
                step = came[step]
            return path[::-1]
        for nxt, extra, d in _moves(grid, owner, node, heading[node], row_cost):
            c = cost + extra
            if c < best.get(nxt, math.inf):
                best[nxt] = c
                came[nxt] = node
                heading[nxt] = d
                heapq.heappush(heap, (c + h(nxt[1], nxt[2]), c, nxt))
    return None


def _lay(grid: Grid, net: str, owner: int, path: list[tuple[int, int, int]]) -> tuple[list[Track], list[Via]]:
    """Tracks (straight runs merged) and vias along ``path``; the grid points they take kept for ``net``."""
    tracks: list[Track] = []
    vias: list[Via] = []
    run = [path[0]]
    for node in path[1:]:
        prev = run[-1]
        if node[0] != prev[0]:  # a via
            _flush(grid, net, run, tracks)
            vias.append(Via(net, grid.point(node[2], node[1])))
            disc = Point(*grid.point(node[2], node[1])).buffer(VIA / 2, quad_segs=16)
            grid.claim(disc, (0, 1), owner, CLEARANCE + TRACK / 2 + 0.001, CLEARANCE + VIA / 2 + 0.001)
            run = [node]
            continue
        if len(run) >= 2 and _direction(run[-2], run[-1]) != _direction(run[-1], node):
            _flush(grid, net, run, tracks)
            run = [run[-1]]
        run.append(node)
    _flush(grid, net, run, tracks)
    _keep(grid, owner, path)
    return tracks, vias


def _keep(grid: Grid, owner: int, path: list[Node]) -> None:
    """The grid points of a laid path kept for its net; their neighbours kept from other nets' vias (0.5 mm is
    less than a via's radius, the clearance and half a track)."""
    for layer, j, i in path:
        grid.track[layer, j, i] = owner
        if grid.via[layer, j, i] == FREE:
            grid.via[layer, j, i] = owner
    for layer, j, i in path:
        for di, dj in _STEPS:
            jj, ii = j + dj, i + di
            if 0 <= jj < grid.ny and 0 <= ii < grid.nx:
                v = grid.via[layer, jj, ii]
                if v == FREE:
                    grid.via[layer, jj, ii] = owner
                elif v != owner:
                    grid.via[layer, jj, ii] = BLOCKED


def _direction(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int]:
    return (b[1] - a[1], b[2] - a[2])


def _flush(grid: Grid, net: str, run: list[tuple[int, int, int]], tracks: list[Track]) -> None:
    if len(run) < 2:
        return
    layer = LAYERS[run[0][0]]
    tracks.append(Track(net, layer, grid.point(run[0][2], run[0][1]), grid.point(run[-1][2], run[-1][1])))
