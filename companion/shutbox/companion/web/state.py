"""The table as one JSON object: what the web scoreboard shows and ``GET /api/state`` returns.

Contract (tests and other tools rely on it): ``players`` (``name``, ``score``, plus ``total``, ``out``,
``lost``, ``role``, ``balance`` as the format needs), ``open`` (tiles open on the box), ``turn`` (a name or
None), ``throw`` (``dice``, ``total`` or None), ``over``, ``winner`` and ``messages`` (``kind``, ``text``);
``throws`` (``"required"`` or ``"optional"``), ``verified`` (the current turn has a throw entered),
``legal`` (the moves the pending throw allows, each a list of tiles, or None) and ``can_end`` (a press of
End would be taken now: the page shows its End button only then); also the rules, the limit and the pool,
the referee's verdict, the hint, round results and the review.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from shutbox.game.formats import match_format
from shutbox.game.replay import PHASE_WORDS
from shutbox.game.report import game_result_text, player_role, player_score, round_result_text, winner
from shutbox.game.rules import tiles_out

if TYPE_CHECKING:
    from shutbox.companion.live.livestate import LiveState

STATE_VERSION = 1


def table_state(session: LiveState, messages: Iterable[tuple[int, str, str]] = ()) -> dict[str, Any]:
    """The state of ``session`` with the latest ``messages`` (``(number, kind, text)``)."""
    rules = session.rules
    game = session.game
    verdict = session.verdict
    box = session.box
    tiles = list(rules.tile_numbers)
    fmt = match_format(rules)
    state: dict[str, Any] = {
        "version": STATE_VERSION,
        "game_id": session.game_id,
        "rules": {"tiles": rules.tiles, "dice": rules.dice, "match": rules.match, "scoring": rules.scoring,
                  "limit": rules.limit, "stake": rules.stake},
        "format": {"uncovering": fmt.uncovering, "limit_applies": fmt.limit_applies},
        "tiles": tiles,
        "limit": rules.limit if rules.cumulative else None,
        "box": {"boxless": session.boxless, "connected": session.connected, "seen": box is not None},
        "open": list(tiles_out(rules, box)) if box is not None else None,
        "players": [],
        "turn": None,
        "phase": None,
        "round": None,
        "throw": None,
        "verdict": None,
        "instruction": None,
        "hint": None,
        "pool": None,
        "rounds": [],
        "over": False,
        "winner": None,
        "winners": [],
        "result": None,
        "review": session.review,
        "help": session.help,
        "throws": session.throws,
        "verified": session.verified,
        "legal": session.legal,
        "can_end": session.end_accepted,
        "messages": [{"n": n, "kind": kind, "text": text} for n, kind, text in messages],
    }
    if verdict is not None:
        state["verdict"] = {"kind": verdict.kind, "message": verdict.message, "tiles": list(verdict.tiles)}
        state["instruction"] = verdict.message
    elif game is not None and box is None:
        state["instruction"] = "waiting for the box"
    if game is None or not game.players:
        return state
    state["board_open"] = list(game.board)
    state["players"] = [_player(session, name) for name in game.players]
    state["turn"] = game.current_player
    state["phase"] = PHASE_WORDS[game.phase].verb if not game.finished else None
    current = game.current_round
    state["round"] = current.number if current is not None else None
    if game.pending is not None:
        dice = list(game.pending.dice) if game.pending.dice else None
        state["throw"] = {"dice": dice, "total": game.pending.total}
        state["hint"] = session.hint
    if rules.stake and current is not None and not current.finished:
        state["pool"] = current.pool
    state["rounds"] = [{"number": r.number, "winners": list(r.winners), "text": round_result_text(game, r)}
                       for r in game.rounds if r.finished]
    state["over"] = game.finished
    state["winner"] = winner(game)
    state["winners"] = list(game.winners)
    if game.finished:
        state["result"] = game_result_text(game)
    return state


def _player(session: LiveState, name: str) -> dict[str, Any]:
    game = session.game
    assert game is not None
    rules = game.rules
    turns = [t for t in game.turns if t.player == name and t.ended]
    record: dict[str, Any] = {
        "name": name,
        "score": player_score(game, name),
        "last": turns[-1].score if turns else None,
        "total": game.totals.get(name) if rules.cumulative else None,
        "out": name in game.eliminated,
        "lost": name == game.loser,
        "shut_box": any(t.shut_box for t in turns),
        "playing": name == game.current_player,
        "role": player_role(game, name),
        "balance": game.balance.get(name) if rules.stake else None,
    }
    return record
