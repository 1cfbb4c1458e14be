"""The dice reader's second look: the network on crops of the test set's dice, and what the reader does with its
answers (a fake network at the module boundary, so the reader's own rule runs)."""

from __future__ import annotations

import json

import pytest

cv2 = pytest.importorskip("cv2")

import numpy as np  # noqa: E402

from shutbox.base.errors import ShutboxError  # noqa: E402
from shutbox.dice import second_look, settle  # noqa: E402
from shutbox.dice.reader import Die, Reading, read_dice  # noqa: E402
from shutbox.dice.second_look import NO_TOP, OFF, SIZE, crop, look  # noqa: E402
from tests.conftest import REPO  # noqa: E402

SET = REPO / "tests" / "dice_set"
LABELS = json.loads((SET / "labels.json").read_text(encoding="utf-8"))


def test_the_network_ships_with_the_package():
    assert second_look.MODEL.is_file() and second_look.MODEL.stat().st_size < 2_000_000
    assert second_look.MODEL.parent == REPO / "dice" / "shutbox" / "dice"  # in the wheel: tests/test_install_parts.py


def test_a_crop_is_the_networks_input_also_past_the_pictures_edge():
    image = np.random.default_rng(1).integers(0, 256, (120, 160, 3), dtype=np.uint8)
    for box in ((10, 10, 40, 30), (-30, -20, 50, 50), (140, 100, 60, 60), (500, 500, 10, 10)):
        out = crop(image, box)
        assert out.shape == (SIZE, SIZE, 3) and np.isfinite(out).all(), box


def test_the_network_reads_the_dice_the_rules_read_and_never_another_value():
    """Crops of dice the rules read (every 10th picture): the network agrees with the rules on most, and where it
    gives another answer it is not sure of it."""
    agree = total = 0
    for name in sorted(LABELS)[::10]:
        image = cv2.imread(str(SET / name))
        reading = read_dice(image, second_look=False)
        for die, (value, p) in zip(reading.dice, look(image, [d.box for d in reading.dice]), strict=True):
            total += 1
            agree += value == die.value and p >= second_look.SURE
            assert value in (die.value, OFF, NO_TOP) or p < second_look.SURE, (name, die, value, p)
    assert total > 100 and agree >= 0.9 * total, (agree, total)


def test_the_network_sees_no_die_on_an_empty_table():
    for name in [n for n in LABELS if not LABELS[n]["dice"]][:6]:
        image = cv2.imread(str(SET / name))
        h, w = image.shape[:2]
        answers = look(image, [(w // 2 - 40, h // 2 - 40, 80, 80), (20, 20, 60, 60)])
        assert all(value in (NO_TOP, OFF) or p < second_look.SURE for value, p in answers), (name, answers)


@pytest.mark.parametrize(("answers", "values", "unsure"), [
    # (value, probability) per unsure box; the boxes: one far from the read 5, one on its side, one on it
    ([(3, 0.99), (OFF, 0.99), (NO_TOP, 0.99)], [3, 5], 0),  # read; a side face of the 5: dropped; no die: dropped
    ([(3, 0.80), (OFF, 0.80), (NO_TOP, 0.80)], [5], 3),  # nothing sure: all stay unsure
    ([(OFF, 0.99), (2, 0.99), (4, 0.99)], [5], 3),  # off a die far from any read: unsure; a value on the read 5's
    # side face or on the 5 itself is that die again, not another: unsure
    ([(NO_TOP, 0.99), (NO_TOP, 0.99), (6, 0.99)], [5], 1),
    ([(1, 0.99), (NO_TOP, 0.99), (NO_TOP, 0.99)], [1, 5], 0),  # a 1 beside a die read (its size frames the crop)
])
def test_the_reader_takes_only_what_the_second_look_is_sure_of(monkeypatch, answers, values, unsure):
    read = Reading((Die(5, (100, 100, 50, 50)),), ())
    boxes = [(300, 300, 50, 50), (110, 140, 50, 40), (102, 98, 50, 50)]
    monkeypatch.setattr(settle, "look", _looks(answers))
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading(read.dice, tuple(boxes)))
    assert out.values == values and len(out.unsure) == unsure


def _looks(*calls):
    """A fake ``look`` giving each call its answers in turn (one per box asked of it), then nothing sure."""
    given = list(calls)

    def fake(image, boxes, side=0.0):
        answers = given.pop(0) if given else [(OFF, 0.0)] * len(boxes)
        assert len(answers) == len(boxes)
        return answers
    return fake


#: A read 5 (side 50) and unsure boxes around: a 2's two lone pips (20 x 20) at 30 apart, a third pip 40 below the
#: second, and one far off.
FIVE = Die(5, (100, 100, 50, 50))
PIPS = [(300, 300, 20, 20), (330, 300, 20, 20), (330, 340, 20, 20), (500, 100, 20, 20)]


def test_two_unsure_pips_near_each_other_are_looked_at_as_one_die(monkeypatch):
    """Boxes the second look leaves unsure, each a lone pip, are looked at in pairs as one die of the read dice's
    size around the middle between them; a pair read as 2 to 6 is a die read, and its two boxes are gone."""
    asked = []

    def fake(image, boxes, side=0.0):
        asked.append(list(boxes))
        if len(asked) == 1:
            return [(OFF, 0.0)] * len(boxes)
        return [(2, 0.99) if b == (300, 285, 50, 50) else (OFF, 0.5) for b in boxes]

    monkeypatch.setattr(settle, "look", fake)
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), tuple(PIPS)))
    # pairs within the side (50): pips 1-2 (30 apart), 2-3 (40), 1-3 (50, on the reach); pip 4 is far
    assert asked[1] == [(300, 285, 50, 50), (300, 305, 50, 50), (315, 305, 50, 50)]
    assert out.values == [2, 5] and out.unsure == (PIPS[2], PIPS[3])


