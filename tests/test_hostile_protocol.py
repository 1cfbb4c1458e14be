"""The box's serial lines and firmware bundles from an untrusted source (issue 11, items 3 and 7): the decoder
takes whole lines only, and ``firmware deploy`` copies nothing from outside the bundle's ``device/`` folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox.base.errors import ShutboxError
from shutbox.firmware.host.bundle import read_bundle
from shutbox.firmware.host.protocol import Bye, Hello, Rejected, Snapshot, StreamDecoder, crc16, decode, encode


def framed(body: str) -> bytes:
    """A line with a correct checksum over ``body`` (which may hold anything)."""
    raw = body.encode("latin-1")
    return raw + b" *%04X\r\n" % crc16(raw)


GOOD = encode(Snapshot(seq=5, shut=(True, False, True), button=False, presses=2, reason="change"))


def test_a_good_line_decodes():
    assert decode(GOOD) == Snapshot(seq=5, shut=(True, False, True), button=False, presses=2, reason="change")


@pytest.mark.parametrize("body", [
    "SB1 5 H fw=1.0\n tiles=9 board=pico input=gpio button=1 debounce=30",
    "SB1 5 H fw=1.0\n tiles=9 board=pico input=gpio button=1 debounce=30".replace("\n", "\r"),
    "SB1 5 S shut=101 btn=0 presses=2\n why=change",
    "SB1 5 S shut=101 btn=0 presses=2 why=change\n",
    "SB1 5\n S shut=101 btn=0 presses=2 why=change",
    "SB1 5 S shut=101\x00 btn=0 presses=2 why=change",
    "SB1 5 H fw=1.0\x1b[2J tiles=9 board=pico input=gpio button=1 debounce=30",
    "SB1 5\t S shut=101 btn=0 presses=2 why=change",
])
def test_a_line_with_a_line_end_or_control_character_inside_is_rejected_even_with_a_good_checksum(body):
    with pytest.raises(Rejected):
        decode(framed(body))


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_decode_only_ever_rejects(data):
    try:
        message = decode(data)
    except Rejected as exc:
        assert exc.reason in ("checksum", "over-length", "malformed", "version", "noise")
        return
    assert isinstance(message, (Hello, Snapshot, Bye))


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=60) | st.just(GOOD) | st.just(b"\n"), max_size=30))
def test_the_stream_decoder_survives_any_byte_stream_and_still_reads_good_lines(chunks):
    decoder = StreamDecoder()
    out = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    out += decoder.feed(b"\n" + GOOD)
    assert isinstance(out[-1], Snapshot)


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=100))
def test_no_decoded_field_holds_a_control_character(body):
    try:
        message = decode(framed("SB1 1 " + body))
    except Rejected:
        return
    for value in vars(message).values():
        assert not isinstance(value, str) or value.isprintable()


# -- bundles ----------------------------------------------------------------------------------------------------


def bundle(tmp_path: Path, manifest, files=("main.py",)) -> Path:
    folder = tmp_path / "bundle"
    (folder / "device").mkdir(parents=True)
    for name in files:
        (folder / "device" / name).write_text("pass")
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (folder / "bundle.json").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("manifest", [
    {"device_files": ["main.py", "../../../etc/shadow"]},
    {"device_files": ["main.py", "/etc/passwd"]},
    {"device_files": ["main.py", "sub/x.py"]},
    {"device_files": ["main.py", ".."]},
    {"device_files": ["main.py", "x\x1b[2J.py"]},
    {"device_files": ["main.py", 7]},
    {"device_files": True},
    {"device_files": []},
    {"device_files": "main.py"},
    [1, 2],
    "[" * 100_000,
    '{"device_files": ["main.py"], "x": NaN}',
    "not json",
])
def test_a_bundle_naming_files_outside_its_device_folder_or_malformed_is_refused(tmp_path, manifest):
    folder = bundle(tmp_path, manifest)
    with pytest.raises(ShutboxError) as err:
        read_bundle(folder)
    assert "\n" not in str(err.value) and "\x1b" not in str(err.value) and len(str(err.value)) < 500


def test_a_device_file_that_is_a_link_out_of_the_bundle_is_refused(tmp_path):
    folder = bundle(tmp_path, {"device_files": ["main.py", "boxcfg.mpy"]})
    os.symlink("/etc/passwd", folder / "device" / "boxcfg.mpy")
    with pytest.raises(ShutboxError, match="leads outside device/"):
        read_bundle(folder)


def test_a_real_bundle_reads(tmp_path):
    folder = bundle(tmp_path, {"device_files": ["main.py", "box.mpy"]}, ("main.py", "box.mpy"))
    assert read_bundle(folder)["device_files"] == ["main.py", "box.mpy"]


def test_deploy_of_a_hostile_bundle_is_one_line_and_touches_no_port(cli, tmp_path):
    folder = bundle(tmp_path, {"device_files": ["main.py", "../../../etc/shadow"]})
    proc = cli("firmware", "deploy", "--port", str(tmp_path / "no-such-port"), "--bundle", str(folder))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "plain file names" in proc.stderr
