"""Check a pad request against the paper and decide the page grid; bad requests raise one-line errors.

Pads share a page only in grids without an empty cell (3 pads: three strips, not a 2 × 2 grid with
a quarter of the page blank); pages turn to landscape when the pads fit no portrait grid, and many
tiles wrap onto two or more lines before a pad is refused.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from shutbox.base.bounded import whole_within
from shutbox.base.errors import ShutboxError
from shutbox.base.text import name_key, quoted, text_refusal
from shutbox.game.events import MAX_PLAYERS
from shutbox.game.formats import TILE_ROWS, TOTAL_ROWS, TURN_ROWS, match_format
from shutbox.game.report import counted
from shutbox.kit.model import Rules
from shutbox.print.long_pad import LongPad, long_game_layouts
from shutbox.print.pads import Layout, Pad, round_pad, running_pad, tiles_per_line_choices
from shutbox.print.paper import PAPERS, Grid, arrange
from shutbox.print.table import ROW_HEIGHTS

DEFAULT_PLAYERS = 4
MAX_DEFAULT_ROUNDS = 20  # a pad filling its cell stops here
MAX_LONG_GAMES = 20  # games on one long-game pad (turn rows)
SEARCH_LIMIT = 500  # largest count tried when reporting what fits
MAX_PAGES = 1000
MAX_PER_PAGE = 64
MAX_NAME = 24  # characters in a printed player name
COMFORT_ROW = 18.0  # pt: entry row height used to decide how many rounds fill a pad by default

#: The pad builder for what a row shows (:attr:`MatchFormat.pad_rows`; turn rows are :mod:`.long_pad`'s).
BUILDERS: dict[str, Callable[[Rules, Layout], Pad]] = {
    TILE_ROWS: round_pad,
    TOTAL_ROWS: running_pad,
}
NUMBER_WORDS = ("no", "one", "two", "three", "four")


@dataclass(frozen=True)
class PadPlan:
    """What to draw: the pad (its sides), how pads share a page, and how many copies."""

    pad: Pad
    grid: Grid
    players: int
    rounds: int
    pages: int  #: copies of the pad's sides

    def page_list(self, per_page: int) -> list[list]:
        """Every page to print: each copy's sides in order, ``per_page`` pads on each."""
        return [[side] * per_page for _ in range(self.pages) for side in self.pad.sides]


def default_players(rules: Rules) -> int:
    return match_format(rules).fixed_players or DEFAULT_PLAYERS


def parse_names(text: str) -> tuple[str, ...]:
    """``"Ann, Bob"`` -> ("Ann", "Bob"); each name 1 to :data:`MAX_NAME` printable characters, none twice."""
    # only spaces dropped at the ends (a U+2028 there is refused); composed, so each name has one spelling
    names = tuple(unicodedata.normalize("NFC", part.strip(" ")) for part in text.split(","))
    seen: set[str] = set()
    for name in names:
        if not name:
            raise ShutboxError(f"--names {quoted(text)}: an empty name; allowed: names separated by commas")
        if len(name) > MAX_NAME:
            raise ShutboxError(f"--names: {quoted(name[:MAX_NAME])}… is longer than {MAX_NAME} characters")
        refusal = text_refusal(name)
        if refusal is not None:
            raise ShutboxError(f"--names: {quoted(name)} {refusal}; allowed: letters, digits, signs and spaces")
        if name_key(name) in seen:
            raise ShutboxError(f"--names: {quoted(name)} is listed twice")
        seen.add(name_key(name))
    return names


def _players(rules: Rules, players: int | None, names: str | None) -> tuple[int, tuple[str, ...] | None]:
    if names is None:
        return (default_players(rules) if players is None else players), None
    parsed = parse_names(names)
    if players is not None and players != len(parsed):
        raise ShutboxError(f"--players {players}: --names gives {counted(len(parsed), 'player')}; "
                           "allowed: leave --players out or match the names")
    return len(parsed), parsed


#: The most each count of a pad request may be, before the paper is asked (it usually allows fewer).
COUNT_LIMITS = {"--players": MAX_PLAYERS, "--rounds": SEARCH_LIMIT, "--per-page": MAX_PER_PAGE, "--pages": MAX_PAGES}


def _at_least_one(flag: str, value: int) -> None:
    whole_within(value, flag, 1, COUNT_LIMITS[flag])


def _check_counts(rules: Rules, players: int, rounds: int | None, paper: str, per_page: int, pages: int) -> None:
    """The request's numbers and paper, before anything is laid out."""
    if paper not in PAPERS:
        raise ShutboxError(f"--paper {paper}: unknown paper; allowed: {', '.join(PAPERS)}")
    _at_least_one("--players", players)
    if rounds is not None:
        _at_least_one("--rounds", rounds)
    _at_least_one("--per-page", per_page)
    _at_least_one("--pages", pages)
    fmt = match_format(rules)
    fixed = fmt.fixed_players
    if fixed is not None and players != fixed:
        count = NUMBER_WORDS[fixed] if fixed < len(NUMBER_WORDS) else str(fixed)
        raise ShutboxError(f"--players {players}: {fmt.name} is for {count} players; allowed: {fixed}")
    if fmt.pad_rows == TURN_ROWS:
        if rounds is not None and rounds > MAX_LONG_GAMES:
            raise ShutboxError(f"--rounds {rounds}: games on a long-game pad; allowed: 1 to {MAX_LONG_GAMES}")


