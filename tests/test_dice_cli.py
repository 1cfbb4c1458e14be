"""``shutbox dice``: JSON per picture, the annotated drawing, and one-line errors (exit 2) for bad input."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

from tests.conftest import REPO, first_fast, run_cli

SET = REPO / "tests" / "dice_set"
LABELS = json.loads((SET / "labels.json").read_text(encoding="utf-8"))


def _readable(count: int) -> list[str]:
    """Pictures of the set the reader reads fully (each checked by the reader in-process first)."""
    import cv2

    from shutbox.dice.reader import read_dice

    out = []
    for name in sorted(LABELS):
        image = cv2.imread(str(SET / name))
        assert image is not None
        if LABELS[name]["dice"] and read_dice(image).values == LABELS[name]["dice"]:
            out.append(name)
        if len(out) == count:
            return out
    raise AssertionError("no readable pictures in the set")


def test_json_per_picture_in_order():
    names = _readable(2)
    empty = next(n for n in sorted(LABELS) if not LABELS[n]["dice"])
    proc = run_cli("dice", *(str(SET / n) for n in [*names, empty]), "--json", check=True)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines == [{"dice": LABELS[names[0]]["dice"], "unsure": 0}, {"dice": LABELS[names[1]]["dice"], "unsure": 0},
                     {"dice": [], "unsure": 0}]


def test_text_output_names_the_picture():
    name = _readable(1)[0]
    proc = run_cli("dice", str(SET / name), check=True)
    assert proc.stdout.strip() == f"{SET / name}: {' '.join(map(str, LABELS[name]['dice']))}"


def test_annotate_writes_a_png_of_the_picture(tmp_path: Path):
    import cv2

    name = _readable(1)[0]
    out = tmp_path / "drawn.png"
    run_cli("dice", str(SET / name), "--annotate", str(out), check=True)
    drawn, original = cv2.imread(str(out)), cv2.imread(str(SET / name))
    assert drawn is not None and original is not None
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert drawn.shape == original.shape and (drawn != original).any()
    assert [p.name for p in tmp_path.iterdir()] == ["drawn.png"]  # nothing half-written left beside it


def _png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


@pytest.mark.parametrize("case, needle", first_fast([
    ("missing", "no such file"),
    ("text", "not a picture"),
    ("folder", "is a folder"),
    ("bomb", "megapixels"),
    ("claims", "megapixels"),
    ("cut", "damaged"),
    ("tiny", "8 x 6000 pixels is too small to show a die; at least 16 pixels a side"),
    ("float", "cannot be decoded"),
], several=True))
def test_bad_pictures_are_one_line_errors(tmp_path: Path, case: str, needle: str):
    path = tmp_path / f"{case}.png"
    if case == "text":
        path.write_text("these are not the dice you are looking for\n")
    elif case == "folder":
        path.mkdir()
    elif case == "bomb":
        path.write_bytes(_png_header(100_000, 100_000))
    elif case == "claims":
        path.write_bytes(_png_header(9000, 9000))
    elif case == "tiny":  # 8 wide, 6000 high, written whole (no decoder needed)
        path.write_bytes(_png_header(8, 6000))
    elif case == "float":  # a TIFF of floating-point pixels: Pillow reads its header, OpenCV cannot decode it
        from PIL import Image

        path = tmp_path / "float.tif"
        Image.new("F", (120, 100), 0.5).save(path)
    elif case == "cut":
        path = tmp_path / "cut.jpg"
        path.write_bytes((SET / sorted(LABELS)[0]).read_bytes()[:2000])
    proc = run_cli("dice", str(path), "--json")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("target, needle", [
    ("nofolder/out.png", "does not exist"),
    ("out.jpg", "ending in .png"),
    ("folder.png", "is a folder"),
    ("notes.png", "not a drawing this command wrote"),
])
def test_bad_annotate_paths_are_refused_and_nothing_is_touched(tmp_path: Path, target: str, needle: str):
    (tmp_path / "folder.png").mkdir()
    (tmp_path / "notes.png").write_text("my notes\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = run_cli("dice", str(SET / sorted(LABELS)[1]), "--annotate", str(tmp_path / target))
    assert proc.returncode == 2 and needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "notes.png").read_text() == "my notes\n"


def test_annotate_with_several_pictures_is_refused():
    names = sorted(LABELS)[:2]
    proc = run_cli("dice", *(str(SET / n) for n in names), "--annotate", "/tmp/never-written-dice.png")
    assert proc.returncode == 2 and "one IMAGE" in proc.stderr