@pytest.mark.parametrize(("pair_answers", "values", "unsure"), [
    ([(2, 0.80), (OFF, 0.0), (OFF, 0.0)], [5], 4),  # not sure enough
    ([(1, 0.99), (OFF, 0.0), (OFF, 0.0)], [5], 4),  # two pips are never a 1
    ([(2, 0.99), (3, 0.99), (OFF, 0.0)], [5], 4),  # two pairs sharing pip 2: neither is taken
    ([(2, 0.99), (OFF, 0.0), (3, 0.99)], [5], 4),  # ... nor pips 1 and 3
    ([(OFF, 0.0), (3, 0.99), (OFF, 0.0)], [3, 5], 2),
])
def test_a_pair_is_read_only_when_sure_of_a_value_its_pips_in_no_other_pair(monkeypatch, pair_answers, values,
                                                                             unsure):
    monkeypatch.setattr(settle, "look", _looks([(OFF, 0.0)] * 4, pair_answers))
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), tuple(PIPS)))
    assert out.values == values and len(out.unsure) == unsure


def test_a_pair_on_a_die_read_is_that_die_again(monkeypatch):
    pips = ((105, 110, 20, 20), (125, 120, 20, 20))  # two pips on the read 5 itself
    monkeypatch.setattr(settle, "look", _looks([(OFF, 0.0)] * 2, [(2, 0.99)]))
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), pips))
    assert out.values == [5] and out.unsure == pips


def test_pairs_are_looked_at_only_beside_dice_read(monkeypatch):
    """With no die read there is no die size to frame a pair by: the second look's answers stand."""
    monkeypatch.setattr(settle, "look", _looks([(OFF, 0.0)] * 4))
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((), tuple(PIPS)))
    assert out.values == [] and out.unsure == tuple(PIPS)


def test_two_unsure_boxes_read_alike_on_one_die_stay_unsure(monkeypatch):
    monkeypatch.setattr(settle, "look", _looks([(3, 0.99), (3, 0.99)]))
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8),
                               Reading((), ((100, 100, 40, 40), (110, 105, 40, 40))))
    assert out.values == [] and len(out.unsure) == 2


def test_a_1_with_no_die_read_beside_it_stays_unsure(monkeypatch):
    """A lone pip's box is its patch: with no die read to size its crop, a pip of any die looks like a 1."""
    monkeypatch.setattr(settle, "look", lambda image, boxes, side: [(1, 0.999)])
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((), ((100, 100, 40, 40),)))
    assert out.values == [] and len(out.unsure) == 1
    monkeypatch.setattr(settle, "look", lambda image, boxes, side: [(4, 0.999)])
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((), ((100, 100, 40, 40),)))
    assert out.values == [4] and not out.unsure


