"""Smart dice: the bytes of both makes read right (every face, rolling, tilted, moved, battery), anything else read
as nothing, and random notifications never crash the parsers nor make up a throw."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox.dice.ble.protocol import (
    FACES,
    Battery,
    Landed,
    Moved,
    Rolling,
    Tilted,
    Unknown,
    parse,
    parse_godice,
    parse_pixels,
)
from shutbox.dice.ble.record import Record
from shutbox.dice.ble.throws import Thrown, ThrowWatch
from tests.smartdice_support import (
    GODICE_ROLLING,
    PIXELS_ROLLING,
    godice_battery,
    godice_fake,
    godice_moved,
    godice_stable,
    godice_tilted,
    pixels_battery,
    pixels_crooked,
    pixels_handling,
    pixels_i_am_a_die,
    pixels_on_face,
)


@pytest.mark.parametrize("face", FACES)
def test_godice_every_face_at_rest(face: int):
    assert parse_godice(godice_stable(face)) == Landed(face)
    for wobble in (-20, 20):  # a die on felt is never exactly level
        assert parse_godice(godice_stable(face, wobble)) == Landed(face)


def test_godice_the_other_messages():
    assert parse_godice(GODICE_ROLLING) == Rolling()
    assert parse_godice(godice_tilted()) == Tilted()
    assert parse_godice(godice_moved()) == Moved() and parse_godice(godice_fake()) == Moved()
    assert parse_godice(godice_battery(12)) == Battery(12)
    assert parse_godice(bytes.fromhex("53000040")) == Landed(2)  # S, (0, 0, 64)
    assert parse_godice(bytes.fromhex("5300c000")) == Landed(4)  # S, (0, -64, 0): signed bytes


@pytest.mark.parametrize("data", [b"", b"S", b"S\x00\x40", b"S\x00\x00\x40\x00", b"S\x00\x00\x00", b"TS\x00",
                                  b"Bat", b"Bat\xc8", b"Col\x01", b"RR", b"\xff\xfe", b"MS\x01\x02"])
def test_godice_what_it_does_not_know_is_nothing(data: bytes):
    assert parse_godice(data) == Unknown()


@pytest.mark.parametrize("face", FACES)
def test_pixels_every_face_at_rest_in_new_and_old_firmware(face: int):
    assert parse_pixels(pixels_on_face(face)) == Landed(face)
    assert parse_pixels(pixels_on_face(face, old=True)) == Landed(face)


def test_pixels_the_other_messages():
    assert parse_pixels(PIXELS_ROLLING) == Rolling()
    assert parse_pixels(pixels_crooked()) == Tilted()
    assert parse_pixels(pixels_handling()) == Moved()
    assert parse_pixels(pixels_battery(9)) == Battery(9)
    assert parse("pixels", pixels_i_am_a_die(5, 3, 40)) == (Battery(40), Landed(3))
    assert parse("pixels", pixels_i_am_a_die(3, 1, 101)) == (Unknown(), Rolling())


@pytest.mark.parametrize("data", [b"", b"\x03", b"\x03\x05", b"\x03\x05\x06", b"\x03\x00\x01", b"\x03\x09\x01",
                                  b"\x03\x05\x00\x00", b"\x22\xc8\x00", b"\x02\x00", b"\x1d\x01\x02"])
def test_pixels_what_it_does_not_know_is_nothing(data: bytes):
    assert parse_pixels(data) == Unknown() or data[:1] == b"\x02"
    assert all(e == Unknown() for e in parse("pixels", data))


@settings(max_examples=400, deadline=None)
@given(protocol=st.sampled_from(["godice", "pixels"]), data=st.binary(max_size=40))
def test_any_bytes_are_read_without_a_traceback(protocol: str, data: bytes):
    for event in parse(protocol, data):
        assert isinstance(event, Rolling | Landed | Tilted | Moved | Battery | Unknown)
        if isinstance(event, Landed):
            assert event.face in FACES
        if isinstance(event, Battery):
            assert 0 <= event.percent <= 100


def _noise(protocol: str) -> st.SearchStrategy[bytes]:
    """Random notifications, less those that say a die is rolling (without a roll no throw is possible)."""
    return st.binary(max_size=24).filter(lambda d: not any(isinstance(e, Rolling) for e in parse(protocol, d)))


@settings(max_examples=150, deadline=None)
@given(protocol=st.sampled_from(["godice", "pixels"]), data=st.data())
def test_random_notifications_never_make_up_a_throw(protocol: str, data: st.DataObject):
    watch = ThrowWatch()
    seen = []
    for name in ("A", "B"):
        seen += watch.feed(Record(0.0, name, protocol, "connect"))
    payloads = data.draw(st.lists(st.tuples(st.sampled_from(["A", "B"]), _noise(protocol)), max_size=60))
    for i, (name, payload) in enumerate(payloads):
        seen += watch.feed(Record(i * 0.5, name, protocol, "notify", payload))
    seen += watch.end()
    assert not any(isinstance(s, Thrown) for s in seen)


@settings(max_examples=150, deadline=None)
@given(protocol=st.sampled_from(["godice", "pixels"]), data=st.data())
def test_random_notifications_with_rolls_make_only_real_throws(protocol: str, data: st.DataObject):
    """Noise mixed with real rolls: no traceback, and every throw made is of dice that rolled, 1 to 6 each."""
    roll = GODICE_ROLLING if protocol == "godice" else PIXELS_ROLLING
    watch = ThrowWatch()
    seen = []
    for name in ("A", "B"):
        seen += watch.feed(Record(0.0, name, protocol, "connect"))
    payloads = data.draw(st.lists(st.tuples(st.sampled_from(["A", "B"]), st.one_of(st.binary(max_size=24),
                                                                                   st.just(roll))), max_size=60))
    rolled: set[str] = set()
    for i, (name, payload) in enumerate(payloads):
        if any(isinstance(e, Rolling) for e in parse(protocol, payload)):
            rolled.add(name)
        for s in watch.feed(Record(i * 0.5, name, protocol, "notify", payload)):
            if isinstance(s, Thrown):
                assert set(s.names) <= rolled and all(v in FACES for v in s.dice) and len(s.dice) == len(s.names)
                rolled -= set(s.names)
