"""Training material for the dice reader's networks (``tools/dice_train.py``): scenes, and what is cut from them.

A :class:`Scene` is a grey picture with its dice (top face's middle, side, value) and the middles of the side faces
it shows. Scenes come from the real photographs' ``train`` split (``../shared/dice-real``; never ``dev``), from
pictures rendered by ``tests/dice_set/generate.py`` (other seeds than the test set's) and from pasted scenes: dice
cut out of both, turned, re-shaded (a die's body and pips in any two greys, light on dark or dark on light) and laid
crowded onto tables cut from the real photographs away from their dice, with specks, lint, threads and the box's
numbered tiles strewn among them as things that are no die.

From scenes come the finder's tiles (``finder_tile``: a square of the picture at a random scale, turn and light, and
its dice) and the reader's crops (``reader_crops``: squares around dice, moved and scaled a little, and squares that
show no die's top at their middle: the table, a speck, a side face, half a die). Every sample follows from its seed.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from dice_nets import CROP_SCALE, CROP_SIZE, STRIDE, crop_input

#: The finder's training tile, px (its input picture's pixels).
TILE = 128
#: The die sides the finder is trained on, in its input picture's pixels (a die 1/70 to 1/5 of the picture).
SIDES = (7.0, 100.0)


@dataclass
class Scene:
    """A grey picture, its dice as rows (x, y, side, value) and its side faces' middles (x, y)."""

    gray: np.ndarray
    dice: np.ndarray
    sides: list[tuple[float, float]] = field(default_factory=list)
    name: str = ""


def real_scenes(root: Path, part: str) -> list[Scene]:
    """The real photographs of the train split with boxes: ``part`` "fit" (nine in ten) or "check" (every tenth)."""
    labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    chosen = sorted((e for e in labels if e["split"] == "train" and e.get("boxes")), key=lambda e: e["file"])
    out = []
    for i, e in enumerate(chosen):
        if (i % 10 == 9) != (part == "check"):
            continue
        gray = cv2.imread(str(root / e["file"]), cv2.IMREAD_GRAYSCALE)
        assert gray is not None, e["file"]
        dice = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, max(b[2] - b[0], b[3] - b[1]), b[4]]
                         for b in e["boxes"]], np.float32)
        out.append(Scene(gray, dice, [], e["file"]))
    return out


