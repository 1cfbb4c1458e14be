"""A small grid engine for pads: columns with minimum widths that share spare width, rows that
grow up to a comfortable height, and cells that draw text, writing boxes, tile boxes and name lines.

Every pad (blank or filled) is one :class:`Table`; its minimum size decides how many fit a page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shutbox.print.pdffonts import font, text_width

MIN_TEXT = 5.0  # pt: smallest text a pad may shrink to
PAD = 2.0  # pt: inner padding of a cell
HINT_GRAY = 0.5
TILE_GRAY = 0.55
LINE_W = 0.6
TILE_ASPECT = 1.6  # widest tile box, as a multiple of its height

#: Row kinds: (minimum height, comfortable maximum height) in points.
ROW_HEIGHTS: dict[str, tuple[float, float]] = {
    "title": (17.0, 17.0),
    "note": (9.0, 9.0),
    "head": (12.0, 12.0),
    "entry": (15.0, 22.0),
    "gap": (5.0, 5.0),
}


@dataclass(frozen=True)
class Column:
    """A column: its minimum width, share of spare width, and optional maximum width (points)."""

    min_w: float
    grow: float = 1.0
    max_w: float | None = None


@dataclass(frozen=True)
class Cell:
    """Base of all cells: how many columns it spans."""

    span: int = field(default=1, kw_only=True)

    def need(self) -> float:
        """Natural width in points (0 when the cell takes whatever it gets)."""
        return 0.0

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        """Draw into the box with lower-left corner (x, y)."""


@dataclass(frozen=True)
class Blank(Cell):
    """An empty cell."""


@dataclass(frozen=True)
class Text(Cell):
    """Printed text; shrinks (down to :data:`MIN_TEXT`) when its column is narrower than the text."""

    text: str
    size: float = 7.5
    bold: bool = False
    align: str = "left"
    gray: float = 0.0

    def need(self) -> float:
        return text_width(self.text, MIN_TEXT if self.span > 1 else self.size, self.bold) + 2 * PAD

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        _text(c, self.text, x, y, w, h, self.size, self.bold, self.align, self.gray)


@dataclass(frozen=True)
class Banner(Text):
    """Bold text in a heavy frame: a rule a table must not miss (the score limit)."""

    bold: bool = True

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        c.setLineWidth(1.4)
        c.setFillGray(0.9)
        c.rect(x + 1, y + 1, w - 2, h - 2, stroke=1, fill=1)
        _text(c, self.text, x, y, w, h, self.size, True, "center", 0.0)


@dataclass(frozen=True)
class Box(Cell):
    """A framed box to write in; ``hint`` is small grey print inside, ``value`` a filled-in entry."""

    hint: str = ""
    value: str = ""
    strong: bool = False
    min_w: float = 0.0

    def need(self) -> float:
        return max(self.min_w, text_width(self.value, 8.0, self.strong) + 2 * PAD + 2)

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        c.setLineWidth(1.2 if self.strong else LINE_W)
        c.setStrokeGray(0.0)
        c.rect(x + 0.5, y + 0.5, w - 1, h - 1, stroke=1, fill=0)
        if self.hint:
            size = min(5.5, h * 0.35)
            _text(c, self.hint, x + 1, y + 1, w - 2, size + 2, size, False, "right", HINT_GRAY)
        if self.value:
            _text(c, self.value, x, y, w, h, min(8.0, h * 0.55), self.strong, "center", 0.0)


#: Tile states on a filled sheet: (fill grey or None for none, number grey, hatched).
TILE_STATES: dict[str, tuple[float | None, float, bool]] = {
    "": (None, TILE_GRAY, False),  # blank pad: to tick
    "open": (None, 0.0, False),
    "shut": (0.15, 1.0, False),  # shut before the turn
    "shut-now": (0.6, 0.0, False),  # shut in the turn
    "opened": (None, 0.0, True),  # uncovered in the turn (long game)
}


@dataclass(frozen=True)
class Tile(Cell):
    """A square tile box labelled with its number.

    Blank pads tick it during the turn; a filled sheet shows the tile at the end of the turn with a
    ``state`` from :data:`TILE_STATES`.
    """

    number: int
    state: str = ""

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        fill, gray, hatched = TILE_STATES[self.state]
        side = max(4.0, min(w, h) - 3)  # the box is square, or wider (up to TILE_ASPECT) when the column allows
        bw = max(side, min(w - 3, side * TILE_ASPECT))
        bx, by = x + (w - bw) / 2, y + (h - side) / 2
        c.setLineWidth(LINE_W)
        c.setStrokeGray(0.0)
        if fill is not None:
            c.setFillGray(fill)
        c.rect(bx, by, bw, side, stroke=1, fill=int(fill is not None))
        if hatched:
            c.setLineWidth(0.4)
            c.setStrokeGray(0.55)
            step = side / 4
            for i in range(1, int(bw / step) + 4):
                d = i * step  # 45-degree lines clipped to the box
                x0, y0 = bx + max(0.0, d - side), by + min(d, side)
                x1, y1 = bx + min(d, bw), by + max(0.0, d - bw)
                if x0 < x1:
                    c.line(x0, y0, x1, y1)
        label = str(self.number)
        size = min(side * 0.5, 9.0) if len(label) < 2 else min(side * 0.42, 8.0)
        _text(c, label, bx, by, bw, side, size, bool(self.state), "center", gray)


@dataclass(frozen=True)
class Para(Cell):
    """Text that wraps onto as many lines as the row holds, at ``" · "`` separators or spaces."""

    text: str
    size: float = 6.5

    def need(self) -> float:
        return 60.0

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        size = self.size
        while True:
            lines = wrap(self.text, w - 2 * PAD, size)
            if len(lines) * size * 1.15 <= h - 2 or size <= MIN_TEXT:
                break
            size = max(MIN_TEXT, size - 0.25)
        lead = size * 1.15
        top = y + (h + len(lines) * lead) / 2 - size * 0.95
        c.setFillGray(0.0)
        for i, line in enumerate(lines):
            c.setFont(font(), size)
            c.drawString(x + PAD, top - i * lead, line)


def wrap(text: str, width: float, size: float) -> list[str]:
    """Break ``text`` into lines no wider than ``width`` (a word longer than that gets a line of its own)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if current and text_width(trial, size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines


@dataclass(frozen=True)
class Line(Cell):
    """A label followed by a line to write on (player names, the winner)."""

    label: str
    value: str = ""
    size: float = 7.5

    def need(self) -> float:
        return text_width(self.label, self.size) + 40.0

    def draw(self, c: Any, x: float, y: float, w: float, h: float) -> None:
        base = y + max(3.0, h * 0.25)
        c.setFillGray(0.0)
        c.setFont(font(), self.size)
        c.drawString(x + PAD, base, self.label)
        start = x + PAD + text_width(self.label, self.size) + 3
        c.setLineWidth(0.5)
        c.setStrokeGray(0.0)
        c.line(start, base - 1.5, x + w - PAD - 2, base - 1.5)
        if self.value:
            _text(c, self.value, start, base - 1, x + w - PAD - start, h * 0.6, 8.0, True, "left", 0.0)


def _text(c: Any, text: str, x: float, y: float, w: float, h: float, size: float, bold: bool,
          align: str, gray: float) -> None:
    if not text:
        return
    room = w - 2 * PAD
    natural = text_width(text, size, bold)
    if natural > room > 0:
        size = max(MIN_TEXT, size * room / natural)
        natural = text_width(text, size, bold)
    base = y + (h - size * 0.72) / 2
    c.setFillGray(gray)
    c.setFont(font(bold), size)
    if align == "center":
        c.drawString(x + (w - natural) / 2, base, text)
    elif align == "right":
        c.drawString(x + w - PAD - natural, base, text)
    else:
        c.drawString(x + PAD, base, text)
    c.setFillGray(0.0)


@dataclass(frozen=True)
class Row:
    """One row of cells (their spans add up to the column count) of a kind in :data:`ROW_HEIGHTS`."""

    cells: tuple[Cell, ...]
    kind: str = "entry"


def row(kind: str, *cells: Cell) -> Row:
    return Row(tuple(cells), kind)


@dataclass(frozen=True)
class Table:
    """Columns and rows; knows its minimum size and draws itself into any larger box."""

    columns: tuple[Column, ...]
    rows: tuple[Row, ...]

    def __post_init__(self) -> None:
        for r in self.rows:
            spans = sum(cell.span for cell in r.cells)
            if spans != len(self.columns):
                raise ValueError(f"row spans {spans} columns, table has {len(self.columns)}")

    def min_widths(self) -> list[float]:
        widths = [col.min_w for col in self.columns]
        for r in self.rows:
            i = 0
            for cell in r.cells:
                deficit = cell.need() - sum(widths[i:i + cell.span])
                if deficit > 0:
                    for j in range(i, i + cell.span):
                        widths[j] += deficit / cell.span
                i += cell.span
        return widths

    def min_size(self) -> tuple[float, float]:
        return sum(self.min_widths()), sum(ROW_HEIGHTS[r.kind][0] for r in self.rows)

    def comfortable_height(self) -> float:
        return sum(ROW_HEIGHTS[r.kind][1] for r in self.rows)

    def widths(self, w: float) -> list[float]:
        """Column widths filling ``w``: spare width goes to columns by ``grow``, up to ``max_w``."""
        widths = self.min_widths()
        spare = w - sum(widths)
        free = [i for i, col in enumerate(self.columns) if col.grow > 0]
        while spare > 1e-6 and free:
            total = sum(self.columns[i].grow for i in free)
            used = 0.0
            still = []
            for i in free:
                col = self.columns[i]
                add = spare * col.grow / total
                if col.max_w is not None and widths[i] + add >= max(col.max_w, widths[i]):
                    add = max(0.0, col.max_w - widths[i])
                else:
                    still.append(i)
                widths[i] += add
                used += add
            spare -= used
            if still == free:
                break
            free = still
        return widths

    def heights(self, h: float) -> list[float]:
        fixed = sum(ROW_HEIGHTS[r.kind][0] for r in self.rows if r.kind != "entry")
        entries = [r for r in self.rows if r.kind == "entry"]
        low, high = ROW_HEIGHTS["entry"]
        each = min(high, max(low, (h - fixed) / len(entries))) if entries else 0.0
        return [each if r.kind == "entry" else ROW_HEIGHTS[r.kind][0] for r in self.rows]

    def draw(self, c: Any, x: float, top: float, w: float, h: float) -> None:
        """Draw with the upper-left corner at (x, top), filling width ``w`` and at most height ``h``."""
        widths = self.widths(w)
        edges = [x]
        for cw in widths:
            edges.append(edges[-1] + cw)
        y = top
        for r, rh in zip(self.rows, self.heights(h), strict=True):
            y -= rh
            i = 0
            for cell in r.cells:
                c.saveState()
                cell.draw(c, edges[i], y, edges[i + cell.span] - edges[i], rh)
                c.restoreState()
                i += cell.span

