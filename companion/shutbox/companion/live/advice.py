"""The hint: the solver's best move for the pending throw, worded for the table.

The answer is kept until the board or the throw changes, as the page asks for it on every redraw.
Exact for the sets the solver solves, Monte Carlo (said "about") for the largest.
"""

from __future__ import annotations

from typing import Any

from shutbox.game.policy import hint_objective
from shutbox.game.replay import UNCOVER, Game
from shutbox.game.rules import plus


class Advice:
    """Hints for one game's rules, the latest kept."""

    def __init__(self) -> None:
        self._kept: tuple[tuple[Any, ...], str] | None = None

    def text(self, game: Game | None) -> str:
        if game is None or game.finished:
            return "no game in progress"
        if game.pending is None or game.pending.total is None:
            return "throw first; the hint ranks the moves for a throw"
        key = (game.phase, game.in_play, game.pending.total)
        if self._kept is not None and self._kept[0] == key:
            return self._kept[1]
        from shutbox.game import solver

        rules = game.rules
        advisor = solver.advisor(rules, hint_objective(rules))
        ranked = advisor.rank_moves(game.in_play, game.pending.total)
        best = ranked[0]
        uncovering = game.phase == UNCOVER
        verb, goal = ("uncover", "uncover every tile") if uncovering else ("shut", "shut the box")
        also = f"; {len(ranked) - 1} other move{'s' if len(ranked) != 2 else ''}" if len(ranked) > 1 else ""
        about = "" if advisor.exact else "about "
        text = (f"best: {verb} {plus(best.tiles)} — chance to {goal} {about}{best.p_shut:.1%}, "
                f"expected score {about}{best.expected_score:.1f}{also}")
        self._kept = (key, text)
        return text
