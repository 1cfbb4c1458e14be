"""The firmware's error line and the host's reading of a board at its REPL (issue 46, item 1), without a board:
the line as MicroPython's unix port writes it decodes on the host, the REPL's banner, prompt and tracebacks are
recognised and protocol lines are not."""

from __future__ import annotations

import os
import subprocess

import pytest

from shutbox.companion.live.link import crash_text, repl_text
from shutbox.companion.sim.box import find_micropython
from shutbox.firmware.host.bundle import firmware_dir
from shutbox.firmware.host.protocol import MAX_LINE, Crash, Rejected, StreamDecoder, crc16, decode, encode
from shutbox.firmware.host.repl import ends_at_prompt, is_repl_line

MESSAGES = ["can't convert str to int", "", "100% wrong: ünïcode\tand\x00 controls", "x" * 400]


def device_line(kind: str, message: str, crashes: int, restart: bool) -> bytes:
    script = f"import wire, sys\nsys.stdout.buffer.write(wire.crash(7, {kind!r}, {message!r}, {crashes}, {restart}))\n"
    proc = subprocess.run([find_micropython(), "-c", script], capture_output=True, timeout=30,
                          env=dict(os.environ, MICROPYPATH=str(firmware_dir())))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("message", MESSAGES)
def test_the_error_line_made_under_micropython_decodes_on_the_host(message):
    line = device_line("TypeError", message, 2, True)
    assert line.endswith(b"\r\n") and len(line) - 2 <= MAX_LINE
    crash = decode(line)
    assert isinstance(crash, Crash) and (crash.seq, crash.error, crash.crashes, crash.restarts) == (7, "TypeError", 2,
                                                                                                     True)
    assert message.startswith(crash.detail) and (crash.detail == message or len(message) > 60)
    assert encode(crash) == line


def test_a_bad_error_line_is_rejected():
    good = decode(device_line("ValueError", "bad", 3, False))
    assert isinstance(good, Crash) and not good.restarts
    for body in (b"SB1 1 E crashes=1 restart=1", b"SB1 1 E type=1bad crashes=1 restart=1",
                 b"SB1 1 E type=OSError crashes=x restart=1"):
        with pytest.raises(Rejected, match="malformed"):
            decode(body + b" *%04X" % crc16(body))
    assert "restarts in a few seconds" in crash_text("/dev/ttyACM0", Crash(1, "TypeError", "x", 1, True))
    assert crash_text("/dev/ttyACM0", good).endswith(
        "after 3 crashes in a row it stays at MicroPython's prompt; 'shutbox firmware deploy --port /dev/ttyACM0' "
        "puts it back")
    assert repl_text("/dev/ttyACM0").endswith("'shutbox firmware deploy --port /dev/ttyACM0' puts it back")


REPL_OUTPUT = (b"MicroPython v1.28.0 on 2025-11-20; Raspberry Pi Pico with RP2040\r\n"
               b"Type \"help()\" for more information.\r\n>>> H\r\nTraceback (most recent call last):\r\n"
               b"  File \"<stdin>\", line 1, in <module>\r\nNameError: name 'H' isn't defined\r\n>>> ")


def test_the_repl_is_recognised_by_its_banner_prompt_and_tracebacks_and_protocol_lines_are_not():
    decoder = StreamDecoder()
    items = decoder.feed(REPL_OUTPUT)
    lines = [i.line for i in items if isinstance(i, Rejected)]
    assert len(lines) == 6
    assert [is_repl_line(line) for line in lines] == [True, True, True, True, True, False]
    assert ends_at_prompt(decoder.framer.pending)
    protocol = b"SB1 0 H fw=0.1.0 tiles=9 board=pico input=gpio button=1 debounce=30 *4640"
    assert not is_repl_line(protocol) and not ends_at_prompt(b"SB1 4 S shut=0")


def test_the_link_says_once_that_the_board_is_at_its_repl_shows_none_of_its_noise_and_stops_asking(tmp_path):
    import queue
    import time

    from shutbox.companion.live.link import AtRepl, BoxLink, Noise, Received
    from tests.test_companion_live_link import FakePort, collect

    port = FakePort(tmp_path)
    try:
        q: queue.Queue = queue.Queue()
        with BoxLink(port.name, 9, q.put, quiet_s=0.3):
            assert port.commands() == b"H\nS\n"
            port.send(REPL_OUTPUT)
            items = collect(q, lambda xs: any(isinstance(x, AtRepl) for x in xs))
            port.send(REPL_OUTPUT)  # more of the REPL's answers
            time.sleep(1.0)  # three quiet periods: a link at a REPL asks nothing more
            asked = port.commands(timeout=0.3)
            while not q.empty():
                items.append(q.get())
            crash = encode(Crash(0, "TypeError", "x", 1, True))
            port.send(crash + crash)  # said again for a host that asked: once is enough
            items += collect(q, lambda xs: any(isinstance(x, Received) for x in xs))
            time.sleep(0.3)
            while not q.empty():
                items.append(q.get())
    finally:
        port.close()
    assert [type(i).__name__ for i in items if not isinstance(i, Noise)] == ["Connected", "AtRepl", "Received"]
    assert not [i for i in items if isinstance(i, Noise)], items
    assert asked == b""
