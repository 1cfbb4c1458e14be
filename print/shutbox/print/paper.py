"""Paper sizes and how pads share a page: a grid of equal cells with gutters and cut marks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MM = 72.0 / 25.4
#: Paper name -> (width, height) in points, portrait.
PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210 * MM, 297 * MM),
    "letter": (8.5 * 72.0, 11 * 72.0),
}
MARGIN = 10 * MM  # printers cannot print to the edge
FOOTER = 5 * MM  # room for the page number
GUTTER = 8 * MM  # between pads; the cut marks sit in it
MARK = 3 * MM  # length of a cut mark


@dataclass(frozen=True)
class Grid:
    """``cols`` × ``rows`` cells of ``cell_w`` × ``cell_h`` points on a page of ``page`` size."""

    page: tuple[float, float]
    cols: int
    rows: int

    @property
    def cell_w(self) -> float:
        return (self.page[0] - 2 * MARGIN - (self.cols - 1) * GUTTER) / self.cols

    @property
    def cell_h(self) -> float:
        return (self.page[1] - 2 * MARGIN - FOOTER - (self.rows - 1) * GUTTER) / self.rows

    def origin(self, index: int) -> tuple[float, float]:
        """Upper-left corner of cell ``index`` (filled row by row from the top)."""
        col, row = index % self.cols, index // self.cols
        x = MARGIN + col * (self.cell_w + GUTTER)
        top = self.page[1] - MARGIN - row * (self.cell_h + GUTTER)
        return x, top

    def fits(self, size: tuple[float, float]) -> bool:
        return self.cell_w >= size[0] and self.cell_h >= size[1]


def grids(paper: str, per_page: int, landscape: bool = False) -> list[Grid]:
    """Every grid of exactly ``per_page`` cells (no cell left empty), fewest columns first."""
    width, height = PAPERS[paper]
    page = (height, width) if landscape else (width, height)
    return [Grid(page, cols, per_page // cols) for cols in range(1, per_page + 1) if per_page % cols == 0]


def arrange(paper: str, per_page: int, size: tuple[float, float], comfortable_h: float) -> Grid | None:
    """The grid for ``per_page`` pads of minimum ``size``, or None when they do not fit.

    Only grids without an empty cell are used. Portrait pages are used when the pads fit them,
    landscape otherwise. Among grids that fit, the one whose cells come closest to the pad's
    comfortable height and scale its width least unevenly wins.
    """
    fitting = [g for g in grids(paper, per_page) if g.fits(size)]
    fitting = fitting or [g for g in grids(paper, per_page, landscape=True) if g.fits(size)]
    if not fitting:
        return None

    def score(g: Grid) -> tuple[float, float]:
        return (-min(g.cell_h, comfortable_h), abs(g.cell_w / size[0] - 1.0))

    return min(fitting, key=score)


def draw_cut_marks(c: Any, grid: Grid) -> None:
    """Short lines in the gutters and margins where the page is cut into pads."""
    if grid.cols * grid.rows == 1:
        return
    c.saveState()
    c.setLineWidth(0.3)
    c.setStrokeGray(0.3)
    width, height = grid.page
    xs = sorted({MARGIN + i * (grid.cell_w + GUTTER) - GUTTER / 2 for i in range(1, grid.cols)})
    ys = sorted({height - MARGIN - i * (grid.cell_h + GUTTER) + GUTTER / 2 for i in range(1, grid.rows)})
    bottom = height - MARGIN - grid.rows * grid.cell_h - (grid.rows - 1) * GUTTER
    for x in xs:  # vertical cuts: marks at the page edges and where they cross horizontal cuts
        c.line(x, height - MARGIN + 1, x, height - MARGIN + 1 + MARK)
        c.line(x, bottom - 1, x, bottom - 1 - MARK)
    for y in ys:
        c.line(MARGIN - 1, y, MARGIN - 1 - MARK, y)
        c.line(width - MARGIN + 1, y, width - MARGIN + 1 + MARK, y)
    for x in xs:
        for y in ys:
            c.line(x - MARK / 2, y, x + MARK / 2, y)
            c.line(x, y - MARK / 2, x, y + MARK / 2)
    c.restoreState()


def draw_page_number(c: Any, grid: Grid, number: int, total: int, font_name: str, label: str) -> None:
    """``label · page n of N`` at the foot of the page, right-aligned (cut marks may sit mid-page)."""
    width = grid.page[0]
    c.saveState()
    c.setFont(font_name, 6.5)
    c.setFillGray(0.35)
    c.drawRightString(width - MARGIN, MARGIN + 3, f"{label} · page {number} of {total}")
    c.restoreState()
