"""``shutbox review``: every decision of a recorded game measured against the exact solver.

Beyond the exact solver's reach a review values every legal move by simulated turns, which for a large
set takes minutes a decision: the command first times a few simulated turns, says how long the review
would take, and offers the Monte Carlo estimate (``--estimate``: moves ranked by rollouts, seconds a
decision) — asked on a terminal, taken when not (``--full`` waits for the careful review). A review of
such a set shows a progress bar on a terminal.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import path_text
from shutbox.cli.commandspec import Command, out_file_flag
from shutbox.game.policy import OBJECTIVES
from shutbox.game.rules import rules_text
from shutbox.kit.model import Kit

if TYPE_CHECKING:
    from shutbox.game.replay import Game
    from shutbox.game.review import Review

DB_HELP = "game database for a game number [default: games.sqlite3 in the user's data folder]"
#: A full review predicted to take longer than this per decision offers the estimate instead.
SLOW_DECISION_S = 5.0
#: Simulated turns timed to predict a review's time.
_TIMED_TURNS = 60


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", metavar="GAME.json|ID", help="a game file, or the number of a saved game (see `shutbox "
                   "history`)")
    p.add_argument("--db", type=Path, metavar="FILE", help=DB_HELP)
    p.add_argument("--objective", choices=OBJECTIVES, default=None,
                   help="shut: the chance to shut the box in the turn; score: the turn's expected score [default: "
                   "what the match rewards: shut for the long game, score otherwise]")
    p.add_argument("--json", action="store_true", help="print one JSON object (decisions, players)")
    p.add_argument("--pdf", type=out_file_flag("--pdf", ".pdf"), metavar="FILE.pdf",
                   help="also write a report: per player a chart of the measure "
                   "the review grades by and the list of mistakes and blunders")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--estimate", action="store_true", help="beyond the exact solver (more than 18 tiles): rank "
                     "moves by Monte Carlo rollouts, seconds a decision")
    how.add_argument("--full", action="store_true", help="beyond the exact solver: value every legal move by "
                     "simulated turns, however long it takes (minutes a decision for large sets)")


def load_reviewed_game(spec: str, db: Path | None) -> tuple[Game, str]:
    """The game named by ``GAME.json`` or a saved game's number, and how to name it."""
    if re.fullmatch(r"[+-]?\d+", spec.strip()) and not Path(spec).exists():
        from shutbox.base.bounded import MAX_ID, whole_within
        from shutbox.companion.store.archive import Archive
        from shutbox.companion.store.database import default_db_path

        game_id = whole_within(spec, "game", 1, MAX_ID, " (see `shutbox history`)")
        with Archive(db or default_db_path()) as archive:
            raw = archive.game(game_id)
        return raw.replay(), f"game {game_id}"
    if db is not None:
        raise ShutboxError(f"--db {db}: only for a saved game's number, not with the game file {spec!r}")
    from shutbox.game.gamefile import load_game

    return load_game(Path(spec)), Path(spec).name


def kept_reading_lines(spec: str, db: Path | None) -> list[str]:
    """For a saved game: its throws read from pictures (the camera's, a phone's), to look at a disputed turn."""
    if not re.fullmatch(r"[+-]?\d+", spec.strip()) or Path(spec).exists():
        return []
    from shutbox.cli.commands.history import reading_lines
    from shutbox.companion.store.database import default_db_path, open_read_only

    with open_read_only(db or default_db_path()) as store:
        readings = store.readings(int(spec))
    lines = reading_lines([r for r in readings if r.image])  # smart dice's throws have no picture to look at
    return ["throws read from pictures (`shutbox history show ID --readings DIR` writes them):", *
            (f"  {line}" for line in lines)] if lines else []


def review_of(game: Game, objective: str | None, estimate: bool = False, quiet: bool = True) -> Review:
    """The review with the solver's tables cached on disk; a size the solver refuses is one error line.

    Unless ``quiet``, a review beyond the exact solver shows a progress bar on a terminal.
    """
    from shutbox.base.progress import progress_bar
    from shutbox.game import solver
    from shutbox.game.review import review_game
    from shutbox.game.solvercache import cached_solve

    if not game.players:
        raise ShutboxError("the game has no players yet: nothing to review")
    try:
        with progress_bar("reviewing (Monte Carlo)" if estimate else "reviewing",
                          quiet=quiet or solver.exact(game.rules)) as progress:
            return review_game(game, cached_solve, objective, estimate=estimate, progress=progress)
    except ValueError as exc:
        raise ShutboxError(f"cannot review this game: {exc}") from None


