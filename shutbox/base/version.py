"""Shut the Box kit: printable box, score pads, firmware and a scorekeeper from one kit model."""

__version__ = "0.1.0"
