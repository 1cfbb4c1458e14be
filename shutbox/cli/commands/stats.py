"""``shutbox stats``: per player across the game database — games, wins, boxes shut, scores, review figures."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import csv_cell, escape, path_text
from shutbox.cli.commandspec import Command, out_file_flag
from shutbox.game.policy import OBJECTIVES
from shutbox.kit.model import MATCHES, Kit

if TYPE_CHECKING:
    from shutbox.companion.store.stats import Collected
    from shutbox.game.playerstats import PlayerStats

#: The CSV's header starts so; an existing file is overwritten only if it is such a table.
CSV_HEAD = "rank,player,games,wins"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, metavar="FILE", help="game database [default: games.sqlite3 in the user's "
                   "data folder]")
    p.add_argument("--objective", choices=OBJECTIVES, default=None,
                   help="what the reviews measure: shut, the chance to shut the box in the turn; score, the turn's "
                   "expected score [default: each game by what its match rewards, as `shutbox review`: shut for "
                   "the long game, score otherwise]")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--csv", type=out_file_flag("--csv", ".csv"), metavar="FILE.csv",
                   help="also write the leaderboard as CSV")
    p.add_argument("--web", metavar="[HOST:]PORT", help="instead, serve the stats and review pages of every saved "
                   "game on PORT (127.0.0.1 unless HOST is given, e.g. 0.0.0.0:8000 for phones and a TV), until "
                   "Ctrl-C")


def _scores_text(s: PlayerStats) -> str:
    return " · ".join(f"{m} {v:.1f}" for m, v in s.mean_score().items()) or "–"


def measured_by(objectives: dict[str, int]) -> str:
    """``the chance to shut the box`` / ``the expected score`` / both, with how many games each."""
    words = {"shut": "the chance to shut the box", "score": "the expected score"}
    if len(objectives) == 1:
        return words[next(iter(objectives))]
    return " and ".join(f"{words[o]} ({n} game{'' if n == 1 else 's'})" for o, n in sorted(objectives.items()))


def objective_key(objectives: dict[str, int], asked: str | None) -> str | None:
    """The JSON's ``objective``: the one every counted game was measured by, or ``mixed``."""
    if asked is not None or not objectives:
        return asked
    return next(iter(objectives)) if len(objectives) == 1 else "mixed"


def table_lines(board: list[PlayerStats], collected: Collected, objectives: dict[str, int]) -> list[str]:
    from shutbox.game.measure import accuracy_text

    n = len(collected.records)
    lines = [f"{n} finished game{'' if n == 1 else 's'}; decisions measured by {measured_by(objectives)}" if n
             else "no finished games"]
    head = (f"{'#':>3}  {'player':<16} {'games':>5} {'wins':>5} {'win %':>6} {'shut':>5} {'accuracy':>8} "
            f"{'inacc.':>6} {'mist.':>5} {'blund.':>6}  mean score by format")
    lines += [head, "-" * len(head)]
    for rank, s in enumerate(board, start=1):
        name = escape(s.name)[:16]
        lines.append(f"{rank:>3}  {name:<16} {s.games:>5} {s.wins:>5} {s.win_rate:>6.1%} {s.boxes_shut:>5} "
                     f"{accuracy_text(s.accuracy):>8} {s.inaccuracies:>6} {s.mistakes:>5} {s.blunders:>6}  "
                     f"{_scores_text(s)}")
    unverified = sum(s.turns_unverified for s in board)
    if unverified:
        verified = sum(s.turns_verified for s in board)
        lines.append(f"turns: {verified} verified, {unverified} unverified (no throw entered; not reviewed): "
                     + " · ".join(f"{s.name} {s.turns_verified}/{s.turns_unverified}" for s in board))
    if collected.unfinished:
        lines.append(f"{collected.unfinished} unfinished game{'s' if collected.unfinished != 1 else ''} not counted")
    for problem in collected.unreadable:
        lines.append(f"not counted: {problem}")
    return lines


def csv_text(board: list[PlayerStats]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "player", "games", "wins", "win_rate", "boxes_shut", "decisions", "mistakes", "mean_loss",
                "mistakes_per_game", *(f"mean_score_{m}" for m in MATCHES), "accuracy", "inaccuracies", "blunders",
                "turns_verified", "turns_unverified"])
    for rank, s in enumerate(board, start=1):
        means = s.mean_score()
        w.writerow([rank, csv_cell(s.name), s.games, s.wins, f"{s.win_rate:.4f}", s.boxes_shut, s.decisions, s.mistakes,
                    "" if s.mean_loss is None else f"{s.mean_loss:.6g}", f"{s.mistakes_per_game:.4f}",
                    *(f"{means[m]:.4f}" if m in means else "" for m in MATCHES),
                    "" if s.accuracy is None else f"{s.accuracy:.2f}", s.inaccuracies, s.blunders,
                    s.turns_verified, s.turns_unverified])
    return buf.getvalue()


