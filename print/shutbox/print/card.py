"""The strategy card: one page of what the exact solver knows, for the table beside the box.

For the chosen rules and objective (``shut``: the chance to shut the box; ``score``: the expected
final score) the card prints, every number computed by :mod:`shutbox.game.solver` when it is made:

- the value of the start (both the chance and the expected score under the chosen play);
- with every tile open, the best move for each throw, the value it leaves, and the next best move;
- a rule-of-thumb table of common positions: the positions a turn most often passes through under
  that play (visit chances from :func:`shutbox.game.turns.visit_probabilities`), among those where
  some throw offers a choice, most visited first, as many as fill the page; each with the dice to
  throw, its value and the best move for every throw. Bold marks a best move that is not the
  largest tiles (the move most players make).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shutbox.base.errors import ShutboxError
from shutbox.game import solver
from shutbox.game.policy import OBJECTIVES
from shutbox.game.rules import dice_words, legal_moves, per_throw_text, throw_totals, tiles_out
from shutbox.game.turns import WALK_MAX_TILES, visit_probabilities
from shutbox.kit.model import Kit, Rules
from shutbox.print.flow import height
from shutbox.print.paper import PAPERS, Grid, grids
from shutbox.print.summary import one_die_text, scoring_text
from shutbox.print.table import Banner, Blank, Cell, Column, Para, Row, Table, Text, row

CARD_ROW = 16.0  # pt: the row height the common-positions table is planned for
MAX_POSITIONS = 32
VISIT_DIGITS = 12  #: visit chances are compared to this many decimals (beyond it is float rounding)
NO_MOVE = "–"  # no tiles add up to the throw: the turn ends
CANNOT = "·"  # the throw cannot come up with the dice thrown in that position
TILE_SEP = "·"  # between the tiles of a position: "1·2·4"


def move_text(tiles: tuple[int, ...]) -> str:
    """``7+1`` (largest first)."""
    return "+".join(str(t) for t in sorted(tiles, reverse=True))


def position_text(rules: Rules, tiles: tuple[int, ...]) -> str:
    """``1·2·4`` open, or ``all but 7·9`` when fewer tiles are shut than open."""
    shut = tiles_out(rules, tiles)
    if len(shut) < len(tiles):
        return "all but " + TILE_SEP.join(str(t) for t in shut)
    return TILE_SEP.join(str(t) for t in tiles)


@dataclass(frozen=True)
class CardData:
    """The solver's numbers the card prints."""

    rules: Rules
    objective: str
    solution: solver.Solution
    throws: tuple[int, ...]  #: the throw columns, ascending
    positions: tuple[tuple[int, ...], ...]  #: the common positions, most visited first

    def value(self, tiles: tuple[int, ...]) -> float:
        """The objective's number for a position: the chance (0..1) or the expected score."""
        p, e = self.solution.state(tiles)
        return p if self.objective == "shut" else e

    def value_text(self, tiles: tuple[int, ...]) -> str:
        return format_value(self.objective, self.value(tiles))

    def dice(self, tiles: tuple[int, ...]) -> int:
        return self.solution.dice(tiles)

    def ranked(self, tiles: tuple[int, ...], total: int) -> list[solver.MoveValue]:
        return solver.rank_moves(self.solution, tiles, total)


def format_value(objective: str, value: float) -> str:
    return f"{value:.1%}" if objective == "shut" else f"{value:.1f}"


