"""The game domain (``shutbox.game``): rules, events, replay, game file format, solver, strategies, reports.

Pure: imports only :mod:`shutbox.kit.model`, :mod:`shutbox.base.errors`, the standard library and numpy (the
solver, lazily). No file I/O, printing, UI, CAD or firmware code (see docs/architecture.md).
"""