def render_pictures(seed: int, count: int, out: Path) -> None:
    """Write pictures as ``tests/dice_set/generate.py`` makes them (every tenth a composite), each with a .json of its
    dice: value, top face's middle and side, and the middles of the side faces seen."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "dice_set"))
    import generate  # tests/dice_set/generate.py (VTK, CadQuery: the kit's cad extra)

    out.mkdir(parents=True, exist_ok=True)
    meshes = {s.name: generate.die_meshes(s, 1000 + i) for i, s in enumerate(generate.STYLES)}
    for n in range(seed, seed + count):
        kind = "composite" if n % 10 == 9 else "render"
        where: list = []
        img, values, info = generate.one_image(n, meshes, kind, where)
        generate.save_jpeg(img, out / f"{n}.jpg", info.pop("quality"))
        (out / f"{n}.json").write_text(json.dumps({"dice": values, "where": where, "kind": kind}))


def render_scenes(folder: Path) -> list[Scene]:
    """Pictures written by ``render_pictures`` (each with a .json of its dice)."""
    out = []
    for path in sorted(folder.glob("*.json")):
        info = json.loads(path.read_text(encoding="utf-8"))
        gray = cv2.imread(str(path.with_suffix(".jpg")), cv2.IMREAD_GRAYSCALE)
        if gray is None:
            continue
        dice = np.array([[w[1], w[2], w[3], w[0]] for w in info["where"]], np.float32).reshape(-1, 4)
        sides = [(float(x), float(y)) for w in info["where"] if len(w) > 4 for x, y in w[4]]
        out.append(Scene(gray, dice, sides, path.name))
    return out


# --- light, blur, noise, JPEG --------------------------------------------------------------------------------------

def photometric(rng: np.random.Generator, gray: np.ndarray, jpeg: bool = True) -> np.ndarray:
    """The picture as another camera in another light might give it."""
    g = gray.astype(np.float32) / 255.0
    if rng.random() < 0.15:
        g = 1.0 - g
    g = np.clip(g, 0, 1) ** float(np.exp(rng.uniform(-0.6, 0.6)))
    g = (g - 0.5) * float(rng.uniform(0.5, 1.4)) + 0.5 + float(rng.uniform(-0.2, 0.2))
    if rng.random() < 0.3:  # uneven light across the picture
        h, w = g.shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = float(rng.uniform(0, 2 * math.pi))
        ramp = (np.cos(a) * xx / w + np.sin(a) * yy / h)
        g = g + float(rng.uniform(-0.25, 0.25)) * (ramp - ramp.mean())
    out = np.clip(g * 255.0, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.6)))
    if rng.random() < 0.5:
        noise = rng.normal(0, float(rng.uniform(1, 9)), out.shape)
        out = np.clip(out + noise, 0, 255).astype(np.uint8)
    if jpeg and rng.random() < 0.6:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        out = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    return out


# --- pasted scenes ------------------------------------------------------------------------------------------------

def backgrounds(scenes: list[Scene], rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Squares of the scenes' tables clear of their dice (half a side around each box kept clear)."""
    out: list[np.ndarray] = []
    tries = 0
    while len(out) < count and tries < count * 40:
        tries += 1
        s = scenes[int(rng.integers(len(scenes)))]
        h, w = s.gray.shape
        side = int(rng.integers(64, max(65, min(h, w) // 2)))
        x0, y0 = int(rng.integers(0, w - side + 1)), int(rng.integers(0, h - side + 1))
        if all(_clear(d, x0, y0, side) for d in s.dice):
            out.append(s.gray[y0:y0 + side, x0:x0 + side].copy())
    return out


def _clear(d: np.ndarray, x0: int, y0: int, side: int) -> bool:
    reach = d[2] * 1.0
    return d[0] + reach < x0 or d[0] - reach > x0 + side or d[1] + reach < y0 or d[1] - reach > y0 + side


def die_patches(scenes: list[Scene], limit: int) -> list[tuple[np.ndarray, int]]:
    """Each die's top face (a square of its side, at the picture's resolution) and its value."""
    out = []
    for s in scenes:
        for x, y, side, value in s.dice:
            if side >= 10:
                out.append((_rotated_cut(s.gray, x, y, side * 1.06, 0.0), int(value)))
            if len(out) >= limit:
                return out
    return out


def _rotated_cut(gray: np.ndarray, cx: float, cy: float, side: float, angle: float) -> np.ndarray:
    s = max(4, round(side))
    m = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, 1.0)
    m[:, 2] += (s / 2 - cx, s / 2 - cy)
    return cv2.warpAffine(gray, m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def reshaded(rng: np.random.Generator, patch: np.ndarray) -> np.ndarray:
    """A die's face in other greys: body and pips each any grey, apart enough to be told."""
    p = patch.astype(np.float32)
    lo, hi = np.percentile(p, 3), np.percentile(p, 97)
    t = np.clip((p - lo) / max(hi - lo, 1.0), 0, 1)
    if rng.random() < 0.5:
        body, pips = rng.uniform(140, 255), rng.uniform(0, 90)
    else:
        body, pips = rng.uniform(10, 140), rng.uniform(170, 255)
    return np.clip(pips + (body - pips) * t, 0, 255).astype(np.uint8)


def _rounded_mask(side: int, rng: np.random.Generator) -> np.ndarray:
    m = np.zeros((side, side), np.uint8)
    r = max(1, round(side * float(rng.uniform(0.08, 0.22))))
    cv2.rectangle(m, (r, 0), (side - 1 - r, side - 1), 255, -1)
    cv2.rectangle(m, (0, r), (side - 1, side - 1 - r), 255, -1)
    for cx, cy in ((r, r), (side - 1 - r, r), (r, side - 1 - r), (side - 1 - r, side - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    return cv2.GaussianBlur(m, (0, 0), max(0.6, side / 40)).astype(np.float32) / 255.0


def strew(rng: np.random.Generator, canvas: np.ndarray, die_side: float) -> None:
    """Things that are no die onto a table: specks, lint and threads, glints, and numbered tiles (in place)."""
    h, w = canvas.shape
    for _ in range(int(rng.integers(0, 25))):  # dust, crumbs, glints: pip-sized spots
        r = max(1, round(die_side * float(rng.uniform(0.03, 0.14))))
        shade = int(rng.integers(0, 60)) if rng.random() < 0.7 else int(rng.integers(200, 256))
        cv2.ellipse(canvas, (int(rng.integers(w)), int(rng.integers(h))), (r, max(1, round(r * rng.uniform(0.6, 1)))),
                    float(rng.uniform(0, 180)), 0, 360, shade, -1, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 6))):  # lint and threads
        pts = np.cumsum(rng.normal(0, die_side * 0.15, (int(rng.integers(3, 9)), 2)), axis=0)
        pts += (rng.integers(w), rng.integers(h))
        shade = int(rng.integers(0, 80)) if rng.random() < 0.6 else int(rng.integers(180, 256))
        cv2.polylines(canvas, [pts.astype(np.int32)], False, shade, int(rng.integers(1, 3)), cv2.LINE_AA)
    if rng.random() < 0.3:  # the box's tiles with their numbers, coins
        for _ in range(int(rng.integers(1, 6))):
            tw, th = round(die_side * rng.uniform(0.7, 1.3)), round(die_side * rng.uniform(1.0, 2.0))
            x, y = int(rng.integers(0, max(1, w - tw))), int(rng.integers(0, max(1, h - th)))
            face, ink = (int(rng.integers(150, 256)), int(rng.integers(0, 80)))
            if rng.random() < 0.3:
                face, ink = ink, face
            if rng.random() < 0.3:
                cv2.circle(canvas, (x + tw // 2, y + tw // 2), tw // 2, face, -1, cv2.LINE_AA)
                continue
            cv2.rectangle(canvas, (x, y), (x + tw, y + th), face, -1)
            cv2.putText(canvas, str(int(rng.integers(1, 13))), (x + tw // 6, y + th * 2 // 3),
                        cv2.FONT_HERSHEY_SIMPLEX, tw / 40, ink, max(1, tw // 12), cv2.LINE_AA)


def pasted_scene(rng: np.random.Generator, tables: list[np.ndarray], patches: list[tuple[np.ndarray, int]],
                 size: int = 400) -> Scene:
    """A table cut from a photograph, with things that are no die and 0 to 24 dice laid on it, some touching."""
    table = tables[int(rng.integers(len(tables)))]
    canvas = cv2.resize(table, (size, size), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        canvas = cv2.rotate(canvas, int(rng.integers(3)))
    die = float(np.exp(rng.uniform(math.log(size / 30), math.log(size / 6))))
    strew(rng, canvas, die)
    shadow = np.zeros_like(canvas, np.float32)
    layer = canvas.astype(np.float32)
    count = int(rng.choice([0, 1, 2, 2, 3, 4, 5, 6, 8, 10, 14, 18, 24]))
    placed: list[tuple[float, float, float, int]] = []
    for _ in range(count * 6):
        if len(placed) >= count:
            break
        side = die * float(rng.uniform(0.85, 1.15))
        x, y = float(rng.uniform(side, size - side)), float(rng.uniform(side, size - side))
        if any(math.hypot(x - px, y - py) < (side + ps) * 0.55 * math.sqrt(2) for px, py, ps, _ in placed):
            continue
        patch, value = patches[int(rng.integers(len(patches)))]
        turned = _rotated_cut(patch, patch.shape[1] / 2, patch.shape[0] / 2, patch.shape[0], float(rng.uniform(0, 360)))
        if rng.random() < 0.7:
            turned = reshaded(rng, turned)
        s = max(6, round(side))
        face = cv2.resize(turned, (s, s), interpolation=cv2.INTER_AREA if s < turned.shape[0] else cv2.INTER_LINEAR)
        mask = _rounded_mask(s, rng)
        x0, y0 = round(x - s / 2), round(y - s / 2)
        # a square die turned on the table: the face, its mask turned the same way
        angle = float(rng.uniform(0, 90))
        m = cv2.getRotationMatrix2D((s / 2, s / 2), angle, 1.0)
        face = cv2.warpAffine(face, m, (s, s), borderMode=cv2.BORDER_REPLICATE)
        mask = cv2.warpAffine(mask, m, (s, s))
        off = round(s * 0.08)
        ys, xs = slice(y0 + off, y0 + off + s), slice(x0 + off, x0 + off + s)
        shadow[ys, xs] = np.maximum(shadow[ys, xs], mask * float(rng.uniform(0.1, 0.45)))
        region = layer[y0:y0 + s, x0:x0 + s]
        layer[y0:y0 + s, x0:x0 + s] = region * (1 - mask) + face.astype(np.float32) * mask
        placed.append((x, y, side, value))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, die / 12))
    out = np.clip(layer * (1 - shadow), 0, 255).astype(np.uint8)
    dice = np.array([[x, y, s, v] for x, y, s, v in placed], np.float32).reshape(-1, 4)
    return Scene(out, dice, [], "pasted")


# --- the finder's tiles -------------------------------------------------------------------------------------------

def finder_tile(rng: np.random.Generator, scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """A TILE x TILE square of the scene at a random scale, turn and light, and its dice (x, y, side) in it."""
    dice = scene.dice
    h, w = scene.gray.shape
    if len(dice):
        want = float(np.exp(rng.uniform(math.log(SIDES[0]), math.log(SIDES[1]))))
        scale = want / float(np.median(dice[:, 2]))
    else:
        scale = float(np.exp(rng.uniform(math.log(256), math.log(1024)))) / max(h, w)
    scale = min(scale, 4.0)
    gray = cv2.resize(scene.gray, None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    if len(dice) and rng.random() < 0.7:
        d = dice[int(rng.integers(len(dice)))]
        cx, cy = d[0] * scale + rng.uniform(-TILE / 3, TILE / 3), d[1] * scale + rng.uniform(-TILE / 3, TILE / 3)
    else:
        cx, cy = rng.uniform(0, gray.shape[1]), rng.uniform(0, gray.shape[0])
    angle = float(rng.uniform(0, 360)) if rng.random() < 0.7 else 0.0
    m = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, 1.0)
    m[:, 2] += (TILE / 2 - cx, TILE / 2 - cy)
    if rng.random() < 0.5:  # mirrored
        m[0] = -m[0]
        m[0, 2] += TILE
    tile = cv2.warpAffine(gray, m, (TILE, TILE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    tile = photometric(rng, tile)
    points = np.c_[dice[:, :2] * scale, np.ones(len(dice))] @ m.T if len(dice) else np.zeros((0, 2))
    out = np.c_[points, dice[:, 2] * scale] if len(dice) else np.zeros((0, 3))
    inside = (out[:, 0] >= 0) & (out[:, 0] < TILE) & (out[:, 1] >= 0) & (out[:, 1] < TILE)
    return tile, out[inside].astype(np.float32)


def finder_targets(dice: np.ndarray, size: int = TILE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The finder's targets for a tile's dice: a peak at each die's middle (spread a fifth of the die's side); the log
    of the die's side and the way from each cell's middle to the die's (x, y, in cells) at and around it; and the
    weight of those three there."""
    cells = size // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    where = np.zeros((3, cells, cells), np.float32)
    weight = np.zeros((cells, cells), np.float32)
    yy, xx = np.mgrid[0:cells, 0:cells].astype(np.float32) + 0.5
    for x, y, side in dice:
        cx, cy = x / STRIDE, y / STRIDE
        sigma = max(0.5, side / STRIDE / 5)
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))
        heat = np.maximum(heat, g)
        heat[min(cells - 1, int(cy)), min(cells - 1, int(cx))] = 1.0  # the peak: the cell the middle is in
        near = (g > 0.4) & (g >= weight)
        near[min(cells - 1, int(cy)), min(cells - 1, int(cx))] = True
        where[0][near] = math.log(side)
        where[1][near] = (cx - xx)[near]
        where[2][near] = (cy - yy)[near]
        weight[near] = np.maximum(g[near], 0.5)
    return heat, where, weight


# --- the reader's crops -------------------------------------------------------------------------------------------

def reader_crops(rng: np.random.Generator, scene: Scene, per_die: int = 3) -> list[tuple[np.ndarray, int]]:
    """Crops (CROP_SIZE square, uint8) of a scene and what each shows at its middle: a die's value, or 0."""
    out: list[tuple[np.ndarray, int]] = []
    gray = scene.gray
    dice = scene.dice
    sides = dice[:, 2] if len(dice) else np.array([float(np.exp(rng.uniform(math.log(12), math.log(90))))])
    for x, y, side, value in dice:
        for _ in range(per_die):
            shift = rng.uniform(-0.15, 0.15, 2) * side
            out.append((_crop(rng, gray, x + shift[0], y + shift[1], side * float(rng.uniform(0.75, 1.35))),
                        int(value)))
        a = float(rng.uniform(0, 2 * math.pi))  # half a die, or between dice: not centred on a top
        reach = float(rng.uniform(0.6, 1.1)) * side
        out.append((_crop(rng, gray, x + reach * math.cos(a), y + reach * math.sin(a), side), 0))
    for sx, sy in scene.sides[:4]:
        out.append((_crop(rng, gray, sx, sy, float(np.median(sides)) * float(rng.uniform(0.8, 1.2))), 0))
    h, w = gray.shape
    for _ in range(per_die + 1):  # the table, clear of every die's top
        side = float(sides[int(rng.integers(len(sides)))]) * float(rng.uniform(0.6, 1.6))
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        if all(math.hypot(x - d[0], y - d[1]) > 0.6 * d[2] for d in dice):
            out.append((_crop(rng, gray, x, y, side), 0))
    return out


def _crop(rng: np.random.Generator, gray: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    patch = _rotated_cut(gray, x, y, side * CROP_SCALE, float(rng.uniform(0, 360)))
    if rng.random() < 0.5:
        patch = patch[:, ::-1]
    patch = photometric(rng, patch)
    small = crop_input(patch)  # standardised: back to 8 bits to keep many
    return np.clip(small * 40 + 128, 0, 255).astype(np.uint8).reshape(CROP_SIZE, CROP_SIZE)


def speck_crop(rng: np.random.Generator, tables: list[np.ndarray]) -> np.ndarray:
    """A crop of a table with a pip-sized spot at its middle, often on an even round patch: no die (a 1 has a body)."""
    table = tables[int(rng.integers(len(tables)))]
    side = float(rng.uniform(20, 90))
    s = round(side * CROP_SCALE)
    canvas = cv2.resize(table, (s, s), interpolation=cv2.INTER_AREA if s < table.shape[0] else cv2.INTER_LINEAR)
    c = (s // 2 + int(rng.integers(-2, 3)), s // 2 + int(rng.integers(-2, 3)))
    if rng.random() < 0.6:
        patch = int(rng.integers(150, 256)) if rng.random() < 0.7 else int(rng.integers(0, 100))
        r = round(side * float(rng.uniform(0.3, 0.6)))
        cv2.ellipse(canvas, c, (r, max(2, round(r * rng.uniform(0.6, 1)))), float(rng.uniform(0, 180)), 0, 360,
                    patch, -1, cv2.LINE_AA)
    r = max(1, round(side * float(rng.uniform(0.06, 0.2))))
    ink = int(rng.integers(0, 70)) if rng.random() < 0.7 else int(rng.integers(190, 256))
    cv2.circle(canvas, c, r, ink, -1, cv2.LINE_AA)
    strew(rng, canvas, side)
    small = crop_input(photometric(rng, canvas))
    return np.clip(small * 40 + 128, 0, 255).astype(np.uint8).reshape(CROP_SIZE, CROP_SIZE)
