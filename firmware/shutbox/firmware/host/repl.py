"""Telling a board at MicroPython's REPL from one running the shutbox firmware.

A board whose firmware crashed, was stopped or never started talks like a Python prompt, not the
protocol: its banner (``MicroPython v1.28.0 on 2025-...; Raspberry Pi Pico with RP2040``), the
``>>>`` prompt (with no line end after it), tracebacks (``Traceback (most recent call last):``,
``  File "<stdin>", line 1``), a soft reboot, the raw REPL. :func:`is_repl_line` knows those lines,
:func:`ends_at_prompt` the prompt still waiting in the framer.
"""

from __future__ import annotations

import re

_REPL_LINE = re.compile(
    rb"(MicroPython v\d+\.\d+\S* on \S+; .+"
    rb"|Type \"help\(\)\" for more information\.?"
    rb"|Traceback \(most recent call last\):"
    rb"|  File \"[^\"]*\", line \d+.*"
    rb"|MPY: soft reboot"
    rb"|raw REPL; CTRL-B to exit"
    rb"|(>>>|\.\.\.) .*"
    rb"|shutbox: .*staying (in|at) the REPL.*)")
_PROMPT = re.compile(rb"(^|\n)(>>>|\.\.\.) ?$")


def is_repl_line(line: bytes) -> bool:
    """True for a line only MicroPython's REPL writes (a banner, a prompt, a traceback, a soft reboot)."""
    return _REPL_LINE.fullmatch(line.rstrip(b"\r")) is not None


def ends_at_prompt(pending: bytes) -> bool:
    """True when the bytes after the last line end are the REPL's ``>>>`` prompt."""
    return _PROMPT.search(pending) is not None
