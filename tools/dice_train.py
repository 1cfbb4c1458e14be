"""Train a learned dice reader's two networks (tools/dice_nets.py: a finder and a crop reader) on the CPU, with PyTorch.

    nice python tools/dice_train.py pictures --seed 6000000 --count 2000 --renders /tmp/dice/renders
    nice python tools/dice_train.py finder --renders /tmp/dice/renders --steps 450 --out /tmp/dice/finder.onnx
    nice python tools/dice_train.py reader --renders /tmp/dice/renders --steps 400 --out /tmp/dice/reader.onnx
    nice python tools/dice_train.py check --renders /tmp/dice/renders --out /tmp/dice/finder.onnx,/tmp/dice/reader.onnx

PyTorch is a training tool, not a dependency of the kit: ``pip install torch==2.13.0`` in the kit's venv (a CPU
build; on x86-64 the registry's default build of ``torch`` is a CUDA one of several GB). The pictures rendered for
training must be of none of the test set's seeds (0 to 639 and 100 000 to 100 059) nor the tuning sets' (docs).
Material (``tools/dice_data.py``): the real photographs' ``train`` split (nine in ten; every tenth is held out as
``check``, reported here), the rendered pictures, and pasted scenes made of both. The ``dev`` split is never read.
Each run trains on two threads for the steps given and writes the ONNX file (and every 100 steps on the way);
``check`` reads the held-out pictures with a pair. Not shipped yet: docs/dice.md says how far they got.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import dice_data as dd  # noqa: E402
import torch  # noqa: E402
from dice_nets import CROP_SIZE, read, standardised  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

REAL = ROOT.parent / "shared" / "dice-real"
#: The finder's tiles per step.
BATCH = 24
#: The network is written every this many steps, and at the end.
SNAPSHOT = 100


def _block(i: int, o: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class Finder(nn.Module):
    """A small encoder-decoder: the picture down to 1/32 and back up to 1/8 (STRIDE); four maps: a die's middle, its
    log side, and where in its cell the middle is (x, y, in cells)."""

    def __init__(self) -> None:
        super().__init__()
        self.s8 = nn.Sequential(_block(1, 12, 2), _block(12, 20, 2), _block(20, 32, 2), _block(32, 32))
        self.s16 = nn.Sequential(_block(32, 48, 2), _block(48, 48))
        self.s32 = nn.Sequential(_block(48, 64, 2), _block(64, 64))
        self.up16, self.up8 = nn.Conv2d(64, 48, 1), nn.Conv2d(48, 32, 1)
        self.m16, self.m8 = _block(48, 48), _block(32, 32)
        self.head = nn.Sequential(_block(32, 32), nn.Conv2d(32, 4, 1))
        with torch.no_grad():  # a die's middle is rare: start sure of none (CenterNet's prior of 0.1)
            self.head[1].bias[0] = -2.19

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f8 = self.s8(x)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        u16 = self.m16(f16 + F.interpolate(self.up16(f32), scale_factor=2.0, mode="nearest"))
        u8 = self.m8(f8 + F.interpolate(self.up8(u16), scale_factor=2.0, mode="nearest"))
        return self.head(u8)


class Reader(nn.Module):
    """A small classifier of a die's crop: no die's top (0) or a top face of 1 to 6."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _block(1, 16), nn.MaxPool2d(2), _block(16, 32), nn.MaxPool2d(2), _block(32, 48), nn.MaxPool2d(2),
            _block(48, 64), nn.MaxPool2d(2))
        self.classify = nn.Sequential(nn.Flatten(), nn.Linear(64 * (CROP_SIZE // 16) ** 2, 96), nn.ReLU(inplace=True),
                                      nn.Dropout(0.2), nn.Linear(96, 7))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classify(self.features(x))


# --- material -----------------------------------------------------------------------------------------------------

class Material:
    """The scenes to draw from: real (fit part), rendered, and pasted ones made on the fly."""

    def __init__(self, renders: Path, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.real = dd.real_scenes(REAL, "fit")
        self.check = dd.real_scenes(REAL, "check")
        rendered = dd.render_scenes(renders)
        cut = max(1, len(rendered) // 20)
        self.renders, self.render_check = rendered[cut:], rendered[:cut]
        self.tables = dd.backgrounds(self.real, self.rng, 400) + dd.backgrounds(self.renders, self.rng, 200)
        self.patches = dd.die_patches(self.real, 2000) + dd.die_patches(self.renders, 3000)
        print(f"material: {len(self.real)} real pictures ({len(self.check)} held out), {len(self.renders)} rendered "
              f"({len(self.render_check)} held out), {len(self.tables)} tables, {len(self.patches)} dice to paste",
              flush=True)

    def scene(self) -> dd.Scene:
        r = self.rng.random()
        if r < 0.4:
            return self.real[int(self.rng.integers(len(self.real)))]
        if r < 0.7:
            return self.renders[int(self.rng.integers(len(self.renders)))]
        return dd.pasted_scene(self.rng, self.tables, self.patches)


def _finder_batch(material: Material, size: int) -> tuple[torch.Tensor, ...]:
    tiles, heats, sides, weights = [], [], [], []
    for _ in range(size):
        tile, dice = dd.finder_tile(material.rng, material.scene())
        heat, logside, weight = dd.finder_targets(dice)
        tiles.append(standardised(tile)[None])
        heats.append(heat)
        sides.append(logside)
        weights.append(weight)
    return tuple(torch.from_numpy(np.stack(a)) for a in (tiles, heats, sides, weights))


def focal(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's focal loss on a map of peaks, per peak."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    peak = target >= 1.0
    pos = -((1 - p) ** 2 * torch.log(p))[peak].sum()
    neg = -((1 - target) ** 4 * p ** 2 * torch.log(1 - p))[~peak].sum()
    return (pos + neg) / max(1, int(peak.sum()))


def _rate(opt: torch.optim.Optimizer, step: int, steps: int, top: float = 2e-3) -> None:
    """A short warm-up, then a cosine down to nothing at the last step."""
    rate = top * min(1.0, (step + 1) / 50) * 0.5 * (1 + math.cos(math.pi * step / steps))
    for g in opt.param_groups:
        g["lr"] = rate


def train_finder(material: Material, steps: int, out: Path) -> None:
    net = Finder()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    start, losses = time.monotonic(), []
    for step in range(1, steps + 1):
        _rate(opt, step - 1, steps)
        x, heat, logside, weight = _finder_batch(material, BATCH)
        net.train()
        y = net(x)
        loss_heat = focal(y[:, 0], heat)
        loss_side = (weight[:, None] * (y[:, 1:] - logside).abs()).sum() / weight.sum().clamp(min=1.0)
        loss = loss_heat + loss_side
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append((float(loss_heat.detach()), float(loss_side.detach())))
        if step % 50 == 0:
            h, s = np.mean(losses[-50:], axis=0)
            print(f"finder step {step} ({(time.monotonic() - start) / 60:.1f} min): heat {h:.3f} side {s:.3f}",
                  flush=True)
        if step % SNAPSHOT == 0 or step == steps:  # a run cut short still leaves a network to look at
            net.eval()
            _export(net, torch.zeros(1, 1, 288, 512), out, {"picture": {2: "height", 3: "width"}})
    print(f"finder: {steps} steps of {BATCH} tiles in {(time.monotonic() - start) / 60:.0f} min; written {out}")


def _reader_pool(material: Material, count: int) -> tuple[np.ndarray, np.ndarray]:
    crops: list[np.ndarray] = []
    labels: list[int] = []
    while len(crops) < count:
        r = material.rng.random()
        if r < 0.08:
            crops.append(dd.speck_crop(material.rng, material.tables))
            labels.append(0)
            continue
        for crop, label in dd.reader_crops(material.rng, material.scene()):
            crops.append(crop)
            labels.append(label)
    return np.stack(crops), np.array(labels, np.int64)


def train_reader(material: Material, steps: int, out: Path, pool: int, cache: Path) -> None:
    t0 = time.monotonic()
    if cache.is_file():
        saved = np.load(cache)
        crops, labels = saved["crops"], saved["labels"]
    else:
        crops, labels = _reader_pool(material, pool)
        np.savez(cache, crops=crops, labels=labels)
    print(f"reader: {len(crops)} crops in {time.monotonic() - t0:.0f} s; per class {np.bincount(labels, minlength=7)}",
          flush=True)
    held = material.rng.random(len(crops)) < 0.05
    x_all = torch.from_numpy((crops.astype(np.float32) - 128) / 40)[:, None]
    y_all = torch.from_numpy(labels)
    fit = torch.from_numpy(np.flatnonzero(~held))
    net = Reader()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    start = time.monotonic()
    for step in range(1, steps + 1):
        _rate(opt, step - 1, steps)
        pick = fit[torch.randint(len(fit), (128,))]
        x = torch.rot90(x_all[pick], int(material.rng.integers(4)), (2, 3))
        x = x + torch.randn_like(x) * float(material.rng.uniform(0, 0.15))
        net.train()
        loss = F.cross_entropy(net(x), y_all[pick], label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 200 == 0:
            print(f"reader step {step} ({(time.monotonic() - start) / 60:.1f} min): loss {float(loss):.3f}", flush=True)
        if step % SNAPSHOT == 0 and step < steps:
            net.eval()
            _export(net, torch.zeros(1, 1, CROP_SIZE, CROP_SIZE), out, {"crop": {0: "n"}})
    net.eval()
    with torch.no_grad():
        idx = torch.from_numpy(np.flatnonzero(held))
        got = net(x_all[idx]).argmax(1)
        print(f"reader: held-out crops {int((got == y_all[idx]).sum())}/{len(idx)} right")
    _export(net, torch.zeros(1, 1, CROP_SIZE, CROP_SIZE), out, {"crop": {0: "n"}})
    print(f"reader: {steps} steps of 128 crops in {(time.monotonic() - start) / 60:.0f} min; written {out}")


def check(material: Material, finder: Path, reader: Path) -> None:
    """Read the held-out real photographs and renders with a pair of networks: pictures fully right, dice wrong."""
    for name, scenes in (("real check", material.check), ("rendered check", material.render_check)):
        right = wrong = dice = unsure = 0
        for scene in scenes:
            reading = read(scene.gray, finder, reader)
            want = sorted(int(v) for v in scene.dice[:, 3])
            right += reading.values == want and not reading.unsure
            wrong += sum((Counter(reading.values) - Counter(want)).values())
            dice += len(want)
            unsure += len(reading.unsure)
        print(f"{name}: {right} of {len(scenes)} pictures fully right; {dice} dice, {wrong} wrong, {unsure} unsure")


def _export(net: nn.Module, example: torch.Tensor, out: Path, axes: dict) -> None:
    tmp = out.with_suffix(".tmp")
    torch.onnx.export(net, (example,), str(tmp), input_names=[next(iter(axes))], output_names=["out"],
                      dynamic_axes=axes, opset_version=13, dynamo=False)
    tmp.replace(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("net", choices=["pictures", "finder", "reader", "check"],
                   help="pictures: render pictures to train on; check: read the held-out pictures with --out's pair")
    p.add_argument("--renders", type=Path, required=True, help="the folder of pictures rendered to train on")
    p.add_argument("--steps", type=int, help="steps to train (default: finder 450, reader 900)")
    p.add_argument("--seed", type=int, default=47, help="the first picture's seed (pictures), or training's")
    p.add_argument("--count", type=int, default=2000, help="pictures: how many")
    p.add_argument("--pool", type=int, default=60000, help="reader: crops made to train on")
    p.add_argument("--out", type=Path, required=True, help="the ONNX file written (check: FINDER,READER)")
    args = p.parse_args(argv)
    if args.net == "pictures":
        dd.render_pictures(args.seed, args.count, args.renders)
        return 0
    torch.set_num_threads(2)
    torch.manual_seed(args.seed)
    material = Material(args.renders, args.seed)
    if args.net == "check":
        finder, reader = (Path(p) for p in str(args.out).split(","))
        check(material, finder, reader)
    elif args.net == "finder":
        train_finder(material, args.steps or 450, args.out)
    else:
        # the crops are kept beside the rendered pictures, to train again without making them again
        cache = args.renders / f"reader-crops-{args.pool}-{args.seed}.npz"
        train_reader(material, args.steps or 900, args.out, args.pool, cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
