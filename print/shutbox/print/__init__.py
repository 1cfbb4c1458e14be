"""ReportLab score pads (``shutbox.print``)."""
