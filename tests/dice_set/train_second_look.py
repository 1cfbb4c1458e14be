"""Train the dice reader's second look (dice/shutbox/dice/second_look.onnx) on rendered pictures of other seeds.

    nice python tests/dice_set/train_second_look.py pictures --seed 5000000 --count 3000 --out /tmp/sl/a
    nice python tests/dice_set/train_second_look.py crops /tmp/sl/a /tmp/sl/b --out /tmp/sl/crops.npz
    nice python tests/dice_set/train_second_look.py train /tmp/sl/crops.npz          # needs torch (not a dependency)

``pictures`` writes pictures as ``generate.py`` makes them (nine renders to a composite), each with its dice's top
faces in the picture (value, middle, side). Its seeds must be none of the test set's (0 to 639 and 100 000 to
100 059) nor the tuning and check sets' (docs/dice.md). ``crops`` reads each picture with the rules and cuts the
network's inputs out of it:
- every box the reader gives by the rules alone (read or unsure), three times, moved a little;
- squares around every die's top face's middle, moved and scaled a little, and some way off it; and on its side faces.
Each is labelled with what is at its middle: the value of the top face there, ``OFF`` (on a die, not its top's
middle: a side face, off the top's middle), or ``NO_TOP`` (clear of every die).
``train`` fits a small network (three convolutions, two dense layers) with every quarter turn and mirror of each crop,
holds one picture in ten out to report on, and writes the ONNX file.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

#: A box's middle this near a face's middle (in the die's side) is on that face; further than OFF_FAR from every
#: top face's middle, on no die.
NEAR, OFF_FAR = 0.25, 1.2
def pictures(seed: int, count: int, out: Path) -> None:
    import generate  # tests/dice_set/generate.py

    out.mkdir(parents=True, exist_ok=True)
    meshes = {s.name: generate.die_meshes(s, 1000 + i) for i, s in enumerate(generate.STYLES)}
    for n in range(seed, seed + count):
        kind = "composite" if n % 10 == 9 else "render"
        where: list = []
        img, values, info = generate.one_image(n, meshes, kind, where)
        generate.save_jpeg(img, out / f"{n}.jpg", info.pop("quality"))
        (out / f"{n}.json").write_text(json.dumps({"dice": values, "where": where, "kind": kind}))


def _label(x: float, y: float, where: list) -> int | None:
    """What is centred at (x, y): a top face's value, OFF (a die, not its top's middle: a side face, an edge), or NO_TOP
    (no die); None when it cannot be told (a picture made without its side faces, not on a top)."""
    from shutbox.dice.second_look import NO_TOP, OFF

    if not where:
        return NO_TOP
    top = min(where, key=lambda d: math.hypot(d[1] - x, d[2] - y) / d[3])
    reach = math.hypot(top[1] - x, top[2] - y) / top[3]
    if reach <= NEAR:
        return int(top[0])
    if len(top) < 5:  # made before the side faces were written
        return NO_TOP if reach >= OFF_FAR else None
    sides = [math.hypot(sx - x, sy - y) / d[3] for d in where for sx, sy in d[4]]
    return OFF if reach < OFF_FAR or min(sides, default=9) <= 0.6 else NO_TOP


def _crops_of(path: Path) -> tuple[list[np.ndarray], list[int]]:
    import cv2

    from shutbox.dice.reader import read_dice
    from shutbox.dice.second_look import crop

    info = json.loads(path.with_suffix(".json").read_text())
    image = cv2.imread(str(path))
    assert image is not None, path
    rng = np.random.default_rng(int(path.stem))
    where = info["where"]
    reading = read_dice(image, second_look=False)
    xs: list[np.ndarray] = []
    ys: list[int] = []

    def add(box: tuple[float, float, float, float], copies: int) -> None:
        x, y, w, h = box
        label = _label(x + w / 2, y + h / 2, where)
        if label is None:
            return
        for k in range(copies):
            scale, shift = (1.0, (0.0, 0.0)) if k == 0 else (rng.uniform(0.9, 1.5), tuple(rng.uniform(-0.06, 0.06, 2)))
            xs.append(crop(image, (round(x), round(y), round(w), round(h)), scale, shift))
            ys.append(label)

    for box in [d.box for d in reading.dice] + list(reading.unsure):
        add(box, 3)
    height, width = image.shape[:2]
    for die in where:
        _, cx, cy, side = die[:4]
        for reach in (0.0, 0.0, rng.uniform(0.3, 0.6), rng.uniform(0.6, 1.0), rng.uniform(1.3, 2.2)):
            angle = rng.uniform(0, 2 * math.pi)
            s = side * rng.uniform(0.95, 1.8)
            jitter = rng.uniform(-0.1, 0.1, 2) * side if reach == 0 else (0.0, 0.0)
            px, py = cx + reach * side * math.cos(angle) + jitter[0], cy + reach * side * math.sin(angle) + jitter[1]
            if 0 <= px < width and 0 <= py < height:
                add((px - s / 2, py - s / 2, s, s), 1)
        for sx, sy in die[4] if len(die) > 4 else []:
            s = side * rng.uniform(0.8, 1.6)
            add((sx - s / 2, sy - s / 2, s, s), 1)
    return xs, ys


def crops(folders: list[Path], out: Path) -> None:
    from concurrent.futures import ProcessPoolExecutor

    import cv2

    cv2.setNumThreads(1)
    paths = sorted(p for f in folders for p in f.glob("*.jpg"))
    xs: list[np.ndarray] = []
    ys: list[int] = []
    groups: list[int] = []
    with ProcessPoolExecutor(2) as pool:
        for path, (x, y) in zip(paths, pool.map(_crops_of, paths, chunksize=16), strict=True):
            xs += x
            ys += y
            groups += [int(path.stem)] * len(y)
    np.savez_compressed(out, x=np.stack(xs).astype(np.float16), y=np.array(ys, np.int64), seed=np.array(groups))
    print(f"{len(ys)} crops, per class {np.bincount(ys, minlength=8).tolist()}")


def train(data: list[Path], out: Path, epochs: int) -> None:
    import torch  # pyright: ignore[reportMissingImports]
    from torch import nn  # pyright: ignore[reportMissingImports]

    from shutbox.dice.second_look import SIZE

    torch.manual_seed(1)
    torch.set_num_threads(2)
    loaded = [np.load(d) for d in data]
    x = torch.from_numpy(np.concatenate([d["x"] for d in loaded]).astype(np.float32)).permute(0, 3, 1, 2).contiguous()
    y = torch.from_numpy(np.concatenate([d["y"] for d in loaded]))
    held = torch.from_numpy(np.concatenate([d["seed"] for d in loaded]) % 10 == 0)
    net = nn.Sequential(
        nn.Conv2d(3, 24, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(24, 48, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(48, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * (SIZE // 8) ** 2, 96), nn.ReLU(), nn.Dropout(0.3), nn.Linear(96, 8))
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    train_x, train_y = x[~held], y[~held]
    steps = epochs * math.ceil(len(train_y) / 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    loss = torch.zeros(())
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(train_y))
        for i in range(0, len(order), 256):
            idx = order[i:i + 256]
            xb = train_x[idx]
            k = int(torch.randint(4, ()))
            xb = torch.rot90(xb, k, (2, 3)).contiguous()
            if torch.rand(()) < 0.5:
                xb = torch.flip(xb, (3,))
            loss = nn.functional.cross_entropy(net(xb), train_y[idx], label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            p = torch.softmax(net(x[held]), 1)
        conf, pred = p.max(1)
        yh = y[held]
        sure = conf >= 0.95
        print(f"epoch {epoch}: loss {loss.item():.3f}, held out {(pred == yh).float().mean():.4f}, "
              f"sure {sure.float().mean():.3f} of them, wrong when sure {((pred != yh) & sure).sum().item()}",
              flush=True)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, SIZE, SIZE), str(out), input_names=["crop"], output_names=["score"],
                      dynamic_axes={"crop": {0: "n"}, "score": {0: "n"}}, opset_version=11, dynamo=False)
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("pictures")
    a.add_argument("--seed", type=int, required=True)
    a.add_argument("--count", type=int, required=True)
    a.add_argument("--out", type=Path, required=True)
    b = sub.add_parser("crops")
    b.add_argument("folders", type=Path, nargs="+")
    b.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("train")
    c.add_argument("data", type=Path, nargs="+")
    c.add_argument("--out", type=Path, default=HERE.parent.parent / "shutbox" / "dice" / "second_look.onnx")
    c.add_argument("--epochs", type=int, default=10)
    args = p.parse_args(argv)
    if args.step == "pictures":
        pictures(args.seed, args.count, args.out)
    elif args.step == "crops":
        crops(args.folders, args.out)
    else:
        train(args.data, args.out, args.epochs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
