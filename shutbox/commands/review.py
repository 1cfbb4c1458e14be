"""``shutbox review``: every decision of a recorded game measured against the exact solver."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shutbox.commandspec import Command, out_file_flag
from shutbox.errors import ShutboxError
from shutbox.game.policy import OBJECTIVES
from shutbox.model import BOX_DICE, Kit
from shutbox.usertext import path_text

if TYPE_CHECKING:
    from shutbox.game.replay import Game
    from shutbox.game.review import Review

DB_HELP = "game database for a game number [default: games.sqlite3 in the user's data folder]"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", metavar="GAME.json|ID", help="a game file, or the number of a saved game (see `shutbox "
                   "history`)")
    p.add_argument("--db", type=Path, metavar="FILE", help=DB_HELP)
    p.add_argument("--objective", choices=OBJECTIVES, default=None,
                   help="shut: the chance to shut the box in the turn; score: the turn's expected score [default: "
                   "what the match rewards: shut for the long game, score otherwise]")
    p.add_argument("--json", action="store_true", help="print one JSON object (decisions, players)")
    p.add_argument("--pdf", type=out_file_flag("--pdf", ".pdf"), metavar="FILE.pdf",
                   help="also write a report: per player a chart of the chance "
                   "to shut the box and the list of mistakes")


def load_reviewed_game(spec: str, db: Path | None) -> tuple[Game, str]:
    """The game named by ``GAME.json`` or a saved game's number, and how to name it."""
    if re.fullmatch(r"[+-]?\d+", spec.strip()) and not Path(spec).exists():
        from shutbox.bounded import MAX_ID, whole_within
        from shutbox.companion.archive import Archive
        from shutbox.companion.store import default_db_path

        game_id = whole_within(spec, "game", 1, MAX_ID, " (see `shutbox history`)")
        with Archive(db or default_db_path()) as archive:
            raw = archive.game(game_id)
        return raw.replay(), f"game {game_id}"
    if db is not None:
        raise ShutboxError(f"--db {db}: only for a saved game's number, not with the game file {spec!r}")
    from shutbox.gamefiles import load_game

    return load_game(Path(spec)), Path(spec).name


def review_of(game: Game, objective: str | None) -> Review:
    """The review with the solver's tables cached on disk; a size the solver refuses is one error line."""
    from shutbox.game.review import review_game
    from shutbox.solvercache import cached_solve

    if not game.players:
        raise ShutboxError("the game has no players yet: nothing to review")
    try:
        return review_game(game, cached_solve, objective)
    except ValueError as exc:
        raise ShutboxError(f"cannot review this game: {exc}") from None


def rules_text(game: Game) -> str:
    r = game.rules
    forced = ", forced" if r.one_die_forced and r.one_die != "never" else ""
    most = f", at most {r.max_tiles_per_throw} tiles a throw" if r.max_tiles_per_throw else ""
    limit = f" to {r.limit}" if r.limit else ""
    dice = f", {r.dice} dice" if r.dice != BOX_DICE else ""
    return f"{r.match}{limit}, {r.tiles} tiles{dice}, one die {r.one_die}{forced}{most}, {r.scoring} scoring"


def review_lines(game: Game, review: Review, name: str) -> list[str]:
    """The readable review: header, each turn's decisions, the players' summaries."""
    from shutbox.game.replay import PHASE_WORDS
    from shutbox.game.report import and_list
    from shutbox.game.review import decision_line, objective_text, player_line

    lines = [f"review of {name}: {and_list(game.players)} — {rules_text(game)}",
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
    review = review_of(game, args.objective)
    if args.pdf is not None:
        from shutbox.print.review_report import write_review_pdf

        write_review_pdf(args.pdf, game, review, name)
    if args.json:
        out = {"game": {"name": name, "players": list(game.players), "settings": settings_of(game.rules),
                        "finished": game.finished, "winners": list(game.winners)}, **review.as_dict()}
        print(json.dumps(out))
    else:
        print("\n".join(review_lines(game, review, name)))
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
