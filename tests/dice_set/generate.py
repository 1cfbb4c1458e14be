"""Write the dice reader's test set: dice rendered with VTK (offscreen) and photo-like composites, labelled.

    nice python tests/dice_set/generate.py [--renders 640] [--composites 60]

``render/NNNN.jpg``: the kit's 19 mm die (body and pips as two colours, shutbox.cad.geometry.dice) and ordinary dice
(white, black, ivory, red; black, white, red or blue pips; Chinese dice with a red 1 and 4) on a
textured table, perspective camera from 50 to 90 degrees above the table, any heading, random
lighting, blur, noise and JPEG quality; dice apart or touching; some empty tables.
``composite/NNNN.jpg``: dice rendered alone (alpha) and laid onto a photo-like table (wood grain,
felt, cloth, tiles) with soft shadows, glare, vignetting, a perspective warp, sensor noise and heavy
JPEG artefacts. ``labels.json``: file -> the top faces' values (sorted) and how it was made.
Every picture follows from its seed: the same command writes the same set.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import trimesh

HERE = Path(__file__).resolve().parent
WIDTH = 640
SUPERSAMPLE = 2

Colour = tuple[int, int, int]


@dataclass(frozen=True)
class DieStyle:
    """How one kind of die looks: its model and the colours of its body and pips."""

    name: str
    model: str  # "kit" (shutbox.cad.geometry.dice, 19 mm) or "western" / "chinese" (rounded cube, spherical dimples)
    body: Colour
    pips: Colour
    red_pips: Colour | None = None  # Chinese dice: the 1 and 4 faces' pips


STYLES = (
    DieStyle("kit-white", "kit", (240, 238, 232), (25, 25, 28)),
    DieStyle("kit-orange", "kit", (235, 120, 30), (20, 20, 22)),
    DieStyle("kit-green", "kit", (40, 140, 70), (245, 245, 240)),
    DieStyle("kit-black", "kit", (28, 28, 30), (240, 240, 235)),
    DieStyle("white-black", "western", (242, 242, 238), (20, 20, 22)),
    DieStyle("black-white", "western", (22, 22, 24), (240, 240, 236)),
    DieStyle("ivory-black", "western", (236, 226, 196), (30, 26, 22)),
    DieStyle("white-red", "western", (244, 244, 240), (200, 20, 30)),
    DieStyle("white-blue", "western", (244, 244, 240), (25, 50, 170)),
    DieStyle("red-white", "western", (190, 25, 30), (245, 245, 240)),
    DieStyle("chinese", "chinese", (245, 243, 236), (20, 20, 22), (205, 25, 35)),
)

TABLES: tuple[tuple[str, Colour], ...] = (
    ("green felt", (30, 110, 55)), ("dark wood", (95, 60, 35)), ("light wood", (190, 150, 100)),
    ("black", (25, 25, 28)), ("grey", (120, 120, 125)), ("red felt", (140, 25, 30)), ("blue cloth", (30, 55, 120)),
    ("cream", (225, 215, 190)), ("white", (232, 232, 230)), ("slate", (60, 66, 72)),
)


# --- die meshes -------------------------------------------------------------------------------------------------

def _die_solids(style: DieStyle, size: float, seed: int) -> tuple[list[tuple[object, Colour]], float]:
    """CadQuery solids of one die (body, pips in one or two colours) centred on the origin, and its size."""
    import cadquery as cq

    from shutbox.cad.geometry.dice import FACES, PIPS, build_die, build_pips, face_axes

    if style.model == "kit":
        return [(build_die(size), style.body), (build_pips(size), style.pips)], size
    rng = np.random.default_rng(seed)
    size = float(rng.uniform(14.0, 19.0))
    fillet = size * float(rng.uniform(0.08, 0.16))
    q = size * float(rng.uniform(0.25, 0.29))
    cap = size * float(rng.uniform(0.075, 0.1))
    cube = cq.Solid.makeBox(size, size, size, cq.Vector(-size / 2, -size / 2, -size / 2))
    body = cube.fillet(fillet, cube.Edges())
    inset = cq.Solid.makeBox(size - 0.5, size - 0.5, size - 0.5, cq.Vector(-(size - 0.5) / 2, -(size - 0.5) / 2,
                                                                           -(size - 0.5) / 2))
    groups: dict[Colour, list[cq.Shape]] = {}
    spheres = []
    for value, normal in FACES.items():
        n = cq.Vector(*normal)
        u, v = face_axes(normal)
        r = cap * (1.9 if style.model == "chinese" and value == 1 else 1.0)
        radius = r * 1.25
        depth = math.sqrt(radius * radius - r * r)  # sphere centre outside the face: its cap on the face has radius r
        colour = style.red_pips if style.red_pips is not None and value in (1, 4) else style.pips
        for a, b in PIPS[value]:
            centre = n * (size / 2 + depth) + u * (a * q) + v * (b * q)
            sphere = cq.Solid.makeSphere(radius, centre, angleDegrees1=-90, angleDegrees2=90)
            spheres.append(sphere)
            groups.setdefault(colour, []).append(sphere)
    carved = body.cut(cq.Compound.makeCompound(spheres))
    out: list[tuple[object, Colour]] = [(carved, style.body)]
    for colour, tools in groups.items():
        out.append((inset.intersect(cq.Compound.makeCompound(tools)), colour))
    return out, size


def die_meshes(style: DieStyle, seed: int) -> tuple[list[tuple[trimesh.Trimesh, Colour]], float]:
    from shutbox.cad.geometry.mesh import tessellate

    solids, size = _die_solids(style, 19.0, seed)
    return [(tessellate(s, 0.04, 12.0), c) for s, c in solids], size  # type: ignore[arg-type]


# --- VTK scene --------------------------------------------------------------------------------------------------

def _vtk():
    import vtkmodules.vtkRenderingOpenGL2  # noqa: F401
    from vtkmodules import vtkCommonCore, vtkCommonDataModel, vtkFiltersCore, vtkRenderingCore
    from vtkmodules.util import numpy_support

    vtkCommonCore.vtkLogger.SetStderrVerbosity(vtkCommonCore.vtkLogger.VERBOSITY_ERROR)
    vtkCommonCore.vtkObject.GlobalWarningDisplayOff()
    return vtkCommonCore, vtkCommonDataModel, vtkFiltersCore, vtkRenderingCore, numpy_support


def _polydata(vertices: np.ndarray, faces: np.ndarray, uv: np.ndarray | None = None):
    core, data, filters, _, ns = _vtk()
    points = core.vtkPoints()
    points.SetData(ns.numpy_to_vtk(np.ascontiguousarray(vertices, dtype=np.float64), deep=True))
    faces = np.asarray(faces, dtype=np.int64)
    offsets = np.arange(0, 3 * len(faces) + 1, 3, dtype=np.int64)
    cells = data.vtkCellArray()
    cells.SetData(ns.numpy_to_vtkIdTypeArray(offsets, deep=True),
                  ns.numpy_to_vtkIdTypeArray(faces.ravel().copy(), deep=True))
    poly = data.vtkPolyData()
    poly.SetPoints(points)
    poly.SetPolys(cells)
    if uv is not None:
        poly.GetPointData().SetTCoords(ns.numpy_to_vtk(np.ascontiguousarray(uv, dtype=np.float32), deep=True))
        return poly
    normals = filters.vtkPolyDataNormals()
    normals.SetInputData(poly)
    normals.SetFeatureAngle(30.0)
    normals.SplittingOn()
    normals.ConsistencyOn()
    normals.Update()
    return normals.GetOutput()


def _actor(poly, colour: Colour, specular: float):
    rendering = _vtk()[3]
    mapper = rendering.vtkPolyDataMapper()
    mapper.SetInputData(poly)
    actor = rendering.vtkActor()
    actor.SetMapper(mapper)
    prop = actor.GetProperty()
    prop.SetColor(*[c / 255 for c in colour])
    prop.SetAmbient(0.25)
    prop.SetDiffuse(0.8)
    prop.SetSpecular(specular)
    prop.SetSpecularPower(30)
    return actor


def table_texture(rng: np.random.Generator, colour: Colour, kind: str, size: int = 512) -> np.ndarray:
    """An RGB table surface: wood grain, felt or cloth noise, or plain with faint mottling."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    low = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), size / 16)
    low /= max(float(np.abs(low).max()), 1e-6)
    fine = rng.normal(0, 1, (size, size)).astype(np.float32)
    if "wood" in kind:
        angle = rng.uniform(0, math.pi)
        t = x * math.cos(angle) + y * math.sin(angle)
        grain = np.sin(2 * math.pi * (t * rng.uniform(12, 30) + 1.5 * low))
        shade = 1 + 0.12 * grain + 0.06 * low + 0.03 * fine
    elif "felt" in kind or "cloth" in kind:
        shade = 1 + 0.05 * low + 0.07 * cv2.GaussianBlur(fine, (0, 0), 0.8)
    else:
        shade = 1 + 0.06 * low + 0.02 * fine
    rgb = np.clip(np.asarray(colour, np.float32)[None, None, :] * shade[..., None], 0, 255)
    return rgb.astype(np.uint8)


