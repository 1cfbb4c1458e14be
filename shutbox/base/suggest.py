"""The nearest right word for a wrong one: ``shutbox paly`` → did you mean `play`? (a command, an action, a flag,
a setting's key or one of its values).

difflib is imported only when a word is wrong: it costs start-up (tests/test_cli_fast_start.py).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Sequence

_CHOICE = re.compile(r"argument (?P<arg>\S+): invalid choice: '(?P<word>.*?)' \(choose from (?P<choices>.*)\)$")
_UNKNOWN = "unrecognized arguments: "


def nearest(word: str, candidates: Iterable[str], cutoff: float = 0.6, prefix: bool = True) -> str | None:
    """The candidate closest to ``word`` (a typo, a missing or extra letter; similarity at least ``cutoff``), else
    with ``prefix`` the one candidate ``word`` begins (3 letters or more), or None when none is close."""
    import difflib  # only for a wrong word: it costs start-up

    options = sorted(set(candidates))
    found = difflib.get_close_matches(word, options, n=1, cutoff=cutoff)
    if found:
        return found[0]
    starts = [c for c in options if c.startswith(word) and len(word) >= 3] if prefix else []  # `--tile`: `--tiles`
    return starts[0] if len(starts) == 1 else None


def command_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The (sub)parser the command line reached: ``firmware build …`` → the parser of ``firmware build``."""
    current = parser
    for token in argv:
        if token.startswith("-"):
            continue
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = next((s.choices[token] for s in subs if token in s.choices), None)
        if chosen is None:
            break
        current = chosen
    return current


def helpful(parser: argparse.ArgumentParser, message: str, argv: Sequence[str]) -> str:
    """``message`` with the nearest right word added: a command, an action, a flag or a flag's value."""
    choice = _CHOICE.match(message)
    if choice is not None:
        word = choice["word"]
        choices = re.findall(r"'(.*?)'", choice["choices"])
        guess = nearest(word, choices)
        if choice["arg"] == "COMMAND":
            hint = f"did you mean `{guess}`?" if guess else f"see `{parser.prog} --help`"
            return f"unknown command {word!r}; {hint} (commands: {', '.join(choices)})"
        return message + (f"; did you mean `{guess}`?" if guess else "")
    if message.startswith(_UNKNOWN):
        target = command_parser(parser, argv)
        flags = [f for f in target._option_string_actions if f.startswith("--")]
        hints = []
        for token in message[len(_UNKNOWN):].split():
            if not token.startswith("-"):
                continue
            guess = nearest(token.split("=", 1)[0], flags)
            if guess is not None:
                hints.append(f"`{guess}` for `{token.split('=', 1)[0]}`")
        if hints:
            return f"{message}; did you mean {' and '.join(hints)}? (see `{target.prog} --help`)"
        return f"{message} (see `{target.prog} --help`)"
    return message
