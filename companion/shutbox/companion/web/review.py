"""Review and statistics on the web scoreboard: a step-through of a game's decisions and a leaderboard.

:class:`ReviewPages` adds read-only routes to :class:`~shutbox.companion.web.scoreboard.WebBoard`:

- ``GET /review`` (``?game=ID``; without it the game at the table) and ``GET /stats``: the page
  (``review.html``), readable on a phone and, with ``?tv=1``, on a TV;
- ``GET /api/games``: the saved games (``id``, ``players``, ``rules``, ``finished``, ``result``) and
  ``current``, the game at the table;
- ``GET /api/review/ID``: the game's review by the one measure of play (:mod:`shutbox.game.measure`):
  ``objective``, ``grades``, ``notes``, ``players`` (name, accuracy, the counts) and ``steps``, one
  per decision: the board before it (``open``), the throw, the move made and the best, the value lost
  and its grade — the same numbers as ``shutbox review ID --json``;
- ``GET /api/stats``: the players across the saved games and the leaderboard, as ``shutbox stats --json``.

Games come from the database file, opened read-only on each request (the scorekeeper keeps writing its
own); a game kept in memory only (``sim`` without ``--db``) is read from the session at the table.
Reviews beyond the exact solver take minutes, so the page names the command that does them instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from shutbox.companion.live.livestate import LiveState
    from shutbox.game.replay import Game
    from shutbox.game.review import Decision, Review

#: Reviews kept in memory, by game and record length.
REVIEWS_KEPT = 16


class Board(Protocol):
    """What the pages need of the scoreboard (:class:`~shutbox.companion.web.scoreboard.WebBoard`): the state of the
    table
    (its game and game id)."""

    @property
    def session(self) -> LiveState | None: ...


def step(decision: Decision, objective: str) -> dict[str, Any]:
    """One decision for the step-through: the review's numbers and the words the page shows."""
    from shutbox.game.review import choice_text, decision_line, loss_text, value_text

    out = decision.as_dict()
    out.update(played_text=choice_text(decision, "played"), best_text=choice_text(decision, "best"),
               value_played_text=value_text(objective, decision.value_played),
               value_best_text=value_text(objective, decision.value_best),
               loss_text=loss_text(objective, decision.loss) if decision.loss else "",
               line=decision_line(decision, objective))
    return out


def review_document(game_id: int | None, game: Game, review: Review) -> dict[str, Any]:
    """The page's review of a game: its header, the players' accuracy and counts, one step per decision."""
    from shutbox.game.gamefile import settings_of
    from shutbox.game.measure import accuracy_text
    from shutbox.game.report import game_result_text
    from shutbox.game.review import loss_text, objective_text, player_line

    rules = game.rules
    return {
        "game": {"id": game_id, "players": list(game.players), "tiles": rules.tiles, "settings": settings_of(rules),
                 "finished": game.finished, "result": game_result_text(game)},
        "objective": review.objective,
        "measured_by": objective_text(review.objective),
        "exact": review.exact,
        "grades": review.threshold,
        "notes": list(review.notes),
        "players": [{"name": p.name, **p.as_dict(), "accuracy_text": accuracy_text(p.accuracy),
                     "loss_text": loss_text(review.objective, p.loss) if p.loss else "nothing lost",
                     "line": player_line(p, review.objective)} for p in review.players.values()],
        "steps": [step(d, review.objective) for d in review.decisions],
    }


