"""The typefaces the kit ships (DejaVu Sans, regular and bold, in ``shutbox/base/fonts`` with its licence): their
files and the names the PDFs set text in.

Score pads embed them (registered with ReportLab by :mod:`shutbox.print.pdffonts`), the guide's figures are
drawn in them and the CAD numbers are cut in the bold one. A missing file is an error: CadQuery would otherwise
fall back silently to whatever font the system has.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from shutbox.base.errors import ShutboxError

REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
#: The font names a PDF sets its text in, and each one's file.
REGULAR_PDF = "DejaVuSans"
BOLD_PDF = "DejaVuSans-Bold"
PDF_FONTS = {REGULAR_PDF: REGULAR, BOLD_PDF: BOLD}


def font_file(name: str) -> Path:
    """Path of a shipped font file; raise ShutboxError if it is missing."""
    path = Path(str(resources.files("shutbox.base").joinpath("fonts", name)))
    if not path.is_file() or path.stat().st_size < 10_000:
        raise ShutboxError(f"font {path} is missing; reinstall shutbox (CadQuery would silently use another font)")
    return path