def write_csv(path: Path, text: str) -> None:
    """Write the table atomically; refuse a folder or an existing file that is not such a table."""
    from shutbox.base.output import staged_file

    if path.is_dir():
        raise ShutboxError(f"--csv {path}: is a folder; give a file name")
    if path.exists():
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                head = f.read(len(CSV_HEAD))
        except OSError as exc:
            raise ShutboxError(f"--csv {path}: cannot be read to check it ({exc.strerror or exc})") from None
        if head != CSV_HEAD:
            raise ShutboxError(f"--csv {path}: exists and is not a stats table; not overwritten (choose another "
                               "name)")
    try:
        with staged_file(path, "--csv", ".csv") as tmp:
            tmp.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ShutboxError(f"--csv {path}: cannot be written ({exc.strerror or exc})") from None


def run_stats(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.base.progress import progress_bar
    from shutbox.companion.store.database import default_db_path
    from shutbox.companion.store.stats import collect
    from shutbox.game.playerstats import add_up, leaderboard, objectives_of
    from shutbox.game.solvercache import cached_solve

    db = Path(args.db) if args.db is not None else default_db_path()
    if args.web is not None:
        return serve_pages(db, args.web)
    if args.db is None and not db.exists():
        print(f"no games saved yet ({path_text(db)} does not exist)")
        return 0
    with progress_bar("reviewing games not seen before", quiet=args.json) as progress:
        collected = collect(db, args.objective, cached_solve, progress=progress)
    board = leaderboard(add_up(collected.records))
    objectives = objectives_of(collected.records)
    if args.csv is not None:
        write_csv(args.csv, csv_text(board))
    if args.json:
        out: dict[str, Any] = {
            "objective": objective_key(objectives, args.objective), "objectives": objectives,
            "games": len(collected.records), "unfinished": collected.unfinished,
            "unreadable": collected.unreadable, "players": {s.name: s.as_dict() for s in board},
            "leaderboard": [s.name for s in board]}
        print(json.dumps(out))
        return 0
    if not collected.records and not collected.unfinished and not collected.unreadable:
        print(f"no games saved yet in {path_text(db)}")
        return 0
    print("\n".join(table_lines(board, collected, objectives)))
    if args.csv is not None:
        print(f"table written to {path_text(args.csv)}")
    return 0


def serve_pages(db: Path, web: str) -> int:
    """Serve the review and stats pages of ``db`` (read-only) until interrupted; posts are refused."""
    import threading

    from shutbox.base.text import shown
    from shutbox.companion.store.archive import Archive
    from shutbox.companion.web.review import ReviewPages
    from shutbox.companion.web.scoreboard import WebBoard, parse_web

    host, port = parse_web(web)
    if not db.exists():
        raise ShutboxError(f"--db {shown(str(db), 200)}: no such game database (play a game first)")
    with Archive(db):  # a file that is not a game database is one line now, not an error on the page
        pass

    def refuse(item: Any) -> None:
        item.reply.set_result((False, [("refused", "no game is being played here: only the review and stats "
                                                    "pages are served")]))

    with WebBoard(host, port, refuse, pages=ReviewPages(db)) as board:
        base = board.spectator_url.rstrip("/")
        print(f"stats: {base}/stats", flush=True)
        print(f"review of any game: {base}/review (Ctrl-C stops)", flush=True)
        if board.join_code is not None:  # on the network: a QR code of the stats page for the phones
            import io

            import segno

            qr = io.StringIO()
            segno.make(f"{base}/stats", error="m").terminal(out=qr, compact=True)
            print(qr.getvalue().rstrip("\n"), flush=True)
        threading.Event().wait()
    return 0


COMMANDS = (
    Command("stats", "per player across the saved games, with a leaderboard",
            "Per player across the game database (names as recorded): games, wins, boxes shut, the mean score by "
            "match format, and from each game's review (the same measure as `shutbox review`) the accuracy and the "
            "inaccuracies, mistakes and blunders; and a leaderboard (most wins, then win rate, then accuracy). "
            "Only finished games count.",
            run_stats, (), _arguments),
)
