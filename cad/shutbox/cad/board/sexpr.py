"""S-expressions as KiCad writes them: a tiny writer for the board and project files, and a reader for the checks.

A node is a list whose first item is its name (a :class:`Sym`); strings are quoted, numbers printed short.
"""

from __future__ import annotations

import re
from typing import TypeAlias


class Sym(str):
    """A bare token (``segment``, ``yes``, ``thru_hole``), written without quotes."""


Item: TypeAlias = "Sym | str | int | float | list[Item]"
Node: TypeAlias = "list[Item]"


def num(value: float) -> str:
    """A coordinate as KiCad writes it: at most four decimals, no trailing zeros."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _atom(item: Item) -> str:
    if isinstance(item, Sym):
        return str(item)
    if isinstance(item, str):
        return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(item, bool):
        return "yes" if item else "no"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        return num(item)
    raise TypeError(f"not an S-expression atom: {item!r}")


def dumps(node: Node, indent: int = 0) -> str:
    """``node`` as text: short nodes on one line, longer ones with their child nodes indented."""
    flat = _flat(node)
    if len(flat) + indent <= 110 or not any(isinstance(child, list) for child in node):
        return flat
    pad = "\t" * (indent + 1)
    head = [_atom(x) for x in node if not isinstance(x, list)]
    body = [dumps(x, indent + 1) for x in node if isinstance(x, list)]
    return "(" + " ".join(head) + "".join("\n" + pad + b for b in body) + "\n" + "\t" * indent + ")"


def _flat(node: Node) -> str:
    return "(" + " ".join(_flat(x) if isinstance(x, list) else _atom(x) for x in node) + ")"


_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


def loads(text: str) -> Node:
    """The first S-expression in ``text``: names and bare tokens as :class:`Sym`, quoted text as ``str``, numbers as
    ``float`` (a bare token that is not a number stays a :class:`Sym`)."""
    stack: list[Node] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            break
        pos = match.end()
        done = _feed(stack, *match.groups())
        if done is not None:
            return done
    if text[pos:].strip():
        raise ValueError(f"unreadable S-expression at character {pos}")
    raise ValueError("no complete S-expression")


def _feed(stack: list[Node], opened: str | None, closed: str | None, quoted: str | None,
          bare: str | None) -> Node | None:
    """Take one token; the whole expression when it closes the outermost one."""
    if opened:
        stack.append([])
    elif closed:
        if not stack:
            raise ValueError("unbalanced ')'")
        done = stack.pop()
        if not stack:
            return done
        stack[-1].append(done)
    elif quoted is not None:
        _add(stack, re.sub(r"\\(.)", r"\1", quoted))
    elif bare is not None:
        _add(stack, _bare(bare))
    return None


def _add(stack: list[Node], item: Item) -> None:
    if not stack:
        raise ValueError("an atom outside any S-expression")
    stack[-1].append(item)


def _bare(token: str) -> Item:
    try:
        return float(token)
    except ValueError:
        return Sym(token)


def children(node: Node, name: str) -> list[Node]:
    """The child nodes of ``node`` named ``name``."""
    return [x for x in node if isinstance(x, list) and x and x[0] == name]


def child(node: Node, name: str) -> Node | None:
    """The first child node named ``name``, or None."""
    found = children(node, name)
    return found[0] if found else None
