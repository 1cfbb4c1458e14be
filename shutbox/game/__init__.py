"""The game domain (``shutbox.game``): rules, events, replay, the game file, solver, strategies, reviews, reports.

Imports only the layers under it (:mod:`shutbox.base`, :mod:`shutbox.kit`), the standard library, numpy and scipy
(for the solver). No printing, UI, CAD or firmware code; on disk it reads and writes only a game file
(:mod:`.gamefile`) and the solver's cache (:mod:`.solvercache`). See docs/architecture.md.
"""