class ReviewPages:
    """The review and stats routes over one game database (``None``: only the game at the table)."""

    def __init__(self, db: Path | None) -> None:
        self.db = Path(db) if db is not None else None
        self._reviews: OrderedDict[tuple[int | None, int], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.board: Board | None = None

    def routes(self, board: Board) -> list[Any]:
        from starlette.routing import Route

        self.board = board
        return [Route("/review", self._page), Route("/stats", self._page), Route("/api/games", self._games),
                Route("/api/review/{game_id}", self._review), Route("/api/stats", self._stats)]

    # -- the game at the table -------------------------------------------------------------------

    def _table(self) -> tuple[int | None, Game | None]:
        """The table's game id and a copy of its game (replayed from its events, so the session may go on)."""
        session = self.board.session if self.board is not None else None
        if session is None or session.game is None:
            return None, None
        from shutbox.game.replay import Game

        game = session.game
        return session.game_id, Game.from_events(game.rules, list(game.to_events()))

    def _from_file(self) -> bool:
        """Are the games read from a database file (even one that has vanished: that is said, not hidden)?"""
        return self.db is not None and str(self.db) != ":memory:"

    # -- the answers (run on a worker thread: they read SQLite and may solve) --------------------

    def games(self) -> dict[str, Any]:
        current, game = self._table()
        rows: list[dict[str, Any]] = []
        if self._from_file():
            assert self.db is not None
            rows = _saved_games(self.db)
        elif game is not None:
            from shutbox.game.report import game_result_text

            rows = [{"id": current, "players": list(game.players), "rules": _rules_text(game.rules),
                     "finished": game.finished, "result": game_result_text(game)}]
        return {"games": rows, "current": current}

    def review(self, game_id: int) -> dict[str, Any]:
        """The review document of a game; ShutboxError (a 404 or 409 on the page) when there is none."""
        if self._from_file():
            from shutbox.companion.store.archive import Archive

            assert self.db is not None
            with Archive(self.db) as archive:
                game = archive.game(game_id).replay()
        else:
            current, game = self._table()
            if game is None or game_id != current:
                raise LookupError(f"game {game_id}: not at this table (kept in memory, only its own game is here)")
        key = (game_id, len(game.to_events()))
        with self._lock:
            if key in self._reviews:
                self._reviews.move_to_end(key)
                return self._reviews[key]
        document = self._reviewed(game_id, game)
        with self._lock:
            self._reviews[key] = document
            while len(self._reviews) > REVIEWS_KEPT:
                self._reviews.popitem(last=False)
        return document

    @staticmethod
    def _reviewed(game_id: int, game: Game) -> dict[str, Any]:
        from shutbox.game import solver
        from shutbox.game.review import review_game
        from shutbox.game.solvercache import cached_solve

        if not game.players:
            raise ValueError(f"game {game_id} has no players yet: nothing to review")
        if not solver.exact(game.rules):
            raise ValueError(f"game {game_id} has {game.rules.tiles} tiles, beyond the exact solver: its review takes "
                             f"minutes; run `shutbox review {game_id}` on the computer")
        return review_document(game_id, game, review_game(game, cached_solve))

    def stats(self) -> dict[str, Any]:
        from shutbox.game.playerstats import add_up, game_record, leaderboard, objectives_of

        records: list[dict[str, Any]] = []
        unfinished = 0
        unreadable: list[str] = []
        if self._from_file():
            from shutbox.companion.store.stats import collect
            from shutbox.game.solvercache import cached_solve

            assert self.db is not None
            collected = collect(self.db, None, cached_solve)
            records, unfinished, unreadable = collected.records, collected.unfinished, collected.unreadable
        else:
            _, game = self._table()
            if game is not None and game.finished:
                from shutbox.game.review import review_game
                from shutbox.game.solvercache import cached_solve

                records = [game_record(game, review_game(game, cached_solve))]
            elif game is not None:
                unfinished = 1
        board = leaderboard(add_up(records))
        objectives = objectives_of(records)
        objective = next(iter(objectives)) if len(objectives) == 1 else ("mixed" if objectives else None)
        return {"objective": objective, "objectives": objectives, "games": len(records), "unfinished": unfinished,
                "unreadable": unreadable, "kept": "database" if self._from_file() else "memory",
                "players": [{"name": s.name, **s.as_dict()} for s in board],
                "leaderboard": [s.name for s in board]}

    # -- the routes ----------------------------------------------------------------------------------

    async def _page(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse

        page = resources.files("shutbox.companion.web").joinpath("review.html").read_text(encoding="utf-8")
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    async def _games(self, request: Request) -> Response:
        return await _answer(self._public, self.games)

    async def _review(self, request: Request) -> Response:
        from shutbox.base.bounded import MAX_ID, whole_within

        text = str(request.path_params.get("game_id", ""))
        try:
            game_id = whole_within(text, "game", 1, MAX_ID)
        except ShutboxError as exc:
            from starlette.responses import JSONResponse

            return JSONResponse({"error": f"{exc}; give a game's number"}, status_code=400)
        return await _answer(self._public, self.review, game_id)

    async def _stats(self, request: Request) -> Response:
        return await _answer(self._public, self.stats)

    def _public(self, text: str) -> str:
        """A reason as the page may show it to anyone: the database's place on the server is not named."""
        if self.db is None:
            return text
        for name in {str(self.db.resolve()), str(self.db), shown(str(self.db), 200),
                     shown(str(self.db.resolve()), 200)}:
            text = text.replace(f"--db {name}", "the game database").replace(f" in {name}", " here")
            text = text.replace(name, "the game database")
        return text


async def _answer(public: Any, work: Any, *args: Any) -> Response:
    """Run ``work`` on a worker thread; its result as JSON, or the reason it has none: 404 for a game that is not
    there, 409 for one that cannot be reviewed here, 503 for a database that cannot be read (damaged, newer,
    gone), each reason without the database's path (``public``)."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse

    headers = {"Cache-Control": "no-store"}
    try:
        return JSONResponse(await run_in_threadpool(work, *args), headers=headers)
    except LookupError as exc:
        return JSONResponse({"error": public(str(exc))}, status_code=404, headers=headers)
    except ShutboxError as exc:
        return JSONResponse({"error": public(str(exc))}, status_code=503, headers=headers)
    except ValueError as exc:
        return JSONResponse({"error": public(str(exc))}, status_code=409, headers=headers)


def _rules_text(rules: Any) -> str:
    return f"{rules.match}, {rules.tiles} tiles"


def _saved_games(db: Path) -> list[dict[str, Any]]:
    """The saved games for the page's list: number, players, rules and result (an unreadable one says so)."""
    from shutbox.companion.store.database import open_read_only
    from shutbox.game.gamefile import rules_from_settings
    from shutbox.game.replay import Game
    from shutbox.game.report import game_result_text
    from shutbox.game.rules import IllegalMove

    out = []
    with open_read_only(db) as store:
        for row in store.games():
            entry: dict[str, Any] = {"id": row.id, "players": list(row.players), "finished": row.finished is not None}
            try:
                rules = rules_from_settings(row.settings, f"game {row.id}")
                game = Game.from_events(rules, store.events(row.id))
                entry.update(rules=_rules_text(rules), finished=game.finished,
                             result=game_result_text(game).removeprefix("game over: ") if game.finished
                             else "unfinished")
            except (ShutboxError, IllegalMove) as exc:
                entry.update(rules="", result=f"unreadable: {exc}")
            out.append(entry)
    return out
