"""Smart dice: from what each die says to throws (ThrowWatch): together, one die, tilted, moved, a battery, a die
that goes and comes back, and a throw of the wrong number of dice."""

from __future__ import annotations

import math

import pytest

from shutbox.dice.ble.record import Record
from shutbox.dice.ble.throws import LOW_BATTERY, SETTLE_S, Refused, Said, Seen, Showing, Thrown, ThrowWatch, Unsure
from tests.smartdice_support import (
    BATTERY,
    LANDED,
    MOVED,
    ROLLING,
    TILTED,
    godice_fake,
    pixels_i_am_a_die,
    pixels_on_face,
)


class Table:
    """Two dice of one make and a ThrowWatch; ``t`` runs on with each thing a die does."""

    def __init__(self, protocol: str = "godice", expected: int | None = None, names: tuple[str, ...] = ("A", "B")):
        self.protocol, self.watch, self.t = protocol, ThrowWatch(expected), 0.0
        self.seen: list[Seen] = []
        for name in names:
            self.event(name, "connect")

    def event(self, die: str, event: str, data: bytes = b"", after: float = 0.1) -> list[Seen]:
        self.t += after
        out = self.watch.feed(Record(self.t, die, self.protocol, event, data))
        self.seen += out
        return out

    def says(self, die: str, data: bytes, after: float = 0.1) -> list[Seen]:
        return self.event(die, "notify", data, after)

    def roll(self, die: str) -> list[Seen]:
        return self.says(die, ROLLING[self.protocol])

    def land(self, die: str, face: int, after: float = 0.1) -> list[Seen]:
        return self.says(die, LANDED[self.protocol](face), after)

    def throws(self) -> list[Thrown]:
        return [s for s in self.seen if isinstance(s, Thrown)]


@pytest.mark.parametrize("protocol", ["godice", "pixels"])
def test_two_dice_thrown_together_are_one_throw_lowest_first(protocol: str):
    table = Table(protocol)
    table.roll("A")
    table.roll("B")
    assert table.land("A", 5) == [Showing((("A", 5), ("B", None)), table.t)]
    made = table.land("B", 2)
    assert [s for s in made if isinstance(s, Thrown)] == [Thrown((2, 5), protocol, ("A", "B"), table.t)]
    table.land("B", 2, after=3)  # lying there: no second throw
    assert len(table.throws()) == 1


def test_one_die_thrown_is_a_throw_once_it_has_lain_still_a_moment():
    table = Table()
    table.roll("A")
    table.land("A", 4)
    assert table.watch.tick(table.t + SETTLE_S - 0.1) == []
    assert table.watch.tick(table.t + SETTLE_S) == [Thrown((4,), "godice", ("A",), table.t + SETTLE_S)]


def test_a_second_die_rolled_while_the_first_lies_is_the_same_throw():
    table = Table()
    table.roll("A")
    table.land("A", 4)
    table.roll("B")
    table.land("B", 6, after=0.5)
    assert [t.dice for t in table.throws()] == [(4, 6)]


@pytest.mark.parametrize("protocol", ["godice", "pixels"])
def test_a_tilted_die_makes_the_throw_unsure_until_it_is_rolled_again(protocol: str):
    table = Table(protocol)
    table.roll("A")
    table.roll("B")
    table.land("A", 3)
    unsure = table.says("B", TILTED[protocol]())
    assert unsure == [Unsure(("B",), table.t)]
    assert "B at rest tilted" in Unsure(("B",), 0).text and "roll it again" in Unsure(("B",), 0).text
    assert table.watch.tick(math.inf) == []  # not made, nor said again
    table.roll("B")
    table.land("B", 6)
    assert [t.dice for t in table.throws()] == [(3, 6)]  # A's face as it lay


