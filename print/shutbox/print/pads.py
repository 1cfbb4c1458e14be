"""Blank score pads, one layout per match format; scoring (sum or digits) sets the score box widths.

Each builder returns a :class:`Pad`; tile numbers, limit and rules come from the kit's
:class:`~shutbox.kit.model.Rules`. A pad shows only the fields the settings give a meaning to (a pool
only with a stake) and one place for each result. Tile boxes take the spare width. With many tiles
a player's tiles wrap onto ``per_line`` tiles a line. The long game's pad is in
:mod:`shutbox.print.long_pad`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shutbox.game.formats import LAST_LEFT, match_format
from shutbox.game.rules import score
from shutbox.kit.model import Rules
from shutbox.print.summary import summary_lines
from shutbox.print.table import Banner, Blank, Box, Cell, Column, Line, Row, Table, Text, Tile, row

HAND_DIGIT = 6.5  # pt: width a handwritten digit needs
TILE_COL = Column(14.0, 1.0, 26.0)  # a game sheet's tile column
PAD_TILE_COL = Column(14.0, 1.0, 40.0)  # a blank pad's: tile boxes take the spare width


@dataclass(frozen=True)
class Layout:
    """What a pad holds: the players' names (None: blank name lines) and how many tiles go on a line."""

    players: int
    rounds: int
    names: tuple[str, ...] | None = None
    per_line: int | None = None  #: tiles per line; None: all on one line

    def labels(self) -> list[str]:
        return list(self.names) if self.names else [f"Player {i}" for i in range(1, self.players + 1)]


@dataclass(frozen=True)
class Pad:
    """A blank pad: its sides (one, or a front and back and more when a long game needs them)."""

    sides: tuple[Table, ...]

    def min_size(self) -> tuple[float, float]:
        sizes = [s.min_size() for s in self.sides]
        return max(w for w, _ in sizes), max(h for _, h in sizes)

    def comfortable_height(self) -> float:
        return max(s.comfortable_height() for s in self.sides)


def max_score(rules: Rules) -> int:
    """The worst score of one turn (every tile left open)."""
    return score(rules, rules.tile_numbers)


def digits_width(number: int) -> float:
    """Box width for writing ``number`` by hand."""
    return max(22.0, len(str(number)) * HAND_DIGIT + 6.0)


def header(rules: Rules, ncols: int, kind: str = "blank pad") -> list[Row]:
    """Title and the rule summary."""
    title = f"Shut the Box · {match_format(rules).title} · {kind}"
    rows = [row("title", Text(title, size=11, bold=True, span=ncols))]
    rows += [row("note", Text(line, size=6.5, gray=0.2, span=ncols)) for line in summary_lines(rules)]
    return rows


def name_lines(ncols: int, labels: list[str], per_row: int = 2) -> list[Row]:
    """Lines for player names, ``per_row`` to a row, labelled Player 1, Player 2 …"""
    per_row = max(1, min(per_row, ncols))
    spans = split_spans(ncols, per_row)
    rows = []
    for start in range(0, len(labels), per_row):
        chunk = labels[start:start + per_row]
        cells: list[Cell] = [Line(f"{label}:", span=s) for label, s in zip(chunk, spans, strict=False)]
        cells += [Blank(span=s) for s in spans[len(chunk):]]
        rows.append(row("entry", *cells))
    return rows


def split_spans(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def tile_lines(tiles: Sequence[int], per_line: int | None) -> list[tuple[int, ...]]:
    """The tiles cut into lines of ``per_line`` (all on one line when None)."""
    step = per_line or len(tiles)
    return [tuple(tiles[i:i + step]) for i in range(0, len(tiles), step)]


def tiles_per_line_choices(rules: Rules) -> list[int | None]:
    """Ways to lay a player's tiles out, most readable first: one line, then two, three … lines."""
    n = rules.tiles
    found: list[int | None] = [None]
    for lines in range(2, n + 1):
        per = -(-n // lines)
        if per < n and per not in found and -(-n // per) == lines:
            found.append(per)
    return found


def round_pad(rules: Rules, layout: Layout) -> Pad:
    """``round``: per round, tile boxes per player to tick, the score, a box to tick who won."""
    lines = tile_lines(rules.tile_numbers, layout.per_line)
    width = len(lines[0])
    labels = layout.labels()
    score_w = digits_width(max_score(rules))
    columns = (Column(30.0, 0.3, 80.0), *[PAD_TILE_COL] * width, Column(score_w, 0.3, score_w * 1.6),
               Column(18.0, 0.1, 24.0))
    n = len(columns)
    rows = header(rules, n) + [row("gap", Blank(span=n))]
    if layout.names is None:
        rows += name_lines(n, labels)
    hint = "tick each tile as it is shut"
    if rules.stake:
        hint += f" · pool {layout.players} × {rules.stake:g} = {layout.players * rules.stake:g} to the winner"
    for r in range(1, layout.rounds + 1):
        rows.append(row("gap", Blank(span=n)))
        rows.append(row("head", Text(f"Round {r}", bold=True),
                        Text(hint, size=6, gray=0.4, align="center", span=width),
                        Text("Score", size=6.5, align="center"), Text("Won", size=6.5, align="center")))
        digits = "digits" if rules.scoring == "digits" else ""
        for label in labels:
            for i, line in enumerate(lines):
                tiles: list[Cell] = [*(Tile(t) for t in line), *(Blank() for _ in range(width - len(line)))]
                if i == 0:
                    rows.append(row("entry", Text(label, size=6.5), *tiles, Box(hint=digits), Box()))
                else:
                    rows.append(row("entry", Blank(), *tiles, Blank(), Blank()))
    return Pad((Table(columns, tuple(rows)),))


def running_pad(rules: Rules, layout: Layout) -> Pad:
    """``drop-out`` and ``tournament``: a score and a running total per player per round, the limit marked."""
    assert rules.limit is not None
    limit, rounds, players = rules.limit, layout.rounds, layout.players
    worst = max_score(rules)
    score_w = digits_width(worst)
    total_w = digits_width(min(rounds * worst, limit - 1 + worst))
    columns = (Column(26.0, 0.3, 40.0), *[c for _ in range(players) for c in (Column(score_w), Column(total_w))])
    n = len(columns)
    if match_format(rules).ends == LAST_LEFT:
        banner = f"LIMIT {limit}: a total of {limit} or more drops the player out · the last player left wins"
        out_label, result = "Out in round", "Winner (last player left):"
        winner = ""
    else:
        banner = f"LIMIT {limit}: the first player whose total reaches {limit} loses the tournament"
        out_label, result = f"Reached {limit}", f"Loser (first to {limit}):"
        winner = "Winner (lowest total of the others):"
    rows = header(rules, n) + [row("gap", Blank(span=n)), row("title", Banner(banner, size=8, span=n)),
                               row("gap", Blank(span=n))]
    if layout.names is None:
        rows.append(row("entry", Text("Names", size=6.5), *[Line(f"{p}", span=2) for p in range(1, players + 1)]))
    else:
        rows.append(row("entry", Text("Names", size=6.5),
                        *[Text(name, size=8, bold=True, align="center", span=2) for name in layout.names]))
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
    return Pad((Table(columns, tuple(rows)),))
