"""The dice reader on a sample of the rendered test set, and on pictures made to trip it (tests/dice_set)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import pytest

cv2 = pytest.importorskip("cv2")

import numpy as np  # noqa: E402

from shutbox.dice.reader import read_dice  # noqa: E402
from tests.conftest import REPO  # noqa: E402

SET = REPO / "tests" / "dice_set"
LABELS = json.loads((SET / "labels.json").read_text(encoding="utf-8"))
#: Every 8th picture of each kind: about 90 pictures (the whole set is read by bench/dice.py).
SAMPLE = sorted(name for i, name in enumerate(sorted(LABELS)) if i % 8 == 0)
REAL = REPO.parent / "shared" / "dice-real"
#: Table colours (BGR) the negatives are drawn on: green felt, dark cloth, light wood, a white tray.
TABLES = ((40, 110, 35), (35, 30, 30), (120, 160, 195), (225, 228, 230))


def test_the_set_is_what_the_docs_say():
    kinds = Counter(name.split("/")[0] for name in LABELS)
    assert kinds["render"] >= 600 and kinds["composite"] >= 30
    assert all((SET / name).is_file() for name in LABELS)
    assert all(cv2.imread(str(SET / name)).shape[1] <= 640 for name in SAMPLE)
    assert sum((SET / name).stat().st_size for name in LABELS) < 25 * 1024 * 1024


@pytest.mark.slow  # reads every picture of the sample set
def test_the_sample_reads_with_no_die_wrong_and_most_pictures_right():
    wrong = right = dice = 0
    for name in SAMPLE:
        reading = read_dice(cv2.imread(str(SET / name)))
        want = LABELS[name]["dice"]
        wrong += sum((Counter(reading.values) - Counter(want)).values())
        right += reading.values == want and not reading.unsure
        dice += len(want)
    assert wrong <= 0.005 * dice, f"{wrong} of {dice} dice read wrong"
    assert right >= 0.985 * len(SAMPLE), f"{right} of {len(SAMPLE)} pictures all right"


def test_an_empty_table_reads_as_no_dice():
    empty = [name for name in LABELS if not LABELS[name]["dice"]]
    assert empty
    for name in empty[:6]:
        assert read_dice(cv2.imread(str(SET / name))).as_dict() == {"dice": [], "unsure": 0}, name


def test_a_blank_or_noisy_picture_has_no_dice():
    import numpy as np

    rng = np.random.default_rng(3)
    for image in (np.zeros((480, 640, 3), np.uint8), np.full((480, 640, 3), 255, np.uint8),
                  rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)):
        assert read_dice(image).values == []


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (15, 640), (8, 6000), (6000, 8), (16, 16), (40, 6000),
                                   (12000, 40)])
def test_a_picture_too_small_or_too_thin_for_a_die_reads_as_no_dice(shape):
    """A few pixels, or a sliver that shrinks to one at the reader's working size: nothing read, and no error."""
    picture = cv2.resize(cv2.imread(str(SET / sorted(LABELS)[1])), shape[::-1], interpolation=cv2.INTER_AREA)
    assert read_dice(picture).as_dict() == {"dice": [], "unsure": 0}
    assert read_dice(picture[..., 0].copy()).as_dict() == {"dice": [], "unsure": 0}


def test_a_die_drawn_flat_reads_and_a_broken_pattern_does_not():
    """A flat drawing: a white square with black pips on green felt. Five pips read as 5; the centre pip moved
    off the pattern is not read as anything (unsure), never as another value."""
    import numpy as np

    def die(pips: list[tuple[float, float]]) -> np.ndarray:
        image = np.full((400, 400, 3), (40, 120, 30), np.uint8)
        cv2.rectangle(image, (140, 140), (260, 260), (245, 245, 245), cv2.FILLED)
        for u, v in pips:
            cv2.circle(image, (int(200 + u * 32), int(200 + v * 32)), 10, (20, 20, 20), cv2.FILLED, cv2.LINE_AA)
        return cv2.GaussianBlur(image, (3, 3), 0)

    five: list[tuple[float, float]] = [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)]
    assert read_dice(die(five)).as_dict() == {"dice": [5], "unsure": 0}
    assert read_dice(die([(-1.0, -1.0), (1.0, 1.0)])).as_dict() == {"dice": [2], "unsure": 0}
    broken = read_dice(die([(-1, -1), (-1, 1), (0.55, 0.1), (1, -1), (1, 1)]))
    assert broken.values == [] and len(broken.unsure) == 1


