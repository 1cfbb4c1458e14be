"""Write pads to a PDF: vector drawing, embedded subset fonts, compressed, byte-identical for identical input."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from shutbox.base.output import staged_file
from shutbox.base.version import __version__
from shutbox.print.paper import Grid, draw_cut_marks, draw_page_number
from shutbox.print.pdffonts import font
from shutbox.print.table import Table


def write_pdf(path: Path, grid: Grid, pages: Sequence[Sequence[Table]], title: str, subject: str,
              flag: str = "--out") -> None:
    """Draw ``pages`` (each a list of pads, one per grid cell) into ``path`` atomically.

    A pad that appears more than once is drawn once, as a PDF form, and placed in every cell that
    holds it, so many pads cost little. ReportLab's ``invariant`` mode fixes the creation date and
    document id, and every metadata field is set here, so the bytes depend only on the input.
    """
    from reportlab.pdfgen.canvas import Canvas

    with staged_file(path, flag, ".pdf") as tmp:
        c = Canvas(str(tmp), pagesize=grid.page, invariant=1, pageCompression=1, initialFontName=font())  # pyright: ignore[reportArgumentType] (stub says float)
        c.setTitle(title)
        c.setSubject(subject)
        c.setAuthor("shutbox")
        c.setCreator(f"shutbox {__version__}")
        c.setProducer("shutbox (ReportLab)")
        c.setKeywords("Shut the Box, score pad")
        uses = Counter(id(pad) for pads in pages for pad in pads)
        forms: dict[int, str] = {}
        for number, pads in enumerate(pages, start=1):
            draw_cut_marks(c, grid)
            for index, pad in enumerate(pads):
                x, top = grid.origin(index)
                if uses[id(pad)] == 1:
                    pad.draw(c, x, top, grid.cell_w, grid.cell_h)
                    continue
                if id(pad) not in forms:
                    forms[id(pad)] = f"pad{len(forms)}"
                    c.beginForm(forms[id(pad)], 0, 0, grid.cell_w, grid.cell_h)
                    pad.draw(c, 0, grid.cell_h, grid.cell_w, grid.cell_h)
                    c.endForm()
                c.saveState()
                c.translate(x, top - grid.cell_h)
                c.doForm(forms[id(pad)])
                c.restoreState()
            draw_page_number(c, grid, number, len(pages), font(), title)
            c.showPage()
        c.save()
