"""PrusaSlicer project 3MFs, one per bed plate (``shutbox.cad.build.plates``): the plate's parts placed on the bed, the
plate's print configuration (``shutbox.cad.slicer.printprofile``) in ``Metadata/Slic3r_PE.config`` and each part's own
settings (layer height, perimeters, infill) as per-object settings in ``Metadata/Slic3r_PE_model.config``
(they differ between the parts of a plate: the dice are solid),
the two files PrusaSlicer reads back from a project it wrote.

Cheap by design: the meshes are the part files already written (binary STL, or the part's 3MF), welded
with numpy and placed by each build item's transform; nothing is sliced.
"""

from __future__ import annotations

import re
import struct
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import quoteattr

import numpy as np

from shutbox.base.errors import ShutboxError
from shutbox.cad.build.plates import Piece, Plate, plates
from shutbox.cad.checks.findings import Finding
from shutbox.cad.slicer.printprofile import plate_config

if TYPE_CHECKING:
    from shutbox.cad.geometry.parts import PartSpec

#: The per-object keys a project stores for every part (PrusaSlicer's names).
OBJECT_KEYS = ("layer_height", "perimeters", "fill_density", "fill_pattern")
CONFIG_FILE = "Metadata/Slic3r_PE.config"
MODEL_CONFIG_FILE = "Metadata/Slic3r_PE_model.config"
MODEL_FILE = "3D/3dmodel.model"
_STAMP = (1980, 1, 1, 0, 0, 0)  # fixed member dates: the same kit writes the same bytes

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>'
    '</Types>\n')
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Target="/3D/3dmodel.model" Id="rel-1" '
    'Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>\n')


@dataclass(frozen=True)
class Mesh:
    """An indexed triangle mesh in the part file's own frame."""

    vertices: np.ndarray  # (n, 3) float
    triangles: np.ndarray  # (m, 3) int

    @property
    def lo(self) -> np.ndarray:
        return self.vertices.min(axis=0)

    @property
    def hi(self) -> np.ndarray:
        return self.vertices.max(axis=0)


def read_stl(path: Path) -> Mesh:
    """A binary STL, its corners welded where they coincide exactly (the kit's STLs are welded meshes)."""
    data = path.read_bytes()
    if len(data) < 84:
        raise ShutboxError(f"{path}: not a binary STL; allowed: an STL written by shutbox cad")
    (count,) = struct.unpack_from("<I", data, 80)
    if len(data) < 84 + 50 * count:
        raise ShutboxError(f"{path}: holds fewer triangles than it says; allowed: an STL written by shutbox cad")
    rows = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]),
                         count=count, offset=84)
    corners = rows["v"].reshape(-1, 3) + np.float32(0.0)  # -0.0 becomes 0.0: one bit pattern per point
    bits = corners.view(np.uint32)
    xy = (bits[:, 0].astype(np.uint64) << np.uint64(32)) | bits[:, 1].astype(np.uint64)
    order = np.lexsort((bits[:, 2], xy))  # equal points side by side (a sort of ints: fast)
    sxy, sz = xy[order], bits[order, 2]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (sxy[1:] != sxy[:-1]) | (sz[1:] != sz[:-1])
    index = np.empty(len(order), dtype=np.int64)
    index[order] = np.cumsum(first) - 1
    return Mesh(corners[order][first].astype(np.float64), index.reshape(-1, 3))


_VERTEX = re.compile(rb'<vertex\s+x="([^"]+)"\s+y="([^"]+)"\s+z="([^"]+)"')
_TRIANGLE = re.compile(rb'<triangle\s+v1="(\d+)"\s+v2="(\d+)"\s+v3="(\d+)"')


def read_3mf(path: Path) -> Mesh:
    """The one object of a part's 3MF (as ``shutbox cad`` writes it: one mesh, placed as built)."""
    with zipfile.ZipFile(path) as z:
        name = next((n for n in z.namelist() if n.endswith(".model")), None)
        if name is None:
            raise ShutboxError(f"{path}: no 3D model inside; allowed: a 3MF written by shutbox cad")
        text = z.read(name)
    vertices = np.array(_VERTEX.findall(text), dtype=np.float64)
    triangles = np.array(_TRIANGLE.findall(text), dtype=np.int64)
    if len(vertices) == 0 or len(triangles) == 0:
        raise ShutboxError(f"{path}: no mesh inside; allowed: a 3MF written by shutbox cad")
    return Mesh(vertices, triangles)


