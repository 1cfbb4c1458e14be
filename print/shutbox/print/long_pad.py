"""The long game's blank pad: per game, who shuts and who uncovers, then a row of tile boxes per turn.

A game gets as many turn rows as :func:`shutbox.game.turns.long_game_turn_rows` measures for the
rules (enough for 99% of long games), two turns (the shutter's, then the uncoverer's) side by side
when the paper is wide enough. The rows flow onto further sides when one side cannot hold them;
every pad has a back (an even number of sides: print it double-sided) and its last side is filled
with further rows, so the 1% of games that run longer carry on over the page instead of ending.
"""

from __future__ import annotations

from shutbox.game.formats import match_format
from shutbox.game.replay import PHASE_WORDS, SHUT, UNCOVER
from shutbox.game.turns import LONG_GAME_QUANTILE, long_game_turn_rows
from shutbox.kit.model import Rules
from shutbox.print.flow import Block, height, paginate
from shutbox.print.pads import PAD_TILE_COL, Layout, Pad, header, split_spans, tile_lines
from shutbox.print.table import Blank, Cell, Column, Line, Row, Table, Text, Tile, row

PLAN_ROW = 17.0  # pt: the turn row height the sides are planned for
TURN_COL = Column(16.0, 0.0)
GAP_COL = Column(8.0, 0.0)
MIN_TURN_LINES = 6  #: a side must hold at least the header, a game's head and this many turn lines


class LongPad:
    """Builds the rows of a long-game pad for one layout: ``turns`` turns per line (2 or 1)."""

    def __init__(self, rules: Rules, layout: Layout, turns: int) -> None:
        self.rules, self.layout, self.turns = rules, layout, turns
        self.lines = tile_lines(rules.tile_numbers, layout.per_line)
        self.width = len(self.lines[0])
        half = (TURN_COL, *[PAD_TILE_COL] * self.width)
        self.columns = half + (GAP_COL, *half) if turns == 2 else half
        self.n = len(self.columns)
        self.half = 1 + self.width
        self.turn_rows = long_game_turn_rows(rules)

    def header(self) -> list[Row]:
        rows = header(self.rules, self.n)
        rows.append(row("note", Text(f"{self.turn_rows} turn rows a game: {LONG_GAME_QUANTILE:.0%} of long games "
                                     "under these rules end within them; longer games carry on over the page.",
                                     size=6.5, gray=0.2, span=self.n)))
        return rows

    def _roles(self) -> list[Cell]:
        names = self.layout.names
        cells: list[Cell] = []
        spans = [self.half, self.half] if self.turns == 2 else split_spans(self.n - 1, 2)
        for i, (phase, span) in enumerate(zip((SHUT, UNCOVER), spans, strict=True)):
            does = PHASE_WORDS[phase].does
            if names:
                cells.append(Text(f"{names[i]} {does}", size=7.5, bold=True, span=span))
            else:
                cells.append(Line(f"{does}:", span=span))
        if self.turns == 2:
            cells.insert(1, Blank())
        return cells

    def game_head(self, game: int, continued: bool = False) -> tuple[Row, ...]:
        left, right = split_spans(self.n, 2)
        title = Text(f"Game {game}" + (" (cont.)" if continued else ""), bold=True, size=7.5, span=left)
        label = row("head", title, Blank(span=right)) if continued else row("entry", title,
                                                                              Line("Winner:", span=right))
        heads: list[Cell]
        if self.turns == 2:
            roles = self._roles()
            hint = [Text("turn", size=5.5, gray=0.4),
                    Text(f"tick the tiles {PHASE_WORDS[SHUT].done}", size=6, gray=0.4, align="center",
                         span=self.width), Blank(),
                    Text("turn", size=5.5, gray=0.4),
                    Text(f"tick the tiles {PHASE_WORDS[UNCOVER].done}", size=6, gray=0.4, align="center",
                         span=self.width)]
            heads = hint
            return (row("gap", Blank(span=self.n)), label, row("entry", *roles), row("head", *heads))
        roles = [Text("", span=1), *self._roles()]
        heads = [Text("turn", size=5.5, gray=0.4),
                 Text(f"tick the tiles {PHASE_WORDS[SHUT].done} (odd turns) or {PHASE_WORDS[UNCOVER].done} "
                      "(even turns)", size=6, gray=0.4, align="center", span=self.width)]
        return (row("gap", Blank(span=self.n)), label, row("entry", *roles), row("head", *heads))

    def _turn_cells(self, turn: int, line: tuple[int, ...], first: bool) -> list[Cell]:
        label: Cell = Blank()
        if first:
            phase = SHUT if turn % 2 else UNCOVER
            label = Text(str(turn) if self.turns == 2 else f"{turn} {PHASE_WORDS[phase].verb}", size=6.5)
        return [label, *[Tile(t) for t in line], *[Blank()] * (self.width - len(line))]

    def game_block(self, game: int, turn_rows: int) -> Block:
        head = self.game_head(game)
        rows: list[Row] = []
        turn = 1
        while turn <= turn_rows:
            for i, line in enumerate(self.lines):
                cells = self._turn_cells(turn, line, i == 0)
                if self.turns == 2:
                    cells += [Blank(), *self._turn_cells(turn + 1, line, i == 0)]
                rows.append(row("entry", *cells))
            turn += self.turns
        return Block(head + tuple(rows), self.game_head(game, continued=True))

    def cont(self) -> list[Row]:
        title = f"Shut the Box · {match_format(self.rules).title} · blank pad (continued)"
        return [row("title", Text(title, size=9, bold=True, span=self.n))]

    def min_width(self) -> float:
        """The least width the pad's rows need."""
        rows = (*self.header(), *self.game_block(1, 2 * self.turns).rows, *self.cont())
        return Table(self.columns, rows).min_size()[0]

    def first_side_min(self) -> float:
        """The least height a side needs: header, a game's head and :data:`MIN_TURN_LINES` turn lines."""
        return height(self.header(), PLAN_ROW) + height(self.game_head(1), PLAN_ROW) + \
            MIN_TURN_LINES * len(self.lines) * PLAN_ROW

    def sides(self, side_h: float) -> Pad:
        """The pad's sides for ``side_h``: the rows each game needs, then as many more as fill the last side."""
        games = self.layout.rounds
        step = self.turns
        extra = 0

        def build(extra_turns: int) -> list[Table]:
            blocks = [self.game_block(g, self.turn_rows + (extra_turns if g == games else 0))
                      for g in range(1, games + 1)]
            return paginate(self.columns, self.header(), blocks, self.cont(), side_h, PLAN_ROW)

        tables = build(0)
        target = len(tables) + len(tables) % 2  # a back, and both sides of every sheet
        while len(build(extra + step)) <= target:
            extra += step
        tables = build(extra)
        return Pad(tuple(tables))


def long_game_layouts(rules: Rules, layout: Layout) -> list[LongPad]:
    """Layouts to try, most readable first: two turns a line, one turn a line, then tiles wrapped."""
    from shutbox.print.pads import tiles_per_line_choices

    found = []
    for per_line in tiles_per_line_choices(rules):
        for turns in ((2, 1) if per_line is None else (1,)):
            found.append(LongPad(rules, Layout(layout.players, layout.rounds, layout.names, per_line), turns))
    return found
