"""The shipped typefaces (:mod:`shutbox.base.typefaces`) registered with ReportLab, once, on first use; ReportLab
embeds only the glyphs a PDF uses."""

from __future__ import annotations

from functools import cache

from shutbox.base import typefaces


@cache
def register() -> None:
    """Register the shipped TrueType fonts with ReportLab under their PDF names (idempotent)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    for name, filename in typefaces.PDF_FONTS.items():
        pdfmetrics.registerFont(TTFont(name, str(typefaces.font_file(filename))))


def font(bold: bool = False) -> str:
    """The registered font name for regular or bold text."""
    register()
    return typefaces.BOLD_PDF if bold else typefaces.REGULAR_PDF


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` set at ``size`` points in the registered font, in points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return stringWidth(text, font(bold), size)
