"""What the second look makes of the dice the rules leave unsure: each read, dropped, or left unsure.

First each die read where a die read beside it has its side face (below it) is looked at: one the network says is off
a top is unsure. Then three steps, each asking the network (``second_look.look``) and taking only answers at ``SURE``:
1. each unsure box as it is: a value is a die read, no die or a read die's side face (below it) is dropped;
2. pairs of boxes still unsure, near each other, as one die around the middle between them (a 2's or a 3's pips, too
   far apart to grow one face, each its own lone pip's box);
3. each box still unsure scanned with windows of a die's size: a die whose box took in its side faces, or the die it
   touches, is read where its top's middle is; a box with no top in it, beside a die read and below it, is dropped (its
   side face).

Steps 2 and 3 frame their windows by the read dice's size, so they run only when dice were read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from shutbox.dice.reading import Box, Die, Reading
from shutbox.dice.second_look import NO_TOP, OFF, SURE, look

#: A die read at a second look this near a die read already (its middle, in the larger box's longer side) is that die.
SAME_DIE = 0.75
#: An unsure box smaller than this share of the dice read's (their median longer side) is looked at as large.
DIE_SIDE = 0.9
#: An unsure box the second look finds on a die but off its top (a side face) is a read die's when this near it and
#: below it in the picture (``_below``).
ITS_SIDE = 0.85
#: Two unsure boxes this near (their middles, in the read dice's median side) may be one face's pips.
PAIR_REACH = 1.0
#: A scan's windows are this far apart (in the read dice's median side): a top's middle is within a quarter side of
#: one, where the network was taught to read it (``train_second_look.NEAR``).
SCAN_STEP = 0.25
#: Windows read alike this near each other (in sides) are one die's.
ONE_TOP = 0.5
#: A scan reads nothing in a box where a window gives a value at this probability or more away from every die read:
#: another die may be there.
ANOTHER_TOP = 0.5
#: A die read below a die read beside it (where its side face is) is not vouched for when both framings say it is on a
#: die but off its top with this probability or more: more likely a side face than anything else.
NOT_A_TOP = 0.5
#: A box a scan reads nothing in, beside a die read and below it, is that die's side face when at least this share of
#: its windows are sure to be on a die but off its top (and none gives a value at ``ANOTHER_TOP``).
SIDE_SHARE = 0.7


def looked_again(image: np.ndarray, reading: Reading) -> Reading:
    """The reading with its doubtful dice read checked and its unsure dice looked at again (the module's steps)."""
    sides = sorted(max(d.box[2:]) for d in reading.dice)
    side = sides[len(sides) // 2] if sides else 0.0
    reading = _checked(image, reading, DIE_SIDE * side)
    if not reading.unsure:
        return reading
    settled = _one_by_one(image, reading, DIE_SIDE * side)
    if not side or not settled.unsure:
        return settled
    return _scanned(image, _paired(image, settled, side), side)


def _checked(image: np.ndarray, reading: Reading, least: float) -> Reading:
    """The reading with each die read below a die read beside it, where that die's side face would be, looked at: one
    that both framings say is on a die but off its top (at ``NOT_A_TOP``) is unsure, a side face the rules may have
    read as a top (the steps after may drop it, read it, or leave it unsure)."""
    doubtful = [d for d in reading.dice if _below(d.box, [e for e in reading.dice if e is not d])]
    if not doubtful:
        return reading
    answers = look(image, [d.box for d in doubtful], least)
    sides = {d.box for d, (value, p) in zip(doubtful, answers, strict=True) if value == OFF and p >= NOT_A_TOP}
    if not sides:
        return reading
    return Reading(tuple(d for d in reading.dice if d.box not in sides), reading.unsure + tuple(sorted(sides)))


def _one_by_one(image: np.ndarray, reading: Reading, least: float) -> Reading:
    """Each unsure die the network is sure of read (a value), dropped (no die there) or, when it is on a die but off
    its top, below a die read (its side face), dropped too. A die read so beside a die read already (``SAME_DIE``)
    stays unsure, and so do two read so beside each other. A 1 is taken only beside dice read, whose size frames its
    crop (``least``): a lone pip's box is its patch, and a crop of it alone looks alike whether its die is a 1 or a
    die whose other pips were not found (a white die on a white cloth)."""
    answers = look(image, list(reading.unsure), least)
    new = [Die(value, b) for b, (value, p) in zip(reading.unsure, answers, strict=True)
           if p >= SURE and value not in (NO_TOP, OFF) and (value != 1 or reading.dice)]
    taken = [d for d in new if all(_apart(d.box, r.box) >= SAME_DIE for r in reading.dice)
             and all(_apart(d.box, o.box) >= SAME_DIE for o in new if o is not d)]
    dice = reading.dice + tuple(taken)
    read_again = {d.box for d in taken}

    def dropped(b: Box, value: int, p: float) -> bool:
        return p >= SURE and (value == NO_TOP or value == OFF and _below(b, dice))

    kept = [b for b, (value, p) in zip(reading.unsure, answers, strict=True)
            if b not in read_again and not dropped(b, value, p)]
    return Reading(dice, tuple(kept))


def _paired(image: np.ndarray, reading: Reading, side: float) -> Reading:
    """The reading with each pair of unsure boxes that are one face's pips read as that face. The pair is looked at as
    one die of the read dice's size (``side``) around the middle between them, where a 2's or a 3's middle is; it is
    read when the network is sure of a value of 2 or more there, not beside a die read (``SAME_DIE``), and neither box
    is in another pair so read."""
    boxes = reading.unsure
    pairs = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
             if math.dist(_middle(boxes[i]), _middle(boxes[j])) <= PAIR_REACH * side]
    if not pairs:
        return reading
    windows = [_window(((ax + bx) / 2, (ay + by) / 2), side)
               for (ax, ay), (bx, by) in ((_middle(boxes[i]), _middle(boxes[j])) for i, j in pairs)]
    answers = look(image, windows)
    read = [(i, j, Die(value, w)) for (i, j), w, (value, p) in zip(pairs, windows, answers, strict=True)
            if p >= SURE and 2 <= value <= 6 and not _on_a_die(_middle(w), reading.dice, side)]
    held = [k for i, j, _ in read for k in (i, j)]
    taken = [(i, j, die) for i, j, die in read if held.count(i) == 1 and held.count(j) == 1]
    gone = {k for i, j, _ in taken for k in (i, j)}
    return Reading(reading.dice + tuple(die for _, _, die in taken),
                   tuple(b for k, b in enumerate(boxes) if k not in gone))


def _scanned(image: np.ndarray, reading: Reading, side: float) -> Reading:
    """The reading with each unsure box scanned: windows of the read dice's size (``side``) at every ``SCAN_STEP``
    over the box, all looked at in one batch. Windows the network is sure read a value of are grouped (alike, within
    ``ONE_TOP``); a group on a die read is that die's top again. The rest are dice read, and the box is gone, when
    they are not two values on one spot (within ``SAME_DIE``) and no window gives a value at ``ANOTHER_TOP`` away
    from them and the dice read (a die the network is not sure of). A box with no window giving a value so, beside and
    below a die read, most of its windows (``SIDE_SHARE``) sure to be off a top, is that die's side face: dropped.
    Else the box stays unsure."""
    grids = [_grid(b, side) for b in reading.unsure]
    windows = [_window(c, side) for grid in grids for c in grid]
    answers = look(image, windows)
    dice = list(reading.dice)
    kept: list[Box] = []
    at = 0
    for box, grid in zip(reading.unsure, grids, strict=True):
        mine, at = answers[at:at + len(grid)], at + len(grid)
        tops = [(c, value) for c, (value, p) in zip(grid, mine, strict=True) if p >= SURE and 1 <= value <= 6]
        groups: list[tuple[int, list[tuple[float, float]]]] = []
        for c, value in tops:
            group = next((g for g in groups if g[0] == value and any(math.dist(c, o) <= ONE_TOP * side for o in g[1])),
                         None)
            if group is None:
                groups.append((value, [c]))
            else:
                group[1].append(c)
        found = [Die(value, _window((sum(x for x, _ in cs) / len(cs), sum(y for _, y in cs) / len(cs)), side))
                 for value, cs in groups]
        found = [d for d in found if not _on_a_die(_middle(d.box), dice, side)]
        clashing = any(math.dist(_middle(d.box), _middle(e.box)) < SAME_DIE * side
                       for d in found for e in found if d is not e)
        unexplained = any(1 <= value <= 6 and p >= ANOTHER_TOP
                          and all(math.dist(c, _middle(d.box)) > ONE_TOP * side for d in found + dice)
                          for c, (value, p) in zip(grid, mine, strict=True))
        if found and not clashing and not unexplained:
            dice += found
        elif found or unexplained or not _below(box, dice) or \
                sum(value == OFF and p >= SURE for value, p in mine) < SIDE_SHARE * len(grid):
            kept.append(box)
    return Reading(tuple(dice), tuple(kept))


def _below(box: Box, dice: Sequence[Die]) -> bool:
    """Is a box within ``ITS_SIDE`` of a die and below it in the picture? Seen from above, a die's side faces are
    below its top; a box above a die is another die behind it, its top's middle hidden (the network sees no top's
    middle there either)."""
    return any(_apart(box, d.box) < ITS_SIDE and _middle(box)[1] > _middle(d.box)[1] for d in dice)


def _apart(a: Box, b: Box) -> float:
    """How far apart two boxes' middles are, in the larger box's longer side."""
    return math.dist(_middle(a), _middle(b)) / max(a[2:] + b[2:])


def _grid(box: Box, side: float) -> list[tuple[float, float]]:
    """Points every ``SCAN_STEP`` sides over a box, its corners among them."""
    x, y, w, h = box
    step = SCAN_STEP * side
    xs = [x + w * k / n for n in [max(1, math.ceil(w / step))] for k in range(n + 1)]
    ys = [y + h * k / n for n in [max(1, math.ceil(h / step))] for k in range(n + 1)]
    return [(cx, cy) for cy in ys for cx in xs]


def _on_a_die(point: tuple[float, float], dice: tuple[Die, ...] | list[Die], side: float) -> bool:
    """Is a point within ``SAME_DIE`` of a die's middle (in the larger of its side and ``side``)?"""
    return any(math.dist(point, _middle(d.box)) < SAME_DIE * max(side, *d.box[2:]) for d in dice)


def _window(middle: tuple[float, float], side: float) -> Box:
    return (round(middle[0] - side / 2), round(middle[1] - side / 2), round(side), round(side))


def _middle(box: Box) -> tuple[float, float]:
    return (box[0] + box[2] / 2, box[1] + box[3] / 2)
