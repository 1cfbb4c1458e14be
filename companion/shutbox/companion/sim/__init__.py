"""Simulated boxes: the real firmware on the unix MicroPython port (``box``) or on an emulated Pico (``emulated``),
one lifecycle for both (``lifecycle``), driven by a script or a demo (``script``, ``game``)."""