def read_part_mesh(folder: Path, files: dict[str, str]) -> Mesh:
    """A part's mesh from the files a build wrote for it (the STL, else its 3MF)."""
    if "stl" in files:
        return read_stl(folder / files["stl"])
    if "3mf" in files:
        return read_3mf(folder / files["3mf"])
    raise ShutboxError(f"{', '.join(files.values())}: no mesh to place; allowed: --formats with stl or 3mf")


def kit_plates(specs: Sequence[PartSpec], bed: tuple[float, float, float],
               footprints: dict[str, tuple[float, float]] | None = None) -> list[Plate]:
    """The kit's plates: from the planned sizes, or from ``footprints`` (each part's x, y extents as built)."""
    return plates([Piece(s.name, s.quantity, (footprints or {}).get(s.name, (s.size[0], s.size[1])),
                         s.print_settings.nozzle_mm) for s in specs], bed)


def _transform(mesh: Mesh, x: float, y: float, turned: bool) -> str:
    """The build item's 3MF transform (3 x 4, column by column) putting ``mesh`` with its footprint's lower-left
    corner at x, y on the bed, its bottom on the bed, turned 90 degrees counter-clockwise if asked."""
    lo, hi = mesh.lo, mesh.hi
    if turned:  # x' = -y, y' = x
        m = (0, 1, 0, -1, 0, 0, 0, 0, 1)
        t = (x + hi[1], y - lo[0], -lo[2])
    else:
        m = (1, 0, 0, 0, 1, 0, 0, 0, 1)
        t = (x - lo[0], y - lo[1], -lo[2])
    return " ".join([*(str(v) for v in m), *(f"{v:.6f}" for v in t)])


def _model_xml(objects: list[tuple[str, Mesh]], items: list[tuple[int, str]], title: str) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<model unit="millimeter" xml:lang="en-US" '
           'xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02" '
           'xmlns:slic3rpe="http://schemas.slic3r.org/3mf/2017/06">\n'
           ' <metadata name="slic3rpe:Version3mf">1</metadata>\n'
           f' <metadata name="Title">{title}</metadata>\n <metadata name="Application">shutbox cad</metadata>\n'
           ' <resources>\n']
    for i, (_name, mesh) in enumerate(objects, start=1):
        out.append(f'  <object id="{i}" type="model">\n   <mesh>\n    <vertices>\n')
        out += [f'     <vertex x="{x:.6g}" y="{y:.6g}" z="{z:.6g}"/>\n' for x, y, z in mesh.vertices.tolist()]
        out.append("    </vertices>\n    <triangles>\n")
        out += [f'     <triangle v1="{a}" v2="{b}" v3="{c}"/>\n' for a, b, c in mesh.triangles.tolist()]
        out.append("    </triangles>\n   </mesh>\n  </object>\n")
    out.append(" </resources>\n <build>\n")
    out += [f'  <item objectid="{i}" transform="{t}" printable="1"/>\n' for i, t in items]
    out.append(" </build>\n</model>\n")
    return "".join(out)


def _model_config_xml(objects: list[tuple[str, Mesh]], copies: dict[str, int],
                      own: dict[str, dict[str, str]]) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<config>\n']
    for i, (name, mesh) in enumerate(objects, start=1):
        out.append(f' <object id="{i}" instances_count="{copies[name]}">\n'
                   f'  <metadata type="object" key="name" value={quoteattr(name)}/>\n')
        out += [f'  <metadata type="object" key="{k}" value={quoteattr(v)}/>\n' for k, v in own[name].items()]
        out.append(f'  <volume firstid="0" lastid="{len(mesh.triangles) - 1}">\n'
                   f'   <metadata type="volume" key="name" value={quoteattr(name)}/>\n'
                   '   <metadata type="volume" key="volume_type" value="ModelPart"/>\n'
                   '   <metadata type="volume" key="matrix" value="1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1"/>\n'
                   '  </volume>\n </object>\n')
    out.append("</config>\n")
    return "".join(out)


