"""The host side of the box protocol (shutbox.firmware.host.protocol) against the shared test vectors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shutbox.firmware.host.bundle import firmware_dir
from shutbox.firmware.host.protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    REQUEST_LINES,
    Bye,
    Hello,
    LineFramer,
    Rejected,
    Snapshot,
    StreamDecoder,
    command,
    decode,
    encode,
)

VECTORS = json.loads((firmware_dir() / "protocol_vectors.json").read_text())
BY_NAME = {v["name"]: v for v in VECTORS["lines"]}


def expected_message(v: dict) -> Hello | Snapshot | Bye:
    if v["kind"] == "hello":
        return Hello(v["seq"], v["firmware"], v["tiles"], v["board"], v["input"], v["button"], v["debounce_ms"])
    if v["kind"] == "snapshot":
        shut = tuple(i + 1 in v["shut"] for i in range(v["tiles"]))
        return Snapshot(v["seq"], shut, v["button"], v["presses"], v["why"])
    return Bye(v["seq"])


def test_vectors_are_for_this_protocol_version():
    assert VECTORS["protocol"] == PROTOCOL_VERSION


@pytest.mark.parametrize("vector", VECTORS["lines"], ids=lambda v: v["name"])
def test_decode_vector(vector):
    assert decode(vector["line"]) == expected_message(vector)
    assert decode(vector["line"].encode()) == expected_message(vector)


@pytest.mark.parametrize("vector", VECTORS["lines"], ids=lambda v: v["name"])
def test_encode_vector(vector):
    assert encode(expected_message(vector)) == vector["line"].encode()


@pytest.mark.parametrize("vector", VECTORS["accepted"], ids=lambda v: v["name"])
def test_other_spellings_decode_alike(vector):
    assert decode(vector["line"]) == expected_message(BY_NAME[vector["same_as"]])


@pytest.mark.parametrize("vector", VECTORS["rejects"], ids=lambda v: v["name"])
def test_reject_vector(vector):
    with pytest.raises(Rejected) as err:
        decode(vector["line"])
    assert err.value.reason == vector["reason"]


def test_snapshot_views():
    snap = decode(BY_NAME["tiles 1, 5 and 9 shut, button held"]["line"])
    assert isinstance(snap, Snapshot)
    assert snap.shut_tiles == {1, 5, 9}
    assert snap.open_tiles == {2, 3, 4, 6, 7, 8}
    assert snap.tiles == 9


def test_commands_are_the_ones_the_firmware_whitelists():
    device = {c["name"]: bytes.fromhex(c["send_hex"]) for c in VECTORS["commands"]}
    assert device["hello"] == REQUEST_LINES["hello"] == command("hello")
    assert device["leave for the REPL"] == REQUEST_LINES["repl"]
    assert command("snapshot") == b"S\n"
    with pytest.raises(ValueError, match="allowed: hello, snapshot, repl"):
        command("reboot")


def test_framer_resyncs_after_an_over_long_run():
    framer = LineFramer()
    good = encode(Bye(3))
    items = framer.feed(b"x" * (MAX_LINE * 3) + b"\n" + good)
    assert isinstance(items[0], Rejected) and items[0].reason == "over-length"
    assert items[1] == good.rstrip(b"\r\n")


def test_stream_decoder_skips_noise_and_corruption_and_counts_gaps():
    lines = [encode(Snapshot(seq, (False,) * 9, False, 0, "beat")) for seq in range(5)]
    corrupt = lines[2].replace(b"shut=000000000", b"shut=000010000")
    stream = b"MicroPython v1.29.0\r\n>>> \r\n" + lines[0] + lines[1] + corrupt + lines[3] + lines[4][:20]
    decoder = StreamDecoder()
    out = decoder.feed(stream)
    reasons = [o.reason for o in out if isinstance(o, Rejected)]
    assert reasons == ["noise", "noise", "checksum"]
    assert [o.seq for o in out if isinstance(o, Snapshot)] == [0, 1, 3]
    assert decoder.missed == 1  # line 2 was lost to corruption
    assert decoder.feed(lines[4][20:]) == [decode(lines[4])]
    hello = encode(Hello(0, "0.1.0", 9, "pico", "gpio", True, 30))
    decoder.feed(hello)  # the box restarted: sequence 0 is not a gap
    assert decoder.missed == 1


def test_sequence_numbers_wrap_without_a_gap():
    decoder = StreamDecoder()
    decoder.feed(encode(Bye(9998)) + encode(Bye(9999)) + encode(Bye(0)) + encode(Bye(1)))
    assert decoder.missed == 0


def test_encode_refuses_out_of_range_values():
    with pytest.raises(ValueError):
        encode(Bye(10000))
    with pytest.raises(ValueError):
        encode(Hello(1, "x" * 100, 9, "pico", "gpio", True, 30))


_snapshots = st.builds(
    Snapshot,
    seq=st.integers(0, 9999),
    shut=st.lists(st.booleans(), min_size=1, max_size=12).map(tuple),
    button=st.booleans(),
    presses=st.integers(0, 9999),
    reason=st.sampled_from(["boot", "change", "beat", "ask"]),
)


@pytest.mark.slow
@given(messages=st.lists(_snapshots, min_size=1, max_size=6), cuts=st.lists(st.integers(1, 40), max_size=20))
def test_any_chunking_of_the_stream_decodes_the_same(messages, cuts):
    stream = b"".join(encode(m) for m in messages)
    decoder = StreamDecoder()
    out: list = []
    position = 0
    for size in cuts:
        out += decoder.feed(stream[position:position + size])
        position += size
    out += decoder.feed(stream[position:])
    assert out == messages


@given(message=_snapshots, position=st.integers(0, 200), bit=st.integers(0, 6))
def test_a_flipped_bit_never_passes_as_a_different_message(message, position, bit):
    line = bytearray(encode(message))
    position %= len(line) - 2  # not the line end
    line[position] ^= 1 << bit
    try:
        decoded = decode(bytes(line))
    except Rejected:
        return
    assert decoded == message  # only a flip that changes nothing the decoder reads may pass


def test_the_example_session_in_the_protocol_document_decodes():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    lines = re.findall(r"^SB1 \d+ .*$", doc, re.M)
    assert len(lines) >= 5
    decoder = StreamDecoder()
    messages = decoder.feed("".join(line + "\r\n" for line in lines).encode())
    assert not [m for m in messages if isinstance(m, Rejected)]
    assert decoder.missed == 0
