"""Flow a header and blocks of rows onto as many sides (pages or pad backs) as they need."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shutbox.print.table import ROW_HEIGHTS, Column, Row, Table


@dataclass(frozen=True)
class Block:
    """Rows that belong together (a round, a game); ``head`` is repeated, marked continued, if a side splits it."""

    rows: tuple[Row, ...]
    head: tuple[Row, ...] = ()


def height(rows: Sequence[Row], entry_h: float) -> float:
    """Height of ``rows`` with entry rows ``entry_h`` high and other rows at their fixed height."""
    return sum(entry_h if r.kind == "entry" else ROW_HEIGHTS[r.kind][0] for r in rows)


def paginate(columns: tuple[Column, ...], header: Sequence[Row], blocks: Sequence[Block],
             cont: Sequence[Row], side_h: float, entry_h: float) -> list[Table]:
    """Flow ``header`` then ``blocks`` onto sides of height ``side_h``; each further side starts with ``cont``.

    A block that does not fit the rest of a side moves on whole when it fits a side of its own (or
    when too little room is left for its head and two rows); a longer one is split with its head
    repeated.
    """
    sides: list[list[Row]] = [list(header)]
    for block in blocks:
        rows = list(block.rows)
        room = side_h - height(sides[-1], entry_h)
        fits_a_side = height(cont, entry_h) + height(rows, entry_h) <= side_h
        if height(rows, entry_h) > room and (fits_a_side or room < height(block.head, entry_h) + 2 * entry_h):
            sides.append(list(cont))
        for i, r in enumerate(rows):
            if height(sides[-1], entry_h) + height([r], entry_h) > side_h:
                sides.append(list(cont) + (list(block.head) if i >= len(block.head) else []))
            sides[-1].append(r)
    return [Table(columns, tuple(s)) for s in sides]