def _throw_columns(rules: Rules, solution: solver.Solution, positions: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Every total the dice thrown in these positions can show."""
    totals: set[int] = set()
    for tiles in positions:
        totals |= set(throw_totals(solution.dice(tiles)))
    return tuple(sorted(totals))


def _has_choice(rules: Rules, solution: solver.Solution, tiles: tuple[int, ...]) -> bool:
    """Does some throw of the dice the play throws here offer more than one move?"""
    return any(len(legal_moves(rules, tiles, t)) > 1 for t in throw_totals(solution.dice(tiles)))


def card_data(rules: Rules, objective: str, positions: int) -> CardData:
    """Solve the rules and pick the ``positions`` most visited positions with a choice (not the full box)."""
    if rules.tiles > WALK_MAX_TILES:
        raise ShutboxError(f"--tiles {rules.tiles}: the strategy card is computed up to {WALK_MAX_TILES} tiles "
                           "(its common positions need every state's visit chance)")
    solution = solver.solve(rules, objective)
    visits = visit_probabilities(rules, objective)
    full = solver.mask_of(rules.tile_numbers)
    # most visited first; chances equal but for float rounding are tied, and the tie goes to the lower mask
    order = sorted((m for m in range(1, full) if visits[m] > 0),
                   key=lambda m: (-round(float(visits[m]), VISIT_DIGITS), m))
    chosen: list[tuple[int, ...]] = []
    for mask in order:
        tiles = solver.tiles_of(mask)
        if _has_choice(rules, solution, tiles):
            chosen.append(tiles)
        if len(chosen) == positions:
            break
    shown = [rules.tile_numbers, *chosen]
    return CardData(rules, objective, solution, _throw_columns(rules, solution, shown), tuple(chosen))


class CardLayout:
    """The card's rows for one set of numbers."""

    def __init__(self, data: CardData) -> None:
        self.d = data
        self.columns = (Column(56.0, 0.4, 110.0), Column(22.0, 0.0), Column(30.0, 0.2, 40.0),
                        *[Column(20.0, 1.0, 40.0)] * len(data.throws))
        self.n = len(self.columns)

    def _words(self) -> tuple[str, str]:
        if self.d.objective == "shut":
            return "chance to shut the box", "chance"
        return "expected final score", "exp. score"

    def header(self) -> list[Row]:
        rules, n = self.d.rules, self.n
        aim, _ = self._words()
        lines = [f"Rules: {rules.tiles} tiles · {dice_words(rules.dice)} · {per_throw_text(rules)} · "
                 f"{scoring_text(rules)}",
                 one_die_text(rules),
                 f"Best play for the {'highest' if self.d.objective == 'shut' else 'lowest'} {aim}, from the "
                 "exact solver (every position and throw solved)."]
        rows = [row("title", Text("Shut the Box · strategy card", size=13, bold=True, span=n))]
        rows += [row("note", Text(line, size=7, gray=0.2, span=n)) for line in lines]
        p, e = self.d.solution.state(rules.tile_numbers)
        start = (f"From the start: {p:.2%} chance to shut the box · expected final score {e:.2f} "
                 f"· throw {self._dice_words(rules.tile_numbers)}")
        rows += [row("gap", Blank(span=n)), row("title", Banner(start, size=9, span=n))]
        return rows

    def _dice_words(self, tiles: tuple[int, ...]) -> str:
        count = self.d.dice(tiles)
        return "one die" if count == 1 else ("two dice" if count == 2 else f"{count} dice")

    def _throw_head(self, first: str) -> Row:
        _, short = self._words()
        return row("head", Text(first, size=6.5, bold=True), Text("dice", size=6, align="center"),
                   Text(short, size=6, align="center"),
                   *[Text(str(t), size=7, bold=True, align="center") for t in self.d.throws])

    def full_board(self) -> list[Row]:
        """Every tile open: per throw the best move, the value it leaves, the next best and its value."""
        tiles = self.d.rules.tile_numbers
        _, short = self._words()
        rows = [row("gap", Blank(span=self.n)),
                row("head", Text("Everything open: the best move for each throw", size=8.5, bold=True, span=self.n)),
                self._throw_head("throw")]
        best: list[Cell] = []
        best_v: list[Cell] = []
        second: list[Cell] = []
        second_v: list[Cell] = []
        for total in self.d.throws:
            ranked = self.d.ranked(tiles, total) if total in throw_totals(self.d.dice(tiles)) else None
            if ranked is None:
                cells = [Text(CANNOT, size=7, align="center", gray=0.5)] * 4
            elif not ranked:
                cells = [Text(NO_MOVE, size=7, align="center")] * 4
            else:
                cells = [self._move_cell(tiles, total, ranked[0]),
                         Text(format_value(self.d.objective, self._value_of(ranked[0])), size=6.5, align="center")]
                if len(ranked) > 1:
                    cells += [Text(move_text(ranked[1].tiles), size=7, align="center", gray=0.35),
                              Text(format_value(self.d.objective, self._value_of(ranked[1])), size=6.5,
                                   align="center", gray=0.35)]
                else:
                    cells += [Text("none", size=6, align="center", gray=0.5), Blank()]
            for bucket, cell in zip((best, best_v, second, second_v), cells, strict=True):
                bucket.append(cell)
        dice = Text(str(self.d.dice(tiles)), size=7, align="center")
        value = Text(self.d.value_text(tiles), size=6.5, align="center")
        rows += [row("entry", Text("best move", size=7, bold=True), dice, value, *best),
                 row("entry", Text(f"{short} after it", size=6.5), Blank(), Blank(), *best_v),
                 row("entry", Text("next best", size=6.5, gray=0.35), Blank(), Blank(), *second),
                 row("entry", Text(f"{short} after it", size=6.5, gray=0.35), Blank(), Blank(), *second_v)]
        return rows

    def _value_of(self, move: solver.MoveValue) -> float:
        return move.p_shut if self.d.objective == "shut" else move.expected_score

    def _move_cell(self, tiles: tuple[int, ...], total: int, best: solver.MoveValue) -> Text:
        largest = legal_moves(self.d.rules, tiles, total)[0]
        return Text(move_text(best.tiles), size=7.5, align="center", bold=best.tiles != largest)

    def position_row(self, tiles: tuple[int, ...]) -> Row:
        count = self.d.dice(tiles)
        cells: list[Cell] = []
        for total in self.d.throws:
            if total not in throw_totals(count):
                cells.append(Text(CANNOT, size=7, align="center", gray=0.5))
                continue
            ranked = self.d.ranked(tiles, total)
            cells.append(self._move_cell(tiles, total, ranked[0]) if ranked else
                         Text(NO_MOVE, size=7, align="center", gray=0.4))
        return row("entry", Text(position_text(self.d.rules, tiles), size=7.5),
                   Text(str(count), size=7, align="center"),
                   Text(self.d.value_text(tiles), size=6.5, align="center"), *cells)

    def positions(self, count: int) -> list[Row]:
        rows = [row("gap", Blank(span=self.n)),
                row("head", Text("Common positions: the best move for each throw", size=8.5, bold=True,
                                 span=self.n)),
                self._throw_head("open tiles")]
        return rows + [self.position_row(t) for t in self.d.positions[:count]]

    def footer(self, count: int) -> list[Row]:
        how = (f"Common positions: the {count} positions a turn most often passes through under this play "
               "(the solver's visit chances), leaving out the start and positions where no throw offers a choice "
               "of moves; most visited first. ")
        legend = (f"dice: how many to throw there · bold: the best move is not the largest tiles · {NO_MOVE}: no move, "
                  f"the turn ends · {CANNOT}: that throw cannot come up with those dice.")
        return [row("gap", Blank(span=self.n)), row("entry", Para(how + legend, size=6, span=self.n))]

    def table(self, count: int) -> Table:
        return Table(self.columns, tuple(self.header() + self.full_board() + self.positions(count)
                                         + self.footer(count)))


def _page_grid(layout: CardLayout, paper: str) -> Grid:
    for landscape in (False, True):
        grid = grids(paper, 1, landscape=landscape)[0]
        if grid.fits((layout.table(0).min_size()[0], 0.0)):
            return grid
    raise ShutboxError(f"--paper {paper}: the card's {len(layout.d.throws)} throw columns do not fit the page; "
                       "allowed: fewer dice")


def _fill(layout: CardLayout, grid: Grid) -> int:
    """As many common positions as fit the page at :data:`CARD_ROW` rows."""
    best = 0
    for count in range(1, len(layout.d.positions) + 1):
        rows = layout.table(count).rows
        if height(rows, CARD_ROW) > grid.cell_h:
            break
        best = count
    return best


def write_card(rules: Rules, objective: str, paper: str, out: Path) -> CardData:
    """Solve, lay out and write the one-page card; return the numbers it shows."""
    from shutbox.print.document import write_pdf

    if paper not in PAPERS:
        raise ShutboxError(f"--paper {paper}: unknown paper; allowed: {', '.join(PAPERS)}")
    data = card_data(rules, objective, MAX_POSITIONS)
    layout = CardLayout(data)
    grid = _page_grid(layout, paper)
    count = _fill(layout, grid)
    positions = data.positions[:count]
    throws = _throw_columns(rules, data.solution, [rules.tile_numbers, *positions])
    shown = CardData(rules, objective, data.solution, throws, positions)
    write_pdf(out, grid, [[CardLayout(shown).table(count)]], "Shut the Box strategy card",
              f"best play ({objective}) for {rules.tiles} tiles")
    return shown


def write_kit_cards(kit: Kit, folder: Path) -> list[str]:
    """``shutbox kit``: the strategy card for the kit's rules (both objectives) on A4 and US Letter."""
    names = []
    for objective in OBJECTIVES:
        for paper in PAPERS:
            name = f"card-{objective}-{paper}.pdf"
            write_card(kit.rules, objective, paper, folder / name)
            names.append(name)
    return names