def test_a_box_counts_only_when_both_framings_give_one_answer(monkeypatch):
    """The network's scores faked per crop (near framings first, then the wider): agreeing framings give their class
    at the lower probability; disagreeing ones give OFF at 0, never either framing's value."""
    class Net:
        def setInput(self, batch):  # noqa: N802 (cv2.dnn's name)
            assert batch.shape == (4, 3, SIZE, SIZE)

        def forward(self):
            sure3, surer3, sure4 = np.eye(8)[3] * 5, np.eye(8)[3] * 8, np.eye(8)[4] * 20  # p 0.955, 0.998, ~1
            return np.stack([sure3, sure3, surer3, sure4])  # box 1: 3 and 3; box 2: 3 and 4

    monkeypatch.setattr(second_look, "_net", lambda: Net())
    (first, p1), (second, p2) = look(np.zeros((200, 200, 3), np.uint8), [(10, 10, 40, 40), (100, 100, 40, 40)])
    assert first == 3 and p1 == pytest.approx(np.exp(5) / (np.exp(5) + 7))
    assert (second, p2) == (OFF, 0.0)


def _scan_looks(answer):
    """A fake ``look``: its first call (each box as it is) sure of nothing, then each window of a scan answered by
    ``answer(middle)`` (the window's middle)."""
    calls = []

    def fake(image, boxes, side=0.0):
        calls.append(list(boxes))
        if len(calls) == 1:
            return [(OFF, 0.0)] * len(boxes)
        return [answer((x + w / 2, y + h / 2)) for x, y, w, h in boxes]
    return fake, calls


#: An unsure box of two dice's size beside the read 5 (side 50, middle 125, 125): its windows every 12.5 pixels.
WIDE = (200, 100, 100, 50)


def near(point, spot, reach=4):
    return abs(point[0] - spot[0]) <= reach and abs(point[1] - spot[1]) <= reach


@pytest.mark.parametrize(("answer", "values", "unsure"), [
    # a 3's top at (225, 125), a window on it; elsewhere off a top: the 3 read, the box gone
    (lambda m: (3, 0.99) if near(m, (225, 125)) else (OFF, 0.99), [3, 5], 0),
    # the 3 seen by several windows around its middle: one die
    (lambda m: (3, 0.9) if near(m, (225, 125), 13) else (OFF, 0.99), [3, 5], 0),
    # ... with a 4 beside it (the two within 0.75 of a side): two values on one spot, unsure
    (lambda m: (3, 0.99) if near(m, (225, 125)) else (4, 0.99) if near(m, (250, 125)) else (OFF, 0.99), [5], 1),
    # a 3 and a 6 a die apart: both read
    (lambda m: (3, 0.99) if near(m, (225, 125)) else (6, 0.99) if near(m, (287.5, 125)) else (OFF, 0.99),
     [3, 5, 6], 0),
    # a 3 read, and a window unsure of a 6 a die away: another die may be there, unsure
    (lambda m: (3, 0.99) if near(m, (225, 125)) else (6, 0.6) if near(m, (287.5, 125)) else (OFF, 0.99), [5], 1),
    # a 3 not sure enough: unsure
    (lambda m: (3, 0.8) if near(m, (225, 125)) else (NO_TOP, 0.99), [5], 1),
])
def test_a_scan_reads_a_die_where_its_top_is_and_only_when_nothing_else_may_be_there(monkeypatch, answer, values,
                                                                                     unsure):
    fake, calls = _scan_looks(answer)
    monkeypatch.setattr(settle, "look", fake)
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), (WIDE,)))
    assert len(calls[1]) == 9 * 5 and all(b[2:] == (50, 50) for b in calls[1])  # windows of the read die's size
    assert out.values == values and len(out.unsure) == unsure
    if values == [3, 5]:
        assert next(d for d in out.dice if d.value == 3).box == (200, 100, 50, 50)


def test_a_top_a_scan_finds_on_a_die_read_is_that_die_again(monkeypatch):
    fake, _ = _scan_looks(lambda m: (5, 0.99) if near(m, (125, 125), 20) else (NO_TOP, 0.4))
    monkeypatch.setattr(settle, "look", fake)
    box = (110, 110, 60, 60)  # over the read 5
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), (box,)))
    assert out.values == [5] and out.unsure == (box,)


@pytest.mark.parametrize(("box", "off", "dropped"), [
    ((100, 150, 50, 30), 1.0, True),  # below the 5, every window off a top: its side face
    ((100, 150, 50, 30), 0.6, False),  # ... but too few windows sure of it
    ((400, 300, 50, 30), 1.0, False),  # far from every die read: not a side face of one
    ((100, 70, 50, 30), 1.0, False),  # above the 5: another die behind it, its top's middle hidden
])
def test_a_box_with_no_top_in_it_beside_a_die_read_is_its_side_face(monkeypatch, box, off, dropped):
    grid = settle._grid(box, 50)
    sure = set(grid[:round(off * len(grid))])
    fake, _ = _scan_looks(lambda m: (OFF, 0.99) if min(grid, key=lambda g: abs(g[0] - m[0]) + abs(g[1] - m[1])) in sure
                          else (OFF, 0.5))
    monkeypatch.setattr(settle, "look", fake)
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), (box,)))
    assert out.values == [5] and out.unsure == (() if dropped else (box,))


