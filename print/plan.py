"""Check a pad request against the paper and decide the page grid; bad requests raise one-line errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shutbox.errors import ShutboxError
from shutbox.game.report import counted
from shutbox.model import Rules
from shutbox.print.pads import blank_pad
from shutbox.print.paper import PAPERS, Grid, arrange
from shutbox.print.table import ROW_HEIGHTS, Table

DEFAULT_PLAYERS = 4
MAX_DEFAULT_ROUNDS = 20  # a pad filling its cell stops here
SEARCH_LIMIT = 500  # largest count tried when reporting what fits
MAX_PAGES = 1000
COMFORT_ROW = 18.0  # pt: entry row height used to decide how many rounds fill a pad by default


@dataclass(frozen=True)
class PadPlan:
    """What to draw: the pad, how pads share a page, and how many pages."""

    pad: Table
    grid: Grid
    players: int
    rounds: int
    pages: int


def default_players(rules: Rules) -> int:
    return 2 if rules.match == "long-game" else DEFAULT_PLAYERS


def _grid(pad: Table, paper: str, per_page: int) -> Grid | None:
    return arrange(paper, per_page, pad.min_size(), pad.comfortable_height())


def _height_at(pad: Table, entry: float) -> float:
    return sum(entry if r.kind == "entry" else ROW_HEIGHTS[r.kind][0] for r in pad.rows)


def _largest(fits: Callable[[int], bool], low: int = 1) -> int:
    """The largest n >= low with fits(n) (fits must be monotone), or low - 1 when none."""
    if not fits(low):
        return low - 1
    best = low
    while best < SEARCH_LIMIT and fits(min(SEARCH_LIMIT, best * 2)):
        best = min(SEARCH_LIMIT, best * 2)
    hi = min(SEARCH_LIMIT, best * 2) + 1
    while hi - best > 1:
        mid = (best + hi) // 2
        best, hi = (mid, hi) if fits(mid) else (best, mid)
    return best


def _at_least_one(flag: str, value: int) -> None:
    if value < 1:
        raise ShutboxError(f"{flag} {value}: allowed: a whole number >= 1")


def _check_counts(rules: Rules, players: int, rounds: int | None, paper: str, per_page: int, pages: int) -> None:
    """The request's numbers and paper, before anything is laid out."""
    if paper not in PAPERS:
        raise ShutboxError(f"--paper {paper}: unknown paper; allowed: {', '.join(PAPERS)}")
    _at_least_one("--players", players)
    if rounds is not None:
        _at_least_one("--rounds", rounds)
    _at_least_one("--per-page", per_page)
    _at_least_one("--pages", pages)
    if pages > MAX_PAGES:
        raise ShutboxError(f"--pages {pages}: allowed: 1 to {MAX_PAGES}")
    if rules.match == "long-game" and players != 2:
        raise ShutboxError(f"--players {players}: long-game is for two players; allowed: 2")


def plan_blank(rules: Rules, players: int | None, rounds: int | None, paper: str, per_page: int,
               pages: int) -> PadPlan:
    """Validate a blank-pad request and lay it out; raise :class:`ShutboxError` naming the bad value."""
    n_players = default_players(rules) if players is None else players
    _check_counts(rules, n_players, rounds, paper, per_page, pages)
    fmt = f"a {rules.match} pad"

    def fits(p: int, r: int, k: int) -> bool:
        if max(p, r, k) > SEARCH_LIMIT:  # far more than any page holds; do not build it
            return False
        return _grid(blank_pad(rules, p, r), paper, k) is not None

    if not fits(n_players, 1, 1):
        most = _largest(lambda p: fits(p, 1, 1))
        hint = " (sum scoring needs narrower boxes)" if rules.scoring == "digits" else ""
        raise ShutboxError(f"--players {n_players}: more players than fit {fmt} on {paper} paper; "
                           f"allowed: 1 to {most}{hint}")
    if rounds is not None and not fits(n_players, rounds, 1):
        most = _largest(lambda r: fits(n_players, r, 1))
        raise ShutboxError(f"--rounds {rounds}: more rounds than fit {fmt} for {n_players} players on {paper} "
                           f"paper; allowed: 1 to {most}")
    if not fits(n_players, rounds or 1, per_page):
        most = _largest(lambda k: fits(n_players, rounds or 1, k))
        what = counted(rounds if rounds is not None else 1, "round")
        raise ShutboxError(f"--per-page {per_page}: more pads than fit one {paper} page ({fmt} for {n_players} "
                           f"players, {what}); allowed: 1 to {most}")
    if rounds is None:
        rounds = _default_rounds(rules, n_players, paper, per_page)
    pad = blank_pad(rules, n_players, rounds)
    grid = _grid(pad, paper, per_page)
    assert grid is not None
    return PadPlan(pad, grid, n_players, rounds, pages)


def _default_rounds(rules: Rules, players: int, paper: str, per_page: int) -> int:
    """As many rounds as fill the pad at a comfortable row height (at least 1, at most 20)."""

    def roomy(r: int) -> bool:
        pad = blank_pad(rules, players, r)
        grid = _grid(pad, paper, per_page)
        return grid is not None and grid.cell_h >= _height_at(pad, COMFORT_ROW)

    best = 1
    for r in range(2, MAX_DEFAULT_ROUNDS + 1):
        if not roomy(r):
            break
        best = r
    return best
