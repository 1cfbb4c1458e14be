"""The embedded typeface: DejaVu Sans (regular and bold), shipped in ``shutbox/base/fonts/`` with its licence.

Fonts are registered with ReportLab once, on first use; ReportLab embeds only the glyphs a PDF uses.
"""

from __future__ import annotations

from functools import cache

from shutbox.base import typefaces

REGULAR = "DejaVuSans"
BOLD = "DejaVuSans-Bold"
_FILES = {REGULAR: typefaces.REGULAR, BOLD: typefaces.BOLD}


@cache
def register() -> None:
    """Register the shipped TrueType fonts with ReportLab (idempotent)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    for name, filename in _FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(typefaces.font_file(filename))))


def font(bold: bool = False) -> str:
    """The registered font name for regular or bold text."""
    register()
    return BOLD if bold else REGULAR


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` set at ``size`` points, in points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, font(bold), size)