def _pips_on_cloth(pips: Sequence[tuple[float, float]], faint: Sequence[tuple[float, float]] = ()) -> np.ndarray:
    """A white die on a white cloth, drawn flat: no outline at all, only its pips (and faint ones, barely darker)."""
    image = np.full((400, 400, 3), 236, np.uint8)
    image = cv2.add(image, np.random.default_rng(5).integers(0, 6, image.shape, dtype=np.uint8))
    for (u, v), shade in [(p, 25) for p in pips] + [(p, 218) for p in faint]:
        cv2.circle(image, (int(200 + u * 30), int(200 + v * 30)), 10, (shade, shade, shade), cv2.FILLED, cv2.LINE_AA)
    return cv2.GaussianBlur(image, (3, 3), 0)


def test_a_die_with_no_outline_reads_from_its_pips_alone():
    """A face the colour of its table has no edge to measure; its pips on their grid still read, each pattern."""
    for value, pips in ((5, [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)]),
                        (6, [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]),
                        (4, [(-1, -1), (-1, 1), (1, -1), (1, 1)])):
        assert read_dice(_pips_on_cloth(pips)).as_dict() == {"dice": [value], "unsure": 0}, value


def test_pips_alone_with_a_faint_pip_or_off_the_grid_are_not_read():
    """Two pips of a 4 with the other two too faint to be found as pips is not a 2; a 5 with its middle pip off the
    grid is unsure: neither is read as another value."""
    assert read_dice(_pips_on_cloth([(-1, -1), (1, 1)])).values == [2]  # the check can fail: the same 2, clean
    half = read_dice(_pips_on_cloth([(-1, -1), (1, 1)], faint=[(-1, 1), (1, -1)]))
    assert half.values == []
    broken = read_dice(_pips_on_cloth([(-1, -1), (-1, 1), (0.5, 0.1), (1, -1), (1, 1)]))
    assert broken.values == [] and len(broken.unsure) >= 1


def _top_over_a_flatter_face(lower: tuple[int, int, int]) -> np.ndarray:
    """A white 5 drawn flat, and under it, touching, a flatter face of colour ``lower`` with two flattened pips:
    seen from above at an angle, the look of a die's top over its side face."""
    image = np.full((400, 400, 3), (40, 120, 30), np.uint8)
    cv2.rectangle(image, (140, 100), (260, 220), (245, 245, 245), cv2.FILLED)
    for u, v in [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)]:
        cv2.circle(image, (200 + u * 32, 160 + v * 32), 10, (20, 20, 20), cv2.FILLED, cv2.LINE_AA)
    cv2.rectangle(image, (140, 226), (260, 296), lower, cv2.FILLED)
    for u, v in [(-1, -1), (1, 1)]:
        cv2.ellipse(image, ((200 + u * 32, 261 + v * 19), (20, 12), 0), (20, 20, 20), cv2.FILLED, cv2.LINE_AA)
    return cv2.GaussianBlur(image, (3, 3), 0)


def test_a_side_face_is_its_tops_colour_and_a_face_of_another_colour_is_another_die():
    """Under a white top, a dimmer white face is that die's side face (left out); an orange face there is another
    die's (it stays unsure, never dropped as a side face: a throw of too few dice)."""
    assert read_dice(_top_over_a_flatter_face((170, 170, 170))).as_dict() == {"dice": [5], "unsure": 0}
    assert read_dice(_top_over_a_flatter_face((30, 120, 235))).as_dict() == {"dice": [5], "unsure": 1}


def _cloth(colour: tuple[int, int, int], seed: int) -> np.ndarray:
    """A 480 x 640 table of one colour with a fabric's weave and grain (noise, blurred along two ways)."""
    rng = np.random.default_rng(seed)
    image = np.empty((480, 640, 3), np.uint8)
    image[:] = colour
    weave = rng.normal(0, 14, (480, 640)).astype(np.float32)
    weave = cv2.GaussianBlur(weave, (0, 0), 1.0) + cv2.GaussianBlur(rng.normal(0, 30, (480, 640)).astype(np.float32),
                                                                     (0, 0), 6.0)
    return np.clip(image + weave[..., None], 0, 255).astype(np.uint8)


