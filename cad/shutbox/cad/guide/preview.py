"""PNG previews rendered headless with VTK (offscreen OpenGL): single parts, the assembly, its
underside with the cover off, the split pieces pulled apart, and a close-up of one tile open and
one shut.

Each mesh is drawn smooth-shaded with its sharp edges (over 25 degrees) traced in a darker
shade of its colour, which keeps engraved numbers legible at any size. Images are rendered at twice
their size and scaled down (anti-aliasing that works without multisampling).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import cadquery as cq
    import trimesh

    from shutbox.cad.geometry.layout import Layout

BACKGROUND = (0.97, 0.97, 0.955)
EDGE_ANGLE = 25.0  # degrees between faces for an edge to be drawn (the finger scoop's rim is 27)
SMOOTH_ANGLE = 12.0  # faces meeting at more than this are shaded apart (keeps flat faces flat beside a curve)
SUPERSAMPLE = 2
Colour = tuple[int, int, int]


def _vtk() -> Any:
    """The VTK modules the renderer uses, loaded on first use (with the OpenGL back end, quietly)."""
    import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (registers the OpenGL render window)
    from vtkmodules import vtkCommonCore, vtkCommonDataModel, vtkFiltersCore, vtkRenderingCore
    from vtkmodules.util import numpy_support

    vtkCommonCore.vtkLogger.SetStderrVerbosity(vtkCommonCore.vtkLogger.VERBOSITY_ERROR)
    vtkCommonCore.vtkObject.GlobalWarningDisplayOff()
    return vtkCommonCore, vtkCommonDataModel, vtkFiltersCore, vtkRenderingCore, numpy_support


def _polydata(mesh: trimesh.Trimesh) -> Any:
    core, data, _, _, ns = _vtk()
    points = core.vtkPoints()
    points.SetData(ns.numpy_to_vtk(np.ascontiguousarray(mesh.vertices, dtype=np.float64), deep=True))
    faces = np.asarray(mesh.faces, dtype=np.int64)
    offsets = np.arange(0, 3 * len(faces) + 1, 3, dtype=np.int64)
    cells = data.vtkCellArray()
    cells.SetData(ns.numpy_to_vtkIdTypeArray(offsets, deep=True),
                  ns.numpy_to_vtkIdTypeArray(faces.ravel().copy(), deep=True))
    poly = data.vtkPolyData()
    poly.SetPoints(points)
    poly.SetPolys(cells)
    return poly


def _actors(mesh: trimesh.Trimesh, colour: Colour) -> list[Any]:
    """A shaded surface and its sharp edges for one mesh."""
    _, _, filters, rendering, _ = _vtk()
    poly = _polydata(mesh)
    normals = filters.vtkPolyDataNormals()
    normals.SetInputData(poly)
    normals.SetFeatureAngle(SMOOTH_ANGLE)
    normals.SplittingOn()
    normals.ConsistencyOn()
    normals.Update()
    surface = rendering.vtkPolyDataMapper()
    surface.SetInputConnection(normals.GetOutputPort())
    surface.SetResolveCoincidentTopologyToPolygonOffset()
    body = rendering.vtkActor()
    body.SetMapper(surface)
    rgb = [c / 255 for c in colour]
    prop = body.GetProperty()
    prop.SetColor(*rgb)
    prop.SetAmbient(0.3)
    prop.SetDiffuse(0.75)
    prop.SetSpecular(0.12)
    prop.SetSpecularPower(20)
    edges = filters.vtkFeatureEdges()
    edges.SetInputData(poly)
    edges.SetFeatureAngle(EDGE_ANGLE)
    edges.BoundaryEdgesOn()
    edges.FeatureEdgesOn()
    edges.NonManifoldEdgesOff()
    edges.ManifoldEdgesOff()
    edges.ColoringOff()
    lines = rendering.vtkPolyDataMapper()
    lines.SetInputConnection(edges.GetOutputPort())
    lines.ScalarVisibilityOff()
    outline = rendering.vtkActor()
    outline.SetMapper(lines)
    outline.GetProperty().SetColor(*[c * 0.35 for c in rgb])
    outline.GetProperty().SetLineWidth(1.6 * SUPERSAMPLE / 2)
    outline.GetProperty().LightingOff()
    return [body, outline]


@cache
def _window() -> Any:
    """One offscreen render window (an OpenGL context) for every picture of the process."""
    rendering = _vtk()[3]
    window = rendering.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetMultiSamples(0)
    return window


def _direction(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """Unit vector from the scene towards the viewer; azimuth 0 looks from the front (-y), +90 from +x."""
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    return np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])


def render(meshes: Sequence[tuple[trimesh.Trimesh, Colour]], path: Path, size: int | tuple[int, int] = 900,
           azimuth: float = -30.0, elevation: float = 35.0, margin: float = 0.06,
           focus: tuple[Sequence[float], Sequence[float]] | None = None) -> None:
    """Draw coloured meshes (in one frame) into a PNG at ``path``, the camera framing ``focus`` (a box's low
    and high corners) or else the meshes themselves. ``size``: ``(width, height)``, or the longer side with
    the other following the picture's shape (a long part gets a wide, low image)."""
    from PIL import Image

    _, _, _, rendering, ns = _vtk()
    eye = _direction(azimuth, elevation)
    up = np.array([0.0, 0.0, 1.0]) if abs(eye[2]) < 0.99 else np.array([0.0, 1.0, 0.0])
    right = np.cross(up, eye)
    right /= np.linalg.norm(right)
    screen_up = np.cross(eye, right)
    if focus is None:
        points = np.vstack([m.vertices for m, _ in meshes])
    else:
        lo, hi = (np.asarray(v, dtype=float) for v in focus)
        points = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    across, upward = points @ right, points @ screen_up
    half_w = float(np.ptp(across)) / 2
    half_h = float(np.ptp(upward)) / 2
    centre = right * (across.min() + across.max()) / 2 + screen_up * (upward.min() + upward.max()) / 2
    centre += eye * float(np.mean(points @ eye))
    if isinstance(size, int):
        shape = min(max(half_h / max(half_w, 1e-9), 0.35), 1 / 0.35)
        width, height = (size, max(1, round(size * shape))) if shape <= 1 else (max(1, round(size / shape)), size)
    else:
        width, height = size
    renderer = rendering.vtkRenderer()
    renderer.SetBackground(*BACKGROUND)
    for mesh, colour in meshes:
        for actor in _actors(mesh, colour):
            renderer.AddActor(actor)
    # Key light from the back left, above: seen from the front, light falls from the top of the picture, so
    # dimples read as dimples; a softer fill from the right; a headlight so no face turned to us is black.
    renderer.RemoveAllLights()
    for position, intensity in (((-1.0, 1.0, 2.0), 0.55), ((1.5, -1.0, 0.8), 0.35), (None, 0.55)):
        light = rendering.vtkLight()
        if position is None:
            light.SetLightTypeToHeadlight()
        else:
            light.SetLightTypeToSceneLight()
            light.SetPosition(*position)
            light.SetFocalPoint(0, 0, 0)
            light.SetPositional(False)
        light.SetIntensity(intensity)
        renderer.AddLight(light)
    camera = renderer.GetActiveCamera()
    camera.ParallelProjectionOn()
    camera.SetFocalPoint(*centre)
    camera.SetPosition(*(centre + eye * float(np.ptp(points, axis=0).max() + 1.0) * 2))
    camera.SetViewUp(*up)
    camera.SetParallelScale(max(half_h, half_w * height / width) * (1 + 2 * margin))
    renderer.ResetCameraClippingRange()
    window = _window()
    window.AddRenderer(renderer)
    window.SetSize(width * SUPERSAMPLE, height * SUPERSAMPLE)
    window.Render()
    grab = rendering.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.SetInputBufferTypeToRGB()
    grab.ReadFrontBufferOff()
    grab.Update()
    image = grab.GetOutput()
    w, h, _ = image.GetDimensions()
    pixels = ns.vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3]
    window.RemoveRenderer(renderer)
    picture = Image.fromarray(np.ascontiguousarray(pixels)).resize((width, height), Image.Resampling.LANCZOS)
    picture.save(path)


