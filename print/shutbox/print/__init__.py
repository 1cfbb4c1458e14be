"""The printed papers (``shutbox.print``, drawn with ReportLab): blank score pads, a recorded game's score sheet, the
strategy card and the review report."""