def plan_blank(rules: Rules, players: int | None, rounds: int | None, paper: str, per_page: int,
               pages: int, names: str | None = None) -> PadPlan:
    """Validate a blank-pad request and lay it out; raise :class:`ShutboxError` naming the bad value."""
    n_players, parsed = _players(rules, players, names)
    _check_counts(rules, n_players, rounds, paper, per_page, pages)
    if match_format(rules).pad_rows == TURN_ROWS:
        return _plan_long(rules, Layout(n_players, rounds or 1, parsed), paper, per_page, pages)
    return _Planner(rules, n_players, parsed, paper).plan(rounds, per_page, pages)


def _allowed_per_page(fits: Callable[[int], bool]) -> str:
    found = [k for k in range(1, MAX_PER_PAGE + 1) if fits(k)]
    return ", ".join(map(str, found)) or "none"


def _plan_long(rules: Rules, layout: Layout, paper: str, per_page: int, pages: int) -> PadPlan:
    """The long game: the first layout (two turns a line, one, wrapped tiles) whose side fits a grid."""
    fmt = "a long-game pad"

    def grid_for(pad: LongPad, k: int) -> Grid | None:
        return arrange(paper, k, (pad.min_width(), pad.first_side_min()), pad.first_side_min())

    layouts = long_game_layouts(rules, layout)
    chosen = next((p for p in layouts if grid_for(p, 1) is not None), None)
    if chosen is None:
        raise ShutboxError(f"--tiles {rules.tiles}: the tiles do not fit {fmt} on {paper} paper")
    fitting = next((p for p in layouts if grid_for(p, per_page) is not None), None)
    if fitting is None:
        allowed = _allowed_per_page(lambda k: grid_for(layouts[-1], k) is not None)
        raise ShutboxError(f"--per-page {per_page}: {per_page} pads do not fit one {paper} page in a grid without "
                           f"an empty place ({fmt} for {rules.tiles} tiles); allowed: {allowed}")
    grid = grid_for(fitting, per_page)
    assert grid is not None
    return PadPlan(fitting.sides(grid.cell_h), grid, layout.players, layout.rounds, pages)


class _Planner:
    """Plans round, drop-out and tournament pads: tiles per line, rounds and the grid."""

    def __init__(self, rules: Rules, players: int, names: tuple[str, ...] | None, paper: str) -> None:
        self.rules, self.players, self.names, self.paper = rules, players, names, paper
        self.fmt = f"a {rules.match} pad"
        self.per_line: int | None = None  # tiles on one line, unless they fit only wrapped
        for choice in tiles_per_line_choices(rules):
            self.per_line = choice
            if self.fits(players, 1, 1):
                break

    def pad(self, rounds: int, players: int | None = None) -> Pad:
        p = self.players if players is None else players
        names = self.names if players is None else None
        return BUILDERS[match_format(self.rules).pad_rows](self.rules, Layout(p, rounds, names, self.per_line))

    def grid(self, pad: Pad, per_page: int) -> Grid | None:
        return arrange(self.paper, per_page, pad.min_size(), pad.comfortable_height())

    def fits(self, players: int, rounds: int, per_page: int) -> bool:
        if max(players, rounds, per_page) > SEARCH_LIMIT:  # far more than any page holds; do not build it
            return False
        return self.grid(self.pad(rounds, players=players), per_page) is not None

    def plan(self, rounds: int | None, per_page: int, pages: int) -> PadPlan:
        p, fmt, paper = self.players, self.fmt, self.paper
        if not self.fits(p, 1, 1):
            most = _largest(lambda n: self.fits(n, 1, 1))
            hint = " (sum scoring needs narrower boxes)" if self.rules.scoring == "digits" else ""
            raise ShutboxError(f"--players {p}: more players than fit {fmt} on {paper} paper; "
                               f"allowed: 1 to {most}{hint}")
        if rounds is not None and not self.fits(p, rounds, 1):
            most = _largest(lambda r: self.fits(p, r, 1))
            raise ShutboxError(f"--rounds {rounds}: more rounds than fit {fmt} for {p} players on {paper} "
                               f"paper; allowed: 1 to {most}")
        if not self.fits(p, rounds or 1, per_page):
            allowed = _allowed_per_page(lambda k: self.fits(p, rounds or 1, k))
            what = counted(rounds if rounds is not None else 1, "round")
            raise ShutboxError(f"--per-page {per_page}: {per_page} pads do not fit one {paper} page in a grid without "
                               f"an empty place ({fmt} for {p} players, {what}); allowed: {allowed}")
        if rounds is None:
            rounds = self.default_rounds(per_page)
        pad = self.pad(rounds)
        grid = self.grid(pad, per_page)
        assert grid is not None
        return PadPlan(pad, grid, p, rounds, pages)

    def default_rounds(self, per_page: int) -> int:
        """As many rounds as fill the pad at a comfortable row height (at least 1, at most 20)."""

        def roomy(r: int) -> bool:
            pad = self.pad(r)
            grid = self.grid(pad, per_page)
            return grid is not None and grid.cell_h >= _height_at(pad, COMFORT_ROW)

        best = 1
        for r in range(2, MAX_DEFAULT_ROUNDS + 1):
            if not roomy(r):
                break
            best = r
        return best


def _height_at(pad: Pad, entry: float) -> float:
    return max(sum(entry if r.kind == "entry" else ROW_HEIGHTS[r.kind][0] for r in side.rows) for side in pad.sides)


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
