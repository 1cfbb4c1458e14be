"""Simulated boxes: the real firmware on the unix MicroPython port, driven by a script or a demo."""