def plate_settings(plate: Plate, specs: dict[str, PartSpec],
                   bed: tuple[float, float, float]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """A plate's print configuration (with its first, largest part's settings) and each part's per-object
    settings: all of ``OBJECT_KEYS``, also where they match the plate's, so that a print preset chosen
    later (Prusa's own, say) changes speeds and nozzle but leaves every part's layers and infill as the kit
    needs them."""
    first = specs[plate.placed[0].name].print_settings.object_config()
    config = {**plate_config(plate.nozzle_mm, bed), **first}
    own = {}
    for name in plate.parts:
        keys = specs[name].print_settings.object_config()
        own[name] = {k: keys[k] for k in OBJECT_KEYS}
    return config, own


def write_project(path: Path, plate: Plate, meshes: dict[str, Mesh], specs: dict[str, PartSpec],
                  bed: tuple[float, float, float]) -> None:
    """One plate's project 3MF at ``path``."""
    config, own = plate_settings(plate, specs, bed)
    objects = [(name, meshes[name]) for name in plate.parts]
    ids = {name: i for i, (name, _) in enumerate(objects, start=1)}
    items = [(ids[p.name], _transform(meshes[p.name], p.x, p.y, p.turned)) for p in plate.placed]
    copies = {name: sum(p.name == name for p in plate.placed) for name in plate.parts}
    title = f"shutbox plate {plate.number}: {', '.join(plate.parts)}"
    config_text = "; generated by shutbox cad\n\n" + "".join(f"; {k} = {v}\n" for k, v in sorted(config.items()))
    members = [("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _RELS),
               (MODEL_FILE, _model_xml(objects, items, title)), (CONFIG_FILE, config_text),
               (MODEL_CONFIG_FILE, _model_config_xml(objects, copies, own))]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, text in members:
            z.writestr(zipfile.ZipInfo(name, _STAMP), text, compress_type=zipfile.ZIP_DEFLATED, compresslevel=1)


def write_projects(folder: Path, parts: list[dict[str, Any]], specs: Sequence[PartSpec],
                   bed: tuple[float, float, float]) -> list[dict[str, Any]]:
    """Every plate's project 3MF into ``folder/project/`` from the part files the build wrote (``parts``: the
    manifest's entries); returns the manifest's ``plates``."""
    meshes = {p["name"]: read_part_mesh(folder, p["files"]) for p in parts}
    footprints = {name: (float(m.hi[0] - m.lo[0]), float(m.hi[1] - m.lo[1])) for name, m in meshes.items()}
    by_name = {s.name: s for s in specs}
    (folder / "project").mkdir(exist_ok=True)
    listed = []
    for plate in kit_plates(specs, bed, footprints):
        write_project(folder / plate.file, plate, meshes, by_name, bed)
        listed.append({"file": plate.file, "nozzle_mm": plate.nozzle_mm, "parts": plate.parts,
                       "objects": [{"part": p.name, "copy": p.copy, "x_mm": p.x, "y_mm": p.y,
                                    "size_mm": [round(v, 3) for v in p.size], "turned": p.turned}
                                   for p in plate.placed]})
    return listed



@dataclass(frozen=True)
class Project:
    """A project 3MF read back: each instance's name and bed-frame vertices, the print configuration and each
    object's own settings."""

    instances: list[tuple[str, np.ndarray]]
    config: dict[str, str]
    own: dict[str, dict[str, str]]


_OBJECT = re.compile(rb'<object\s+id="(\d+)"[^>]*>(.*?)</object>', re.S)
_ITEM = re.compile(rb'<item\s+objectid="(\d+)"(?:\s+transform="([^"]*)")?')


def read_project(path: Path) -> Project:
    """What PrusaSlicer reads from a project 3MF: the placed instances and the settings."""
    import xml.etree.ElementTree as ET

    with zipfile.ZipFile(path) as z:
        model = z.read(MODEL_FILE)
        model_config = ET.fromstring(z.read(MODEL_CONFIG_FILE))
        config_text = z.read(CONFIG_FILE).decode("utf-8")
    config = dict(line[2:].split(" = ", 1) for line in config_text.splitlines() if " = " in line)
    names: dict[str, str] = {}
    own: dict[str, dict[str, str]] = {}
    for obj in model_config.iter("object"):
        keys = {m.get("key", ""): m.get("value", "") for m in obj.findall("metadata")}
        names[obj.get("id", "")] = keys.pop("name", "")
        own[names[obj.get("id", "")]] = keys
    meshes = {int(i): np.array(_VERTEX.findall(body), dtype=np.float64).reshape(-1, 3)
              for i, body in _OBJECT.findall(model)}
    instances = []
    for objectid, transform in _ITEM.findall(model):
        m = np.array((transform or b"1 0 0 0 1 0 0 0 1 0 0 0").split(), dtype=np.float64).reshape(4, 3)
        instances.append((names.get(objectid.decode(), "?"), meshes[int(objectid)] @ m[:3] + m[3]))
    return Project(instances, config, own)


def check_projects(folder: Path, manifest: dict[str, Any], specs: Sequence[PartSpec]) -> list[Finding]:
    """``cad check`` of the project 3MFs: each plate's parts inside the bed and clear of each other, printed with
    its part's nozzle, layer height, perimeters and infill and no support; every copy of every part on a plate."""
    if not {"stl", "3mf"} & set(manifest.get("formats", [])):
        return []  # built without meshes (``--formats step``): no project files are written
    bed = tuple(manifest["bed_mm"])
    by_name = {s.name: s for s in specs}
    findings: list[Finding] = []
    count: dict[str, int] = {}
    for plate in manifest.get("plates", []):
        path = folder / plate["file"]
        try:
            project = read_project(path)
        except (OSError, KeyError, ValueError, zipfile.BadZipFile, SyntaxError) as exc:
            findings.append(Finding("plate", plate["file"], False, f"unreadable ({exc})"))
            continue
        boxes = [(name, v.min(axis=0), v.max(axis=0)) for name, v in project.instances]
        outside = [n for n, lo, hi in boxes if (lo[:2] < -1e-3).any() or hi[0] > bed[0] + 1e-3 or hi[1] > bed[1] + 1e-3
                   or abs(lo[2]) > 1e-3 or hi[2] > bed[2] + 1e-3]
        overlaps = [f"{a[0]} and {b[0]}" for i, a in enumerate(boxes) for b in boxes[i + 1:]
                    if (np.minimum(a[2][:2], b[2][:2]) - np.maximum(a[1][:2], b[1][:2]) > 1e-3).all()]
        findings.append(Finding("plate", plate["file"], not outside and not overlaps and bool(boxes),
                                f"{len(boxes)} objects on the {bed[0]:g} x {bed[1]:g} mm bed"
                                + (f"; outside it: {', '.join(outside)}" if outside else "")
                                + (f"; overlapping: {', '.join(overlaps)}" if overlaps else "")))
        wrong = []
        if project.config.get("support_material") != "0":
            wrong.append(f"support_material = {project.config.get('support_material')}")
        for name in dict.fromkeys(n for n, _ in project.instances):
            count[name] = count.get(name, 0) + sum(n == name for n, _ in project.instances)
            spec = by_name.get(name)
            if spec is None:
                wrong.append(f"{name}: not a part of this kit")
                continue
            want = spec.print_settings
            got = {**project.config, **project.own.get(name, {})}
            if got.get("nozzle_diameter") != f"{want.nozzle_mm:g}":
                wrong.append(f"{name}: nozzle {got.get('nozzle_diameter')} mm, wants {want.nozzle_mm:g}")
            wrong += [f"{name}: {k} = {got.get(k)}, wants {v}" for k, v in want.object_config().items()
                      if got.get(k) != v]
        findings.append(Finding("plate config", plate["file"], not wrong,
                                "; ".join(wrong) if wrong else "each part's nozzle, layer height, perimeters and "
                                "infill; no support"))
    missing = [f"{s.name} {count.get(s.name, 0)} of {s.quantity}" for s in specs if count.get(s.name, 0) != s.quantity]
    findings.append(Finding("plates", "project/", not missing,
                            f"every copy of every part on one of {len(manifest.get('plates', []))} plates"
                            + (f"; wrong counts: {', '.join(missing)}" if missing else "")))
    return findings
