"""A recorded game as a completed score sheet: each turn's tiles and throws, scores, totals, winners.

The game file is read and replayed by the rules engine (:mod:`shutbox.game.gamefile`); this
module only lays out what the replay reports, flowing onto as many pages as the game needs.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.game.gamefile import load_game
from shutbox.game.replay import PHASE_WORDS, SHUT, UNCOVER, Game, Round, Throw, Turn
from shutbox.game.report import and_list, money
from shutbox.print import flow
from shutbox.print.flow import Block
from shutbox.print.pads import TILE_COL, header, split_spans, tile_lines, tiles_per_line_choices
from shutbox.print.paper import Grid, grids
from shutbox.print.table import Banner, Blank, Box, Cell, Column, Line, Para, Row, Table, Text, Tile, row

PIPS_SHOWN = 3  # most dice whose pips a throw shows
SHEET_ROW = 18.0  # pt: entry row height the pagination plans for
LEGEND = ("Tiles at the end of each turn: dark = shut before the turn · grey = shut in the turn · "
          "hatched = uncovered in the turn · white = open.  Throws: dice → tiles moved; ✗ = no move.")


#: Minus sign for amounts on the sheet (typographic, not a hyphen).
MINUS = "−"


def tile_states(rules_tiles: tuple[int, ...], turn: Turn) -> list[Tile]:
    """The tiles at the end of ``turn``, marked by what the turn did to them."""
    start, end = set(turn.start_open), set(turn.open_tiles)
    cells = []
    for t in rules_tiles:
        if t in end:
            state = "open" if t in start else "opened"
        else:
            state = "shut-now" if t in start else "shut"
        cells.append(Tile(t, state))
    return cells


def throw_text(throw: Throw) -> str:
    """``4+5→9``, ``6+6→7+5``, ``3+4 ✗`` (no move), ``no move ✗`` (reported without dice), ``?→7+5`` (tiles
    moved with no throw entered: unverified).

    More than :data:`PIPS_SHOWN` dice show their total only (``27→20+7``), so a line holds a turn.
    """
    if throw.dice and len(throw.dice) <= PIPS_SHOWN:
        shown = "+".join(str(d) for d in throw.dice)
    elif throw.dice:
        shown = f"Σ{sum(throw.dice)}"
    elif throw.total is not None:
        shown = str(throw.total)
    elif throw.tiles:
        shown = "?"  # tiles moved with no throw entered (throws optional)
    else:
        return "no move ✗"
    if throw.tiles:
        return f"{shown}→{'+'.join(str(t) for t in sorted(throw.tiles, reverse=True))}"
    if throw.dead:
        return f"{shown} ✗" + (" (double: throw again)" if throw.extra else "")
    return f"{shown} …"


class SheetBuilder:
    """Turns a replayed :class:`Game` into the columns and row blocks of its sheet."""

    def __init__(self, game: Game, per_line: int | None = None) -> None:
        self.game = game
        self.lines = tile_lines(game.rules.tile_numbers, per_line)  # many tiles wrap onto lines
        self.width = len(self.lines[0])
        self.rules = game.rules
        self.format = game.format
        self.long = self.format.uncovering  # one shuts, the other uncovers: roles and what a turn left
        self.totals: dict[str, int] = {p: 0 for p in game.players}
        self.after: dict[int, int] = {}  # turn number -> the player's running total after it
        for turn in game.turns:
            if turn.score is not None:
                self.totals[turn.player] += turn.score
                self.after[turn.number] = self.totals[turn.player]
        names = Column(46.0, 0.5, 100.0)
        throws = Column(110.0, 3.0)
        score = Column(22.0, 0.5, 60.0)  # printed values widen these as needed (Box.need)
        total = [Column(22.0, 0.5, 60.0)] if self.rules.cumulative else []
        self.wrapped = len(self.lines) > 1  # the throws then get a row of their own under the tiles
        self.columns = (names, *[TILE_COL] * self.width, *([] if self.wrapped else [throws]), score, *total)
        self.n = len(self.columns)

    def title(self, continued: bool = False) -> str:
        return (f"Shut the Box · {self.format.title} · game sheet"
                + (" (continued)" if continued else ""))

    def header(self) -> list[Row]:
        n = self.n
        rows = header(self.rules, n, "game sheet")
        played = self._played()
        roles = ""
        if self.long:
            roles = f" ({self.game.players[0]} {PHASE_WORDS[SHUT].does}, {self.game.players[1]} " \
                    f"{PHASE_WORDS[UNCOVER].does})"
        rows.append(row("head", Text(f"Players: {and_list(self.game.players)}{roles}" + played, size=8, bold=True,
                                     span=n)))
        legend = LEGEND + (f"  Σ27: the total of the {self.rules.dice} dice." if self.rules.dice > PIPS_SHOWN else "")
        rows.append(row("note", Text(legend, size=6, gray=0.3, span=n)))
        return rows

    def _played(self) -> str:
        events = self.game.to_events()
        at: Any = events[0].at if events else None
        if isinstance(at, (int, float)):
            return " · played " + dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        return f" · played {at}" if isinstance(at, str) and at else ""

    def blocks(self) -> list[Block]:
        found = [self.round_block(r) for r in self.game.rounds if r.turns]
        return found + [self.final_block()]

    def round_head(self, r: Round, continued: bool = False) -> Row:
        label = "Game" if self.long else f"Round {r.number}"
        cells: list[Cell] = [Text(label + (" (cont.)" if continued else ""), bold=True, size=7.5),
                             Text("tiles at the end of the turn", size=6, gray=0.4, align="center",
                                  span=self.width),
                             *([] if self.wrapped else [Text("throws → tiles", size=6, gray=0.4)]),
                             Text(self.format.score_word, size=6.5, align="center")]
        if self.rules.cumulative:
            cells.append(Text("total", size=6.5, align="center", bold=True))
        return row("head", *cells)

    def turn_rows(self, turn: Turn) -> list[Row]:
        """The turn's row: name, tiles, throws, score (and total). Wrapped tiles continue on further rows,
        and the throws then follow on a row of their own."""
        name = turn.player + (f" ({PHASE_WORDS[turn.phase].does})" if self.long else "")
        score = "" if turn.score is None else str(turn.score)
        said = [throw_text(t) for t in turn.throws] + (["unverified"] if turn.unverified else [])
        throws = Para(" · ".join(said), span=1 if not self.wrapped else self.width)
        results: list[Cell] = [Box(value=score)]
        if self.rules.cumulative:
            results.append(Box(value=str(self.after.get(turn.number, "")), strong=True))
        states = tile_states(self.rules.tile_numbers, turn)
        rows = []
        start = 0
        for i, line in enumerate(self.lines):
            tiles: list[Cell] = [*states[start:start + len(line)], *(Blank() for _ in range(self.width - len(line)))]
            start += len(line)
            if i:
                rows.append(row("entry", Blank(), *tiles, *(Blank() for _ in results)))
            elif self.wrapped:
                rows.append(row("entry", Text(name, size=7), *tiles, *results))
            else:
                rows.append(row("entry", Text(name, size=7), *tiles, throws, *results))
        if self.wrapped:
            rows.append(row("entry", Blank(), throws, *(Blank() for _ in results)))
        return rows

    def round_block(self, r: Round) -> Block:
        head = (row("gap", Blank(span=self.n)), self.round_head(r))
        rows = [line for t in r.turns for line in self.turn_rows(t)]
        rows.append(row("head", Text(self.round_result(r), size=7, span=self.n)))
        return Block(head + tuple(rows), head[:1] + (self.round_head(r, continued=True),))

    def round_result(self, r: Round) -> str:
        game = self.game
        label = "Game" if self.long else f"Round {r.number}"
        if not r.finished:
            text = f"{label}: not finished"
        elif self.long:
            last = r.turns[-1]
            text = f"{label}: {last.player} {'shut' if last.shut_box else 'uncovered'} the box and wins"
        elif r.shut_box_by:
            text = f"{label}: {r.shut_box_by} shut the box and wins the round"
        elif r.cut_short:  # the match ended before every player still in it had a turn (rules helper)
            text = f"{label}: cut short by the end of the match, no winner"
            text += "; every stake returned" if self.rules.stake else ""
        else:
            low, won = min(r.scores.values()), r.scores[r.winners[0]]
            verb = "shares" if len(r.winners) > 1 else "wins"
            text = (f"{label}: lowest score {low}; {and_list(r.winners)} {verb} the round" if won == low else
                    f"{label}: {and_list(r.winners)} {verb} the round with {won}, the lowest score still in")
        played_last = {p: max(t.round for t in game.turns if t.player == p) for p in game.players
                       if any(t.player == p for t in game.turns)}
        out = [p for p in game.eliminated if played_last.get(p) == r.number]
        if out:
            text += f" · {and_list(out)} {'drops' if len(out) == 1 else 'drop'} out (limit {self.rules.limit})"
        if game.loser and played_last.get(game.loser) == r.number:  # the first to reach the limit loses
            text += f" · {game.loser} reaches {self.rules.limit} and loses the {self.format.title.lower()}"
        if self.rules.stake and r.finished:
            text += f" · pool {r.pool:.2f}: " + ", ".join(f"{p} {money(v, MINUS)}" for p, v in r.net.items())
        return text

    def final_block(self) -> Block:
        game, n = self.game, self.n
        if not game.finished:
            result = "Game not finished"
        elif game.loser:
            winners = "winners" if len(game.winners) > 1 else "winner"
            result = f"{game.loser} loses · {winners}: {and_list(game.winners)}"
        else:
            result = f"{'Winners' if len(game.winners) > 1 else 'Winner'}: {and_list(game.winners)}"
        rows = [row("gap", Blank(span=n)), row("title", Banner(result, size=9, span=n))]
        if self.rules.cumulative:
            if self.totals != game.totals:
                raise AssertionError(f"sheet totals {self.totals} differ from the engine's {game.totals}")
            parts = [f"{p} {game.totals[p]}" + (" (out)" if p in game.eliminated else "") for p in game.players]
            rows.append(row("head", Text("Totals: " + " · ".join(parts), size=7.5, bold=True, span=n)))
        if self.rules.stake:
            parts = [f"{p} {money(v, MINUS)}" for p, v in game.balance.items()]
            rows.append(row("head", Text("Money: " + " · ".join(parts), size=7.5, span=n)))
        left, right = split_spans(n, 2)
        rows += [row("gap", Blank(span=n)), row("entry", Line("Checked by:", span=left), Blank(span=right))]
        return Block(tuple(rows))


def paginate(builder: SheetBuilder, page_h: float) -> list[Table]:
    """Flow the header and blocks onto pages (:func:`shutbox.print.flow.paginate`)."""
    cont = [row("title", Text(builder.title(continued=True), size=9, bold=True, span=builder.n))]
    return flow.paginate(builder.columns, builder.header(), builder.blocks(), cont, page_h, SHEET_ROW)


def _layout(game: Game, paper: str) -> tuple[Grid, list[Table]] | None:
    """Pages for the game: all tiles on one line if they fit (portrait, then landscape), else wrapped."""
    for per_line in tiles_per_line_choices(game.rules):
        builder = SheetBuilder(game, per_line)
        for landscape in (False, True):
            grid = grids(paper, 1, landscape=landscape)[0]
            tables = paginate(builder, grid.cell_h)
            if max(t.min_size()[0] for t in tables) <= grid.cell_w:
                return grid, tables
    return None


def write_game_sheet(src: Path, out: Path, paper: str) -> int:
    """Render the game file ``src`` to ``out``; return the number of pages."""
    from shutbox.print.document import write_pdf

    game = load_game(src)
    if not game.players:
        raise ShutboxError(f"{src}: the game has no players yet; there is nothing to print")
    found = _layout(game, paper)
    if found is None:
        raise ShutboxError(f"--from-game {src}: a sheet for {game.rules.tiles} tiles with {game.rules.scoring} "
                           f"scoring does not fit {paper} paper")
    grid, tables = found
    write_pdf(out, grid, [[t] for t in tables], "Shut the Box game sheet",
              f"{game.rules.match} game: {and_list(game.players)}")
    return len(tables)