# --- the kit's views ------------------------------------------------------------------------------

Placed = Sequence[tuple[str, Any, "cq.Shape"]]  # (label, part spec, solid in the box frame)
VIEW_CHORD = 0.15  # mm, the kit views' meshes (the close-up uses CLOSE_CHORD)
CLOSE_CHORD = 0.05


def mesh_of(shape: cq.Shape, chord: float) -> trimesh.Trimesh:
    from shutbox.cad.geometry.mesh import tessellate

    return tessellate(shape, chord, 20.0)


class Scene:
    """The placed solids of a kit, each meshed once for all the views that show it."""

    def __init__(self, placed: Placed, lay: Layout) -> None:
        self.placed, self.lay = placed, lay
        self._meshes: dict[str, trimesh.Trimesh] = {}

    def mesh(self, label: str, solid: cq.Shape) -> trimesh.Trimesh:
        if label not in self._meshes:
            self._meshes[label] = mesh_of(solid, VIEW_CHORD)
        return self._meshes[label]


def _shifted(mesh: trimesh.Trimesh, dx: float = 0.0, dy: float = 0.0, dz: float = 0.0) -> trimesh.Trimesh:
    moved = mesh.copy()
    moved.apply_translation((dx, dy, dz))
    return moved


def shut_tiles(lay: Layout) -> set[int]:
    """Tiles drawn shut in the assembly preview (a game under way): the first and the middle one."""
    return {1, (lay.tiles + 1) // 2}


def _tile_number(label: str) -> int:
    return int(label.split("-")[1])


def assembly_view(scene: Scene, path: Path) -> None:
    """The kit as a player sees it: some tiles shut, dice in the tray (cover hidden underneath)."""
    lay = scene.lay
    shut = shut_tiles(lay)
    meshes = []
    for label, spec, solid in scene.placed:
        if spec.kind == "camera-mount":  # the box as played without the camera (camera_view shows it on)
            continue
        mesh = scene.mesh(label, solid)
        if spec.kind == "tile" and _tile_number(label) in shut:
            mesh = _shifted(mesh, dy=lay.tile_y(True) - lay.tile_y(False))
        meshes.append((mesh, spec.colour))
    render(meshes, path, (1200, 900), azimuth=-25, elevation=42, margin=0.03)


def underside_view(scene: Scene, path: Path) -> None:
    """The box turned over (about its long axis) with the cover lifted off: reed switch shafts, wire
    channels and the board bay, framed on the deck."""
    lay = scene.lay
    turn = np.diag([1.0, -1.0, -1.0, 1.0])  # half a turn about the x axis ...
    turn[1:3, 3] = (lay.width, lay.height)  # ... through the box's middle
    meshes = []
    for label, spec, solid in scene.placed:
        if spec.kind == "box":
            turned = scene.mesh(label, solid).copy()
            turned.apply_transform(turn)
            meshes.append((turned, spec.colour))
        elif spec.kind == "cover":  # beside the bay, pins up as when printed
            oy = lay.cover_origin[1]
            meshes.append((_shifted(scene.mesh(label, solid), dy=-lay.cover_size[1] - 12.0 - oy, dz=lay.height),
                           spec.colour))
    # Turned over, the deck (at the back) is at the front: frame the last lanes' shafts and the bay.
    x0 = lay.lane_x(max(1, lay.tiles - 3)) - lay.pitch / 2
    far = lay.width - lay.switch_y + 15.0
    focus = ((x0, -lay.cover_size[1] - 15.0, lay.height - 5.0), (lay.length, far, lay.height + 8.0))
    render(meshes, path, (1200, 800), azimuth=-20, elevation=55, margin=0.02, focus=focus)


def exploded_view(scene: Scene, path: Path, gap: float = 40.0) -> None:
    """The box pieces pulled apart along their cuts, showing the dovetail keys and their pockets; each gate
    is lifted out of its pocket above the piece it sits in."""
    boxes = [(spec, scene.mesh(label, solid)) for label, spec, solid in scene.placed if spec.kind == "box"]
    starts = sorted({spec.inputs["span_x"][0] for spec, _ in boxes})
    centres = {spec.name: mesh.bounds.mean(axis=0) for spec, mesh in boxes}

    def column(spec: Any) -> int:
        x0, x1 = spec.inputs["span_x"]
        return sum(start <= (x0 + x1) / 2 for start in starts) - 1

    offsets = {}
    for spec, _ in boxes:
        col = column(spec)
        row = sum(column(other) == col and centres[other.name][1] < centres[spec.name][1] - 1.0 for other, _ in boxes)
        offsets[spec.name] = (gap * col, gap * row, 0.0)
    meshes = []
    for label, spec, solid in scene.placed:
        if spec.kind == "box":
            dx, dy, dz = offsets[spec.name]
        elif spec.kind == "gate":
            c = scene.mesh(label, solid).bounds.mean(axis=0)
            host = min(boxes, key=lambda b: float(np.hypot(*(centres[b[0].name][:2] - c[:2]))))
            dx, dy, _ = offsets[host[0].name]
            dz = gap * 0.75
        else:
            continue
        meshes.append((_shifted(scene.mesh(label, solid), dx, dy, dz), spec.colour))
    render(meshes, path, (1200, 800), azimuth=30, elevation=38, margin=0.03)  # from the right: the keys face us


def tiles_view(scene: Scene, path: Path) -> None:
    """Close-up of lanes 1 and 2: tile 1 shut (its number on top), tile 2 open (the lane's number shows)."""
    import cadquery as cq

    lay = scene.lay
    x0 = lay.lane_x(1) - lay.pitch / 2 - lay.wall
    x1 = lay.lane_x(2) + lay.pitch / 2
    y0 = lay.deck_front - 12.0
    window = cq.Solid.makeBox(x1 - x0, lay.width - y0, lay.height + 2, cq.Vector(x0, y0, -1))
    meshes = []
    for label, spec, solid in scene.placed:
        bb = solid.BoundingBox()
        if bb.xmax < x0 or bb.xmin > x1:
            continue
        if spec.kind in ("box", "gate"):
            meshes.append((mesh_of(solid.intersect(window), CLOSE_CHORD), spec.colour))
        elif spec.kind == "tile" and _tile_number(label) in (1, 2):
            mesh = mesh_of(solid, CLOSE_CHORD)
            if _tile_number(label) == 1:  # shut
                mesh = _shifted(mesh, dy=lay.tile_y(True) - lay.tile_y(False))
            meshes.append((mesh, spec.colour))
    render(meshes, path, (1000, 800), azimuth=-18, elevation=58, margin=0.03)


def camera_view(scene: Scene, path: Path) -> None:
    """The camera mount clipped onto the front wall, its shelf over the tray, seen from the front and the side."""
    meshes = [(scene.mesh(label, solid), spec.colour) for label, spec, solid in scene.placed
              if spec.kind in ("box", "gate", "die", "camera-mount")]
    render(meshes, path, (1000, 900), azimuth=-35, elevation=20, margin=0.03)


#: Kit previews: file name -> (what it shows, how it is drawn).
VIEWS = {
    "assembly.png": ("the assembled kit, two tiles shut", assembly_view),
    "underside.png": ("the underside with the electronics cover off", underside_view),
    "exploded.png": ("the box pieces pulled apart at their dovetail joints", exploded_view),
    "tiles.png": ("tile 1 shut and tile 2 open", tiles_view),
    "camera-over-tray.png": ("the camera mount on the box, its shelf over the tray", camera_view),
}


def kit_preview_names(lay: Layout, split: bool) -> list[str]:
    """The file names :func:`kit_previews` writes for a kit (the exploded view only for a split box; with sensors,
    the underside and the wiring diagram, with reed switches how to bend one), then the guide's plan drawings."""
    from shutbox.cad.guide.figures import figure_names

    views = [name for name in VIEWS if not ((name == "exploded.png" and not split)
                                            or (name == "underside.png" and not lay.sensors))]
    reeds = lay.sensors and lay.kit.sensors.magnets
    return views + (["wiring.png"] if lay.sensors else []) + (["reed-leads.png"] if reeds else []) + figure_names(lay)


def kit_previews(placed: Placed, lay: Layout, folder: Path, split: bool) -> list[str]:
    """Write the kit's views into ``folder``; return their file names (:func:`kit_preview_names`)."""
    scene = Scene(placed, lay)
    names = kit_preview_names(lay, split)
    for name, (_, view) in VIEWS.items():
        if name in names:
            view(scene, folder / name)
    if lay.sensors:
        from shutbox.cad.guide.howto import reed_bending
        from shutbox.firmware.host.plan import pin_map
        from shutbox.firmware.host.wiring_drawing import draw_wiring

        draw_wiring(pin_map(lay.kit)).save(folder / "wiring.png")
        if "reed-leads.png" in names:
            reed_bending(lay, folder / "reed-leads.png")
    from shutbox.cad.guide.figures import draw_figures

    draw_figures(lay, folder)
    return names