@dataclass
class Placed:
    style: DieStyle
    value: int
    x: float
    y: float
    yaw: float
    size: float


def _up_rotation(value: int) -> np.ndarray:
    """A rotation taking face ``value``'s normal to +z."""
    from shutbox.cad.geometry.dice import FACES

    n = np.asarray(FACES[value], dtype=float)
    z = np.array([0.0, 0.0, 1.0])
    if np.allclose(n, z):
        return np.eye(3)
    if np.allclose(n, -z):
        return np.diag([1.0, -1.0, -1.0])
    axis = np.cross(n, z)
    axis /= np.linalg.norm(axis)
    return trimesh.transformations.rotation_matrix(math.pi / 2, axis)[:3, :3]


def _yaw(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def place_dice(rng: np.random.Generator, styles: list[DieStyle], sizes: list[float], touching: float
               ) -> list[Placed]:
    """Dice resting flat on the table, apart (no overlap) or face to face."""
    placed: list[Placed] = []
    for style, size in zip(styles, sizes, strict=True):
        value = int(rng.integers(1, 7))
        for _ in range(400):
            if placed and rng.random() < touching:
                other = placed[int(rng.integers(len(placed)))]
                yaw = other.yaw + rng.uniform(-0.03, 0.03)
                side = int(rng.integers(4)) * math.pi / 2 + other.yaw
                reach = (other.size + size) / 2 + 0.15
                slide = rng.uniform(-0.45, 0.45) * min(size, other.size)
                x = other.x + reach * math.cos(side) - slide * math.sin(side)
                y = other.y + reach * math.sin(side) + slide * math.cos(side)
            else:
                yaw = rng.uniform(0, 2 * math.pi)
                x, y = rng.uniform(-45, 45), rng.uniform(-32, 32)
            if all(_apart(p, x, y, yaw, size) for p in placed):
                placed.append(Placed(style, value, x, y, yaw, size))
                break
    return placed


def _apart(p: Placed, x: float, y: float, yaw: float, size: float) -> bool:
    """Do two dice's footprints not overlap (separating axes of the two squares)?"""
    def corners(cx: float, cy: float, a: float, s: float) -> np.ndarray:
        h = s / 2
        local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        return local @ _yaw(a)[:2, :2].T + [cx, cy]

    a, b = corners(p.x, p.y, p.yaw, p.size), corners(x, y, yaw, size)
    for angle in (p.yaw, p.yaw + math.pi / 2, yaw, yaw + math.pi / 2):
        axis = np.array([math.cos(angle), math.sin(angle)])
        pa, pb = a @ axis, b @ axis
        if pa.max() <= pb.min() + 0.05 or pb.max() <= pa.min() + 0.05:
            return True
    return False


def render_scene(dice: list[Placed], meshes: dict[str, tuple[list[tuple[trimesh.Trimesh, Colour]], float]],
                 rng: np.random.Generator, size: tuple[int, int], table: tuple[str, Colour] | None,
                 elevation: tuple[float, float], where: list | None = None
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """RGB and alpha of the scene seen from a random camera above it (alpha: the dice alone, no table), or
    None when a die would not be wholly inside the frame. ``where`` (when given) gets each die's value, its top
    face's middle and side, and its side faces' middles, in the picture's pixels (``_top_in_picture``)."""
    _, _, _, rendering, ns = _vtk()
    width, height = size
    renderer = rendering.vtkRenderer()
    renderer.SetBackground(0, 0, 0)
    renderer.SetBackgroundAlpha(0.0)
    for d in dice:
        parts, _ = meshes[d.style.name]
        turn = _yaw(d.yaw) @ _up_rotation(d.value)
        for mesh, colour in parts:
            verts = mesh.vertices @ turn.T + [d.x, d.y, d.size / 2]
            spec = 0.35 if d.style.model != "kit" else 0.12
            renderer.AddActor(_actor(_polydata(verts, mesh.faces), colour, spec))
    if table is not None:
        kind, colour = table
        texture_rgb = table_texture(rng, colour, kind)
        half = 250.0
        verts = np.array([[-half, -half, 0], [half, -half, 0], [half, half, 0], [-half, half, 0]], float)
        uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
        poly = _polydata(verts, np.array([[0, 1, 2], [0, 2, 3]]), uv)
        image = _vtk()[1].vtkImageData()
        image.SetDimensions(texture_rgb.shape[1], texture_rgb.shape[0], 1)
        image.GetPointData().SetScalars(ns.numpy_to_vtk(texture_rgb.reshape(-1, 3), deep=True))
        tex = rendering.vtkTexture()
        tex.SetInputData(image)
        tex.InterpolateOn()
        actor = _actor(poly, (255, 255, 255), 0.05)
        actor.SetTexture(tex)
        renderer.AddActor(actor)
    renderer.RemoveAllLights()
    key_el, key_az = math.radians(rng.uniform(30, 85)), rng.uniform(0, 2 * math.pi)
    key = rendering.vtkLight()
    key.SetLightTypeToSceneLight()
    key.SetPosition(math.cos(key_el) * math.cos(key_az), math.cos(key_el) * math.sin(key_az), math.sin(key_el))
    key.SetFocalPoint(0, 0, 0)
    key.SetPositional(False)
    key.SetIntensity(rng.uniform(0.55, 0.95))
    tint = rng.uniform(-0.06, 0.06)
    key.SetColor(1 + tint, 1, 1 - tint)
    renderer.AddLight(key)
    fill = rendering.vtkLight()
    fill.SetLightTypeToHeadlight()
    fill.SetIntensity(rng.uniform(0.25, 0.5))
    renderer.AddLight(fill)
    # camera: looking at the dice's middle from above, far enough that every die is well inside the frame
    xs = np.array([d.x for d in dice] or [0.0])
    ys = np.array([d.y for d in dice] or [0.0])
    cx, cy = float(xs.mean()), float(ys.mean())
    spread = float(max(np.ptp(xs), np.ptp(ys))) + 40.0
    el = math.radians(rng.uniform(*elevation))
    az = rng.uniform(0, 2 * math.pi)
    view_angle = rng.uniform(32, 50)
    across = max(spread * rng.uniform(1.1, 1.6), 95.0)
    distance = across / 2 / math.tan(math.radians(view_angle) / 2) * max(1.0, width / height) ** -0.3
    camera = renderer.GetActiveCamera()
    camera.SetViewAngle(view_angle * min(1.0, height / width) ** 0.0)
    camera.SetFocalPoint(cx, cy, 8.0)
    camera.SetPosition(cx + distance * math.cos(el) * math.cos(az), cy + distance * math.cos(el) * math.sin(az),
                       8.0 + distance * math.sin(el))
    camera.SetViewUp(-math.cos(az), -math.sin(az), 0.0) if el < math.radians(89) else camera.SetViewUp(0, 1, 0)
    camera.Roll(rng.uniform(-20, 20))
    renderer.ResetCameraClippingRange()
    window = _window()
    window.AddRenderer(renderer)
    window.SetSize(width * SUPERSAMPLE, height * SUPERSAMPLE)
    inside = all(_on_screen(renderer, d, width * SUPERSAMPLE, height * SUPERSAMPLE) for d in dice)
    if not inside:
        window.RemoveRenderer(renderer)
        return None
    window.Render()
    if where is not None:
        where[:] = [_top_in_picture(renderer, d, height * SUPERSAMPLE) for d in dice]
    grab = rendering.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.SetInputBufferTypeToRGBA()
    grab.ReadFrontBufferOff()
    grab.Update()
    out = grab.GetOutput()
    w, h, _ = out.GetDimensions()
    pixels = ns.vtk_to_numpy(out.GetPointData().GetScalars()).reshape(h, w, -1)[::-1]
    window.RemoveRenderer(renderer)
    small = cv2.resize(np.ascontiguousarray(pixels), (width, height), interpolation=cv2.INTER_AREA)
    return small[..., :3], small[..., 3]


_WINDOW: list[Any] = []


def _window() -> Any:
    if not _WINDOW:
        rendering = _vtk()[3]
        window = rendering.vtkRenderWindow()
        window.SetOffScreenRendering(1)
        window.SetMultiSamples(0)
        window.SetAlphaBitPlanes(1)
        _WINDOW.append(window)
    return _WINDOW[0]


def _top_in_picture(renderer, d: Placed, height: int) -> tuple:
    """The die's value, its top face's middle (x, y) and the longer diagonal of the face over the square root of two,
    and the middles of its side faces turned to the camera, in the output picture's pixels (the display is SUPERSAMPLE
    times larger and counts y up)."""
    def seen(x: float, y: float, z: float) -> tuple[float, float]:
        renderer.SetWorldPoint(float(x), float(y), float(z), 1.0)
        renderer.WorldToDisplay()
        px, py, _ = renderer.GetDisplayPoint()
        return px / SUPERSAMPLE, (height - py) / SUPERSAMPLE

    h = d.size / 2
    turn = _yaw(d.yaw)[:2, :2]
    corners = []
    for cx, cy in ((-h, -h), (h, h), (-h, h), (h, -h)):
        x, y = np.array([cx, cy]) @ turn.T + [d.x, d.y]
        corners.append(seen(x, y, d.size))
    side = max(math.dist(corners[0], corners[1]), math.dist(corners[2], corners[3])) / math.sqrt(2)
    eye = np.asarray(renderer.GetActiveCamera().GetPosition())
    sides = []
    for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        normal = np.array([nx, ny]) @ turn.T
        middle = np.array([d.x, d.y, h]) + [*(normal * h), 0.0]
        if float(np.dot([*normal, 0.0], eye - middle)) > 0:
            sides.append(seen(*middle))
    return (d.value, *seen(d.x, d.y, d.size), side, sides)


def _on_screen(renderer, d: Placed, width: int, height: int) -> bool:
    """Are the die's eight corners inside the frame, a margin from its border?"""
    h = d.size / 2
    margin = 0.04 * width
    for cx in (-h, h):
        for cy in (-h, h):
            for z in (0.0, d.size):
                x, y = np.array([cx, cy]) @ _yaw(d.yaw)[:2, :2].T + [d.x, d.y]
                renderer.SetWorldPoint(float(x), float(y), z, 1.0)
                renderer.WorldToDisplay()
                px, py, _ = renderer.GetDisplayPoint()
                if not (margin < px < width - margin and margin < py < height - margin):
                    return False
    return True


# --- post-processing --------------------------------------------------------------------------------------------

def camera_look(rgb: np.ndarray, rng: np.random.Generator, blur: float, noise: float) -> np.ndarray:
    img = rgb.astype(np.float32)
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if noise > 0:
        img += rng.normal(0, noise, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def save_jpeg(rgb: np.ndarray, path: Path, quality: int) -> None:
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    path.write_bytes(data.tobytes())


def photo_table(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A photo-like table: a texture larger than the frame, with uneven light and a colour cast."""
    kind, colour = TABLES[int(rng.integers(len(TABLES)))]
    width, height = size
    big = table_texture(rng, colour, kind, 1024)
    if rng.random() < 0.3:  # tiles or planks: dark seams
        step = int(rng.integers(120, 300))
        big[::step, :] = (big[::step, :] * 0.4).astype(np.uint8)
        big[:, ::step] = (big[:, ::step] * 0.4).astype(np.uint8)
    x0, y0 = int(rng.integers(0, 1024 - width)), int(rng.integers(0, 1024 - height))
    img = big[y0:y0 + height, x0:x0 + width].astype(np.float32)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    gx, gy = rng.uniform(0, width), rng.uniform(0, height)
    light = 1.15 - 0.45 * np.hypot(xx - gx, yy - gy) / math.hypot(width, height)
    img *= light[..., None]
    return np.clip(img, 0, 255)


def composite(rgb: np.ndarray, alpha: np.ndarray, rng: np.random.Generator,
              where: list | None = None) -> np.ndarray:
    """Dice (rgb, alpha) laid on a photo-like table with a soft shadow, glare, warp, noise (``where``: the dice's top
    faces, moved by the warp)."""
    height, width = alpha.shape
    base = photo_table(rng, (width, height))
    a = alpha.astype(np.float32) / 255
    shift = rng.uniform(-12, 12, 2)
    m = np.array([[1, 0, shift[0]], [0, 1, shift[1]]], dtype=np.float32)
    shadow = cv2.warpAffine(cv2.GaussianBlur(a, (0, 0), rng.uniform(4, 10)), m, (width, height))
    base *= (1 - rng.uniform(0.35, 0.6) * shadow)[..., None]
    img = base * (1 - a[..., None]) + rgb.astype(np.float32) * a[..., None]
    tint = rng.uniform(0.88, 1.12, 3).astype(np.float32)
    img *= tint
    if rng.random() < 0.6:  # glare: a bright soft spot from a lamp
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        gx, gy, r = rng.uniform(0, width), rng.uniform(0, height), rng.uniform(8, 40)
        img += (rng.uniform(60, 140) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r)))[..., None]
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    jitter = rng.uniform(-0.06, 0.06, (4, 2)).astype(np.float32) * [width, height]
    warp = cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32))
    img = cv2.warpPerspective(img, warp, (width, height), borderMode=cv2.BORDER_REFLECT)
    if where:
        def moved(points: list) -> list[tuple[float, float]]:
            if not points:
                return []
            out = cv2.perspectiveTransform(np.array([points], np.float32), warp)[0]
            return [(float(x), float(y)) for x, y in out]

        where[:] = [(v, *moved([(x, y)])[0], s, moved(sides)) for v, x, y, s, sides in where]
    if rng.random() < 0.5:  # a phone's smaller sensor: down and up again
        f = rng.uniform(0.6, 0.85)
        img = cv2.resize(cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), (width, height))
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.2))
    img += rng.normal(0, rng.uniform(3, 9), img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


# --- the set ----------------------------------------------------------------------------------------------------

def how_many(rng: np.random.Generator) -> int:
    return int(rng.choice([0, 1, 2, 2, 2, 2, 2, 3, 3, 4], p=None))


def one_image(seed: int, meshes: dict, kind: str, where: list | None = None
              ) -> tuple[np.ndarray, list[int], dict]:
    """One picture, its dice's values (sorted) and how it was made; ``where`` gets the top faces in the picture."""
    rng = np.random.default_rng(seed)
    n = how_many(rng) if seed % 25 else 0
    mixed = rng.random() < 0.25
    first = STYLES[int(rng.integers(len(STYLES)))]
    styles = [STYLES[int(rng.integers(len(STYLES)))] if mixed else first for _ in range(n)]
    height = int(rng.choice([360, 420, 480]))
    for _ in range(30):
        dice = place_dice(rng, styles, [meshes[s.name][1] for s in styles], touching=0.35)
        table = TABLES[int(rng.integers(len(TABLES)))] if kind == "render" else None
        scene = render_scene(dice, meshes, rng, (WIDTH, height), table, (50, 90) if table else (55, 90), where)
        if scene is not None:
            rgb, alpha = scene
            break
    else:
        raise RuntimeError(f"seed {seed}: no camera shows every die")
    if kind == "render":
        blur = float(rng.choice([0.0, 0.0, rng.uniform(0.3, 1.4)]))
        img = camera_look(rgb, rng, blur, float(rng.uniform(0, 6)))
        quality = int(rng.integers(60, 93))
    else:
        img = composite(rgb, alpha, rng, where)
        quality = int(rng.integers(35, 75))
    info = {"seed": seed, "styles": sorted({s.name for s in styles}), "quality": quality,
            "touching": _touching(dice)}
    info["quality"] = quality
    return img, sorted(d.value for d in dice), info


def _touching(dice: list[Placed]) -> bool:
    return any(math.hypot(a.x - b.x, a.y - b.y) < (a.size + b.size) / 2 * 1.2
               for i, a in enumerate(dice) for b in dice[i + 1:])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--renders", type=int, default=640)
    p.add_argument("--composites", type=int, default=60)
    p.add_argument("--out", type=Path, default=HERE)
    p.add_argument("--seed", type=int, default=0, help="first seed (another seed: a set to tune on, not to judge)")
    args = p.parse_args(argv)
    meshes = {s.name: die_meshes(s, 1000 + i) for i, s in enumerate(STYLES)}
    labels: dict[str, dict] = {}
    for kind, count, offset in (("render", args.renders, args.seed),
                                ("composite", args.composites, args.seed + 100000)):
        folder = args.out / kind
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(count):
            img, values, info = one_image(offset + i, meshes, kind)
            name = f"{kind}/{i:04d}.jpg"
            save_jpeg(img, args.out / name, info.pop("quality"))
            labels[name] = {"dice": values, **info}
            if i % 50 == 0:
                print(f"{name}", file=sys.stderr, flush=True)
    (args.out / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