def _die(image: np.ndarray, centre: tuple[int, int], side: int, pips: list[tuple[float, float]]) -> np.ndarray:
    """A white die with black pips drawn flat on the picture (rounded corners, a soft shadow)."""
    out = image.copy()
    x, y = centre
    h = side // 2
    cv2.rectangle(out, (x - h + 6, y - h + 6), (x + h + 6, y + h + 6), (20, 20, 20), cv2.FILLED)
    out = cv2.addWeighted(out, 0.6, image, 0.4, 0)
    cv2.rectangle(out, (x - h, y - h), (x + h, y + h), (242, 242, 240), cv2.FILLED, cv2.LINE_AA)
    for u, v in pips:
        cv2.circle(out, (int(x + u * side * 0.27), int(y + v * side * 0.27)), max(2, side // 11), (25, 25, 25),
                   cv2.FILLED, cv2.LINE_AA)
    return cv2.GaussianBlur(out, (3, 3), 0)


FIVE = [(-1.0, -1.0), (-1.0, 1.0), (0.0, 0.0), (1.0, -1.0), (1.0, 1.0)]
TWO = [(-1.0, -1.0), (1.0, 1.0)]


def test_dice_drawn_on_cloth_read():
    """The check the negatives below stand beside: dice drawn on the same cloths are read."""
    for k, colour in enumerate(TABLES):
        picture = _die(_die(_cloth(colour, k), (220, 240), 90, FIVE), (430, 230), 90, TWO)
        assert read_dice(picture).values == [2, 5], colour


def test_bare_cloth_and_tables_give_no_die():
    """Cloth and tables of four colours with a fabric's weave and grain: no die read, none unsure."""
    for k, colour in enumerate(TABLES):
        assert read_dice(_cloth(colour, k)).as_dict() == {"dice": [], "unsure": 0}, colour


def _strewn(colour: tuple[int, int, int], seed: int) -> np.ndarray:
    """The cloth strewn with dust, crumbs and glints (pip-sized spots, some on an even pale patch: a lone pip's
    look with no die's body), lint and threads."""
    rng = np.random.default_rng(seed)
    picture = _cloth(colour, seed)
    for _ in range(25):
        r = int(rng.integers(2, 7))
        spot = (int(rng.integers(0, 60)),) * 3 if rng.random() < 0.7 else (250, 250, 250)
        at = (int(rng.integers(20, 620)), int(rng.integers(20, 460)))
        if rng.random() < 0.3:
            cv2.circle(picture, at, r * 5, (200, 205, 210), cv2.FILLED, cv2.LINE_AA)
        cv2.circle(picture, at, r, spot, cv2.FILLED, cv2.LINE_AA)
    for _ in range(6):
        pts = np.cumsum(rng.normal(0, 12, (8, 2)), axis=0) + rng.integers(40, 440, 2)
        cv2.polylines(picture, [pts.astype(np.int32)], False, (230, 230, 230), 1, cv2.LINE_AA)
    return picture


@pytest.mark.xfail(strict=True, reason="issue 47 open: the rule-based reader reads pip-sized specks as 1s "
                   "(bench/dice.py: 224 false dice per 100 strewn pictures); this passes once a reader does not")
def test_specks_and_lint_on_cloth_give_no_die():
    for k, colour in enumerate(TABLES):
        assert read_dice(_strewn(colour, 47 + k)).values == [], colour


def _real_photos(names: list[str]) -> list[tuple[str, list[int]]]:
    labels = {e["file"]: e for e in json.loads((REAL / "labels.json").read_text(encoding="utf-8"))}
    return [(name, labels[name]["dice"]) for name in names]


#: Photographs of the dev split the reader read fully right when bench/dice.py counted it (docs/dice.md): a regression
#: check only, picked after the count; the reader was neither built nor tuned on them.
DEV_REGRESSION = ["images/bartek_0010.jpg", "images/grmartin_0002.jpg"]


@pytest.mark.skipif(not (REAL / "labels.json").is_file(), reason="the real photographs (dice-real) are not here")
def test_a_few_real_photographs_still_read():
    """A regression check on two dev photographs that read right: not a measure (bench/dice.py is)."""
    for name, want in _real_photos(DEV_REGRESSION):
        assert read_dice(cv2.imread(str(REAL / name))).as_dict() == {"dice": sorted(want), "unsure": 0}, name