@pytest.mark.parametrize("protocol", ["godice", "pixels"])
def test_a_die_moved_or_picked_up_without_rolling_is_no_throw(protocol: str):
    table = Table(protocol)
    table.says("A", MOVED[protocol]())
    table.land("A", 2)  # turned by hand and put down
    if protocol == "godice":
        table.says("B", godice_fake(5))
    assert table.watch.end() == [] and table.throws() == []
    table.roll("A")
    table.roll("B")
    table.land("A", 1)
    picked = table.says("B", MOVED[protocol]())  # B rolled, then was picked up before landing
    assert any(isinstance(s, Said) and "B was picked up" in s.text for s in picked)
    assert table.watch.end() == [Thrown((1,), protocol, ("A",), math.inf)]


@pytest.mark.parametrize("protocol", ["godice", "pixels"])
def test_a_low_battery_is_said_once(protocol: str):
    table = Table(protocol)
    assert table.says("A", BATTERY[protocol](LOW_BATTERY)) == []
    low = table.says("A", BATTERY[protocol](LOW_BATTERY - 1))
    assert low == [Said("info", f"A's battery is at {LOW_BATTERY - 1} %: charge it soon", table.t)]
    assert table.says("A", BATTERY[protocol](5)) == []


def test_a_die_that_disconnects_is_named_and_the_throw_waits_for_it():
    table = Table()
    table.roll("A")
    table.roll("B")
    table.land("A", 6)
    table.land("B", 1)
    assert [t.dice for t in table.throws()] == [(1, 6)]
    table.roll("A")
    table.land("A", 2)
    gone = table.event("B", "disconnect")
    assert gone == [Said("link", "B disconnected; the throw waits for it (it rejoins by itself)", table.t)]
    assert table.watch.tick(table.t + 60) == []  # the turn waits: B may have rolled
    back = table.event("B", "connect", after=30)
    assert [s for s in back if isinstance(s, Said)] == [Said("link", "B is back", table.t)]
    assert [t.dice for t in table.throws()] == [(1, 6)]
    assert table.watch.tick(table.t + SETTLE_S)[0] == Thrown((2,), "godice", ("A",), table.t + SETTLE_S)


def test_a_godice_lost_while_rolling_is_rolled_again_and_a_pixels_says_its_face():
    table = Table()
    table.roll("A")
    table.roll("B")
    table.land("A", 4)
    table.event("B", "disconnect")
    back = table.event("B", "connect")
    assert any(isinstance(s, Said) and "roll it again" in s.text for s in back)
    table.roll("B")
    table.land("B", 3)
    assert [t.dice for t in table.throws()] == [(3, 4)]
    pixels = Table("pixels")
    pixels.roll("A")
    pixels.roll("B")
    pixels.land("A", 4)
    pixels.event("B", "disconnect")
    pixels.event("B", "connect")
    pixels.says("B", pixels_i_am_a_die(5, 2, 70))  # what it says when asked who it is, once back
    assert [t.dice for t in pixels.throws()] == [(2, 4)]


def test_pixels_rolled_then_on_face_is_one_landing():
    table = Table("pixels")
    table.roll("A")
    table.roll("B")
    for die, face in (("A", 3), ("B", 5)):
        table.says(die, pixels_on_face(face, old=True))
        table.says(die, pixels_on_face(face))
    assert [t.dice for t in table.throws()] == [(3, 5)]


def test_a_throw_of_the_wrong_number_of_dice_is_refused_with_the_reason():
    table = Table(expected=2, names=("A", "B", "C"))
    table.roll("A")
    table.roll("B")
    table.roll("C")
    table.land("A", 1)
    table.land("B", 2)
    refused = table.land("C", 3)
    assert refused[-1] == Refused((1, 2, 3), "throw of 3 dice (1 2 3) refused: 2 dice expected in a throw", table.t)
    assert table.throws() == []


def test_a_die_heard_before_it_connects_is_ignored():
    watch = ThrowWatch()
    assert watch.feed(Record(0.0, "X", "godice", "notify", ROLLING["godice"])) == []
    assert watch.end() == []
