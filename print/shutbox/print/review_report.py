"""The review as a PDF to keep: per player, a chart of the measure the review grades by, and the list of
mistakes and blunders.

Each player starts a page: the game and its rules, how decisions were measured, the player's summary
(accuracy and counts), a chart (matplotlib, DejaVu Sans like the pads) of the review's objective after
every throw of each of their turns — the chance to shut the box, or the turn's expected score — as played
and with the best move for that throw, and then every mistake and blunder.
The PDF is written atomically with ReportLab's invariant mode (same review, same bytes).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.output import staged_file
from shutbox.base.typefaces import REGULAR, font_file
from shutbox.base.version import __version__
from shutbox.game.replay import PHASE_WORDS, UNCOVER, Game
from shutbox.game.report import and_list
from shutbox.game.review import (
    Decision,
    Review,
    TurnTrace,
    choice_text,
    loss_text,
    objective_text,
    player_line,
    value_text,
)
from shutbox.print.paper import MARGIN, MM, PAPERS
from shutbox.print.pdffonts import font
from shutbox.print.summary import summary_lines

PLAYED, BEST, MISTAKE = "#1f5fa8", "#d9822b", "#c0392b"
CHART_DPI = 200
CHART_H = 80 * MM


def chart_png(traces: Sequence[TurnTrace], width_pt: float, height_pt: float, objective: str = "shut") -> bytes:
    """One player's turns as a PNG: the objective's value after each throw, as played and with the best move."""
    import logging

    import matplotlib

    matplotlib.use("Agg")
    # matplotlib's own font cache that cannot be saved (a full disk) only costs time: not a line on the terminal
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    from matplotlib import font_manager
    from matplotlib.figure import Figure

    font_manager.fontManager.addfont(str(font_file(REGULAR)))
    fig = Figure(figsize=(width_pt / 72, height_pt / 72), dpi=CHART_DPI)
    ax = fig.add_subplot()
    x = 0.0
    ticks: list[tuple[float, str]] = []
    scale = 100.0 if objective == "shut" else 1.0
    for index, trace in enumerate(traces):
        xs = [x + i for i in range(len(trace.points))]
        played = [p.played * scale for p in trace.points]
        best = [p.best * scale for p in trace.points]
        for k in range(1, len(xs)):  # from the position before the throw to what the best move kept
            ax.plot([xs[k - 1], xs[k]], [played[k - 1], best[k]], color=BEST, linestyle="--", linewidth=1,
                    marker="o", markersize=3, markevery=[1], label="best move for the throw")
        ax.plot(xs, played, color=PLAYED, marker="o", markersize=3, linewidth=1.4,
                label="as played" if index == 0 else None)
        wrong = [(xx, pp) for xx, pp, p in zip(xs, played, trace.points, strict=True) if p.mistake]
        if wrong:
            ax.plot([w[0] for w in wrong], [w[1] for w in wrong], linestyle="none", marker="o", markersize=8,
                    markerfacecolor="none", markeredgecolor=MISTAKE, markeredgewidth=1.2,
                    label="mistake or blunder")
        ax.text((xs[0] + xs[-1]) / 2, 1.01, f"turn {trace.turn}", transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=6, color="#555555")
        ticks += [(xx, p.label if p.label != "start" else "·") for xx, p in zip(xs, trace.points, strict=True)]
        if index < len(traces) - 1:
            ax.axvline(xs[-1] + 0.75, color="#bbbbbb", linewidth=0.6, linestyle=":")
        x = xs[-1] + 1.5 if xs else x
    if len(ticks) <= 90:
        ax.set_xticks([t[0] for t in ticks], [t[1] for t in ticks], fontsize=6)
    else:
        ax.set_xticks([])
    ax.set_xlabel("throws, turn by turn (· = start of the turn; the number is the throw)", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    top = max([p.best * scale for t in traces for p in t.points] + [p.played * scale for t in traces for p in t.points]
              + [1.0])
    if objective == "shut":
        goal = "uncover" if traces and all(t.phase == UNCOVER for t in traces) else "shut"
        ax.set_ylabel(f"chance to {goal} the box, %", fontsize=7)
        # A square-root scale: the small chances of a turn's start stay readable beside a box shut (100%).
        ax.set_yscale("function", functions=(_sqrt, _square))
        ax.set_ylim(0, min(100.0, top * 1.15) if top < 85 else 100)
        ax.set_yticks([t for t in (0, 1, 5, 10, 20, 40, 60, 100) if t <= max(top * 1.15, 1)])
    else:
        ax.set_ylabel("expected score of the turn (lower is better)", fontsize=7)
        ax.set_ylim(0, top * 1.08)
    ax.grid(axis="y", color="#e5e5e5", linewidth=0.5)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), fontsize=7, loc="upper left" if objective == "shut" else "best",
              frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _sqrt(values: Any) -> Any:
    import numpy as np

    return np.sqrt(np.clip(values, 0, None))


def _square(values: Any) -> Any:
    return values * values


class _Page:
    """A writing position on the canvas that starts a new page when the text reaches the bottom."""

    def __init__(self, canvas: Any, size: tuple[float, float], title: str) -> None:
        self.c, self.size, self.title = canvas, size, title
        self.width = size[0] - 2 * MARGIN
        self.y = size[1] - MARGIN
        self.pages = 1

    def need(self, height: float) -> None:
        if self.y - height < MARGIN + 8 * MM:
            self.new_page()

    def new_page(self) -> None:
        self.footer()
        self.c.showPage()
        self.pages += 1
        self.y = self.size[1] - MARGIN

    def footer(self) -> None:
        self.c.setFont(font(), 7)
        self.c.setFillColorRGB(0.4, 0.4, 0.4)
        self.c.drawString(MARGIN, MARGIN / 2, f"{self.title} · page {self.pages}")
        self.c.setFillColorRGB(0, 0, 0)

    def text(self, line: str, size: float = 9, bold: bool = False, color: str | None = None, indent: float = 0) -> None:
        from reportlab.lib.utils import simpleSplit

        for part in simpleSplit(line, font(bold), size, self.width - indent):
            self.need(size * 1.35)
            self.c.setFont(font(bold), size)
            if color:
                self.c.setFillColor(color)
            self.c.drawString(MARGIN + indent, self.y - size, part)
            self.c.setFillColorRGB(0, 0, 0)
            self.y -= size * 1.35

    def gap(self, height: float) -> None:
        self.y -= height

    def image(self, png: bytes, height: float) -> None:
        from reportlab.lib.utils import ImageReader

        self.need(height)
        self.c.drawImage(ImageReader(io.BytesIO(png)), MARGIN, self.y - height, self.width, height)
        self.y -= height


def mistake_row(d: Decision, objective: str) -> str:
    """One mistake: where, what was in play, what was played and what was best, the loss."""
    verb = PHASE_WORDS[d.phase].verb
    tiles = " ".join(map(str, d.in_play))
    if d.kind == "dice":
        what = f"before the throw, {tiles} in play: threw {choice_text(d, 'played')}"
    else:
        what = f"throw {d.throw}, {tiles} in play: {verb} {choice_text(d, 'played')}"
    return (f"turn {d.turn}, {d.grade}: {what} ({value_text(objective, d.value_played)}); best "
            f"{choice_text(d, 'best')} ({value_text(objective, d.value_best)}); loss {loss_text(objective, d.loss)}; "
            f"kept {d.kept:.0%}")


def _player_page(page: _Page, game: Game, review: Review, name: str, player: str) -> None:
    page.text(f"Game review — {player}", 16, bold=True)
    page.gap(2)
    page.text(f"{name}: {and_list(game.players)}", 10)
    for line in summary_lines(game.rules):
        page.text(line, 8, color="#444444")
    page.gap(4)
    exact = "" if review.exact else " (approximate values)"
    page.text(f"Measured by {objective_text(review.objective)}{exact}; {review.threshold}.", 8)
    for note in review.notes:
        page.text(f"Note: {note}", 8, color="#444444")
    page.gap(4)
    page.text(player_line(review.players[player], review.objective), 10, bold=True)
    page.gap(4)
    traces = [t for t in review.traces if t.player == player]
    if traces:
        page.image(chart_png(traces, page.width, CHART_H, review.objective), CHART_H)
        page.gap(6)
    mistakes = [d for d in review.decisions if d.player == player and d.mistake]
    page.text(f"Mistakes and blunders ({len(mistakes)})", 12, bold=True)
    if not mistakes:
        page.text("None: every decision kept the best value or came close to it.", 9)
    for d in mistakes:
        page.text(mistake_row(d, review.objective), 8.5, indent=0)
        page.gap(1.5)


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(5)
    except OSError:
        return b""


def write_review_pdf(path: Path, game: Game, review: Review, name: str, paper: str = "a4") -> None:
    """Write the review report to ``path`` (atomically); one section per player, each from a new page."""
    from reportlab.pdfgen.canvas import Canvas

    path = Path(path)
    if path.is_dir():
        raise ShutboxError(f"--pdf {path}: is a folder; give a file name")
    if path.exists() and _head(path) != b"%PDF-":
        raise ShutboxError(f"--pdf {path}: exists and is not a PDF; not overwritten (choose another name)")
    size = PAPERS[paper]
    title = f"shutbox review of {name}"
    try:
        with staged_file(path, "--pdf", ".pdf") as tmp:
            c = Canvas(str(tmp), pagesize=size, invariant=1, pageCompression=1, initialFontName=font())  # pyright: ignore[reportArgumentType]
            c.setTitle(title)
            c.setAuthor("shutbox")
            c.setCreator(f"shutbox {__version__}")
            c.setProducer("shutbox (ReportLab)")
            c.setSubject("Every decision measured against the exact solver")
            page = _Page(c, size, title)
            for index, player in enumerate(game.players):
                if index:
                    page.new_page()
                _player_page(page, game, review, name, player)
            page.footer()
            c.showPage()
            c.save()
    except OSError as exc:
        raise ShutboxError(f"--pdf {path}: cannot be written ({exc.strerror or exc})") from None