def test_a_side_face_is_not_dropped_when_a_window_may_see_a_top(monkeypatch):
    box = (100, 150, 50, 30)
    fake, _ = _scan_looks(lambda m: (2, 0.6) if near(m, (125, 165), 7) else (OFF, 0.99))
    monkeypatch.setattr(settle, "look", fake)
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), (box,)))
    assert out.unsure == (box,)


#: A 3 read below the read 5 (its middle 0.81 of a side down and a little right): where the 5's side face would be.
UNDER = Die(3, (105, 140, 50, 50))


@pytest.mark.parametrize(("answer", "values", "unsure"), [
    ((OFF, 0.6), [5], 1),  # both framings say off a top, more likely than not: unsure (and not sure enough to drop)
    ((OFF, 0.9), [5], 0),  # ... sure of it: unsure, then dropped as the 5's side face by the look at each box
    ((3, 0.9), [3, 5], 0),  # a top: kept
    ((OFF, 0.4), [3, 5], 0),  # not likely enough: kept
])
def test_a_die_read_where_another_die_has_its_side_face_is_looked_at(monkeypatch, answer, values, unsure):
    asked = []

    def fake(image, boxes, side=0.0):
        asked.append(list(boxes))
        return [answer if len(asked) <= 2 else (OFF, 0.0)] * len(boxes)
    monkeypatch.setattr(settle, "look", fake)
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE, UNDER), ()))
    assert asked[0] == [UNDER.box]  # the 5 is above the 3: not looked at
    assert out.values == values and len(out.unsure) == unsure


def test_dice_side_by_side_or_apart_are_not_looked_at(monkeypatch):
    asked = []
    monkeypatch.setattr(settle, "look", lambda image, boxes, side=0.0: asked.append(boxes) or [])
    level = Die(3, (140, 100, 50, 50))  # beside the 5, level with it
    far = Die(3, (100, 300, 50, 50))  # below it, a die's length away
    for dice in ((FIVE, level), (FIVE, far)):
        out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading(dice, ()))
        assert out.values == sorted(d.value for d in dice) and not out.unsure
    assert asked == []


@pytest.mark.parametrize(("box", "dropped"), [
    ((110, 140, 50, 40), True),  # below the read 5: its side face
    ((105, 70, 50, 40), False),  # above it: another die behind it, its top's middle hidden
])
def test_a_box_off_a_top_is_a_side_face_only_below_a_die_read(monkeypatch, box, dropped):
    monkeypatch.setattr(settle, "look", _looks([(OFF, 0.99)]))
    out = settle.looked_again(np.zeros((480, 640, 3), np.uint8), Reading((FIVE,), (box,)))
    assert out.values == [5] and out.unsure == (() if dropped else (box,))


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_a_missing_or_damaged_network_is_a_one_line_error(tmp_path, monkeypatch, damage):
    model = tmp_path / "second_look.onnx"
    if damage == "truncated":
        model.write_bytes(second_look.MODEL.read_bytes()[:300_000])
    monkeypatch.setattr(second_look, "MODEL", model)
    second_look._net.cache_clear()
    try:
        with pytest.raises(ShutboxError, match=r"^the dice reader's network .*second_look.onnx is missing or damaged; "
                                               r"reinstall shutbox$"):
            look(np.zeros((100, 100, 3), np.uint8), [(10, 10, 40, 40)])
    finally:
        second_look._net.cache_clear()


def test_looks_from_several_threads_at_once_each_get_their_own_answers():
    """A camera and phones' photos are read in threads: one network, its input set then run, one thread at a time."""
    from concurrent.futures import ThreadPoolExecutor

    pictures = [cv2.imread(str(SET / name)) for name in sorted(LABELS)[:8]]
    rng = np.random.default_rng(5)
    jobs = [(i % len(pictures), [(int(x), int(y), 60, 60) for x, y in rng.integers(0, 300, (rng.integers(1, 30), 2))])
            for i in range(48)]
    alone = [look(pictures[k], boxes) for k, boxes in jobs]
    with ThreadPoolExecutor(6) as pool:
        together = list(pool.map(lambda job: look(pictures[job[0]], job[1]), jobs))
    assert together == alone
