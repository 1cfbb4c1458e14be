"""Blank score pads, one layout per match format; scoring (sum or digits) sets the score box widths.

Each builder returns a :class:`~shutbox.print.table.Table`; tile numbers, limit and rules come
from the kit's :class:`~shutbox.model.Rules`.
"""

from __future__ import annotations

from collections.abc import Callable

from shutbox.game.rules import score
from shutbox.model import Rules
from shutbox.print.summary import FORMAT_TITLES, summary_lines
from shutbox.print.table import Banner, Blank, Box, Cell, Column, Line, Row, Table, Text, Tile, row

HAND_DIGIT = 6.5  # pt: width a handwritten digit needs
TILE_COL = Column(14.0, 1.0, 26.0)
LONG_GAME_TURNS = 8  # turn rows per game on a long-game pad


def max_score(rules: Rules) -> int:
    """The worst score of one turn (every tile left open)."""
    return score(rules, rules.tile_numbers)


def digits_width(number: int) -> float:
    """Box width for writing ``number`` by hand."""
    return max(22.0, len(str(number)) * HAND_DIGIT + 6.0)


def header(rules: Rules, ncols: int, kind: str = "blank pad") -> list[Row]:
    """Title and the rule summary."""
    title = f"Shut the Box · {FORMAT_TITLES[rules.match]} · {kind}"
    rows = [row("title", Text(title, size=11, bold=True, span=ncols))]
    rows += [row("note", Text(line, size=6.5, gray=0.2, span=ncols)) for line in summary_lines(rules)]
    return rows


def name_lines(ncols: int, players: int, labels: list[str] | None = None, per_row: int = 2) -> list[Row]:
    """Lines for player names, ``per_row`` to a row; ``labels`` defaults to Player 1, Player 2 …"""
    labels = labels or [f"Player {i}" for i in range(1, players + 1)]
    per_row = max(1, min(per_row, ncols))
    spans = [ncols // per_row + (1 if i < ncols % per_row else 0) for i in range(per_row)]
    rows = []
    for start in range(0, len(labels), per_row):
        chunk = labels[start:start + per_row]
        cells: list[Cell] = [Line(f"{label}:", span=s) for label, s in zip(chunk, spans, strict=False)]
        cells += [Blank(span=s) for s in spans[len(chunk):]]
        rows.append(row("entry", *cells))
    return rows


def split_spans(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def round_pad(rules: Rules, players: int, rounds: int) -> Table:
    """``round``: per round, a row of tile boxes per player to tick, the score, who won, the pool."""
    tiles = rules.tile_numbers
    score_w = digits_width(max_score(rules))
    columns = (Column(30.0, 0.5, 60.0), *[TILE_COL] * len(tiles), Column(score_w, 2.0), Column(18.0, 0.5, 28.0))
    n = len(columns)
    rows = header(rules, n) + [row("gap", Blank(span=n))] + name_lines(n, players)
    pool = "Pool:"
    if rules.stake:
        pool = f"Pool ({players} × {rules.stake:g} = {players * rules.stake:g}):"
    left, right = split_spans(n, 2)
    for r in range(1, rounds + 1):
        rows.append(row("gap", Blank(span=n)))
        rows.append(row("head", Text(f"Round {r}", bold=True),
                        Text("tick each tile as it is shut", size=6, gray=0.4, align="center", span=len(tiles)),
                        Text("Score", size=6.5, align="center"), Text("Won", size=6.5, align="center")))
        for p in range(1, players + 1):
            hint = "digits" if rules.scoring == "digits" else ""
            rows.append(row("entry", Text(f"Player {p}", size=6.5), *[Tile(t) for t in tiles],
                            Box(hint=hint), Box()))
        rows.append(row("entry", Line("Winner:", span=left), Line(pool, span=right)))
    return Table(columns, tuple(rows))


def running_pad(rules: Rules, players: int, rounds: int) -> Table:
    """``drop-out`` and ``tournament``: a score and a running total per player per round, the limit marked."""
    assert rules.limit is not None
    limit = rules.limit
    worst = max_score(rules)
    score_w = digits_width(worst)
    total_w = digits_width(min(rounds * worst, limit - 1 + worst))
    columns = (Column(26.0, 0.3, 40.0), *[c for _ in range(players) for c in (Column(score_w), Column(total_w))])
    n = len(columns)
    if rules.match == "drop-out":
        banner = f"LIMIT {limit}: a total of {limit} or more drops the player out · the last player left wins"
        out_label, result = "Out in round", "Winner (last player left):"
        winner = ""
    else:
        banner = f"LIMIT {limit}: the first player whose total reaches {limit} loses the tournament"
        out_label, result = f"Reached {limit}", f"Loser (first to {limit}):"
        winner = "Winner (lowest total of the others):"
    rows = header(rules, n) + [row("gap", Blank(span=n)), row("title", Banner(banner, size=8, span=n)),
                                       row("gap", Blank(span=n))]
    rows.append(row("entry", Text("Names", size=6.5), *[Line(f"{p}", span=2) for p in range(1, players + 1)]))
    heads: list[Cell] = [Text("Round", size=6.5, bold=True)]
    for _ in range(players):
        heads += [Text("score", size=6, align="center"), Text("total", size=6, align="center", bold=True)]
    rows.append(row("head", *heads))
    for r in range(1, rounds + 1):
        cells: list[Cell] = [Text(str(r), size=7, align="center")]
        for _ in range(players):
            cells += [Box(), Box(hint=f"/{limit}", strong=True)]
        rows.append(row("entry", *cells))
    rows.append(row("entry", Text(out_label, size=6.5, bold=True),
                    *[Box(span=2, hint="round", strong=True) for _ in range(players)]))
    rows.append(row("gap", Blank(span=n)))
    rows.append(row("entry", Line(result, span=n)))
    if winner:
        rows.append(row("entry", Line(winner, span=n)))
    return Table(columns, tuple(rows))


def long_game_pad(rules: Rules, players: int, rounds: int) -> Table:
    """``long-game``: per game, who shuts and who uncovers, then alternating turns with tile boxes to tick."""
    tiles = rules.tile_numbers
    columns = (Column(44.0, 0.3, 80.0), *[TILE_COL] * len(tiles), Column(digits_width(max_score(rules)), 1.0))
    n = len(columns)
    rows = header(rules, n) + [row("gap", Blank(span=n))]
    rows.append(row("head", Text("Turn", size=6.5, bold=True),
                    Text("tick the tiles shut or uncovered", size=6, gray=0.4,
                         align="center", span=len(tiles)),
                    Text("left undone", size=6, align="center")))
    first, second = split_spans(n - 1, 2)
    left, right = split_spans(n, 2)
    for g in range(1, rounds + 1):
        rows.append(row("gap", Blank(span=n)))
        rows.append(row("entry", Text(f"Game {g}", bold=True), Line("shuts:", span=first),
                        Line("uncovers:", span=second)))
        for t in range(1, LONG_GAME_TURNS + 1):
            phase = "shut" if t % 2 else "uncover"
            rows.append(row("entry", Text(f"{t} {phase}", size=6.5), *[Tile(x) for x in tiles], Box()))
        rows.append(row("entry", Line("Winner:", span=left), Blank(span=right)))
    return Table(columns, tuple(rows))


BUILDERS: dict[str, Callable[[Rules, int, int], Table]] = {
    "round": round_pad,
    "drop-out": running_pad,
    "tournament": running_pad,
    "long-game": long_game_pad,
}


def blank_pad(rules: Rules, players: int, rounds: int) -> Table:
    """The blank pad for the kit's match format."""
    return BUILDERS[rules.match](rules, players, rounds)