def seconds_per_turn(game: Game) -> float:
    """CPU seconds one simulated turn from the game's full board takes here (timed on a few turns)."""
    import random

    from shutbox.game import estimate

    rules = game.rules
    rng = random.Random(estimate.SEED)
    start = time.process_time()
    for _ in range(_TIMED_TURNS):
        estimate.play_out(rules, "optimal", rules.tile_numbers, rng)
    return (time.process_time() - start) / _TIMED_TURNS


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def slow_review_offer(game: Game) -> str | None:
    """The offer of the estimate when a full review would be slow (None: it would not, or the solver is exact)."""
    from shutbox.game import estimate, solver
    from shutbox.game.review import full_work

    if solver.exact(game.rules):
        return None
    work = full_work(game)
    if not work:
        return None
    turn = seconds_per_turn(game)
    per_decision = turn * estimate.SAMPLES * sum(work) / len(work)
    if per_decision <= SLOW_DECISION_S:
        return None
    rollouts = sum(estimate.ranking_turns(n) for n in work) / len(work)
    return (f"{game.rules.tiles} tiles is beyond the exact solver: valuing every move by simulated turns takes about "
            f"{_duration(per_decision)} a decision here ({len(work)} decisions, about "
            f"{_duration(per_decision * len(work))} in all); the Monte Carlo estimate (moves ranked by rollouts) "
            f"takes about {_duration(max(1.0, turn * rollouts))} a decision")


def choose_estimate(game: Game, args: argparse.Namespace) -> bool:
    """Review by the estimate? ``--estimate``/``--full`` decide; else a slow full review is offered the estimate:
    asked on a terminal, taken otherwise (said on stderr)."""
    if args.estimate or args.full:
        return bool(args.estimate)
    offer = slow_review_offer(game)
    if offer is None:
        return False
    interactive = not args.json and sys.stdin.isatty() and sys.stderr.isatty()
    if not interactive:
        print(f"shutbox review: {offer}; using the estimate (--full waits for the full review)", file=sys.stderr)
        return True
    print(f"shutbox review: {offer}.", file=sys.stderr)
    try:
        answer = input("Use the Monte Carlo estimate? [Y/n] ")
    except EOFError:
        answer = ""
    return answer.strip().lower() not in ("n", "no")


def review_lines(game: Game, review: Review, name: str) -> list[str]:
    """The readable review: header, each turn's decisions, the players' summaries."""
    from shutbox.game.replay import PHASE_WORDS
    from shutbox.game.report import and_list
    from shutbox.game.review import decision_line, objective_text, player_line

    lines = [f"review of {name}: {and_list(game.players)} — {rules_text(game.rules)}",
             f"measured by {objective_text(review.objective)}; {review.threshold}"]
    lines += [f"note: {n}" for n in review.notes]
    by_turn: dict[int, list[Any]] = {}
    for d in review.decisions:
        by_turn.setdefault(d.turn, []).append(d)
    for trace in review.traces:
        doing = PHASE_WORDS[trace.phase].doing
        lines.append(f"turn {trace.turn} (round {trace.round}), {trace.player} {doing} — {trace.result}")
        mine = by_turn.get(trace.turn, [])
        if not mine:
            lines.append("    no choices (every move was forced)")
        for d in mine:
            text = decision_line(d, review.objective).split(": ", 1)[1]
            lines.append(("  * " if d.mistake else "    ") + text)
    lines.append("summary:")
    lines += [f"  {player_line(p, review.objective)}" for p in review.players.values()]
    return lines


def run_review(args: argparse.Namespace, kit: Kit | None) -> int:
    from shutbox.game.gamefile import settings_of

    game, name = load_reviewed_game(args.game, args.db)
    review = review_of(game, args.objective, choose_estimate(game, args), quiet=args.json)
    if args.pdf is not None:
        from shutbox.print.review_report import write_review_pdf

        write_review_pdf(args.pdf, game, review, name)
    if args.json:
        out = {"game": {"name": name, "players": list(game.players), "settings": settings_of(game.rules),
                        "finished": game.finished, "winners": list(game.winners)}, **review.as_dict()}
        print(json.dumps(out))
    else:
        print("\n".join(review_lines(game, review, name) + kept_reading_lines(args.game, args.db)))
        if args.pdf is not None:
            print(f"report written to {path_text(args.pdf)}")
    return 0


COMMANDS = (
    Command("review", "every decision of a game against the exact solver",
            "Replay a recorded game (a game file or a saved game's number) and measure every decision — the tiles "
            "moved for each throw and, where the rule allowed it, one die or two — against the exact solver under "
            "the game's own settings: the value of the move played, of the best move, and the loss. Mistakes are "
            "marked; each player gets a summary.", run_review, (), _arguments),
)
