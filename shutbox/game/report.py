"""Words and records for a game in progress or over: events described, the match standing, the result object.

Everything here reads a :class:`~shutbox.game.replay.Game`; nothing changes it.
"""

from __future__ import annotations

from typing import Any

from shutbox.game.events import EndTurnEvent, Event, OpenEvent, PlayersEvent, ShutEvent, ThrowEvent
from shutbox.game.replay import PHASE_WORDS, SHUT, UNCOVER, Game, Round, Turn
from shutbox.game.rules import plus


def tiles_text(tiles: tuple[int, ...] | list[int]) -> str:
    return " ".join(str(t) for t in tiles) if tiles else "none"


def throw_text(dice: list[int] | tuple[int, ...] | None, total: int | None) -> str:
    """``3 + 5 = 8``, ``one die: 4`` or ``8``."""
    if dice is None:
        return str(total)
    if len(dice) == 1:
        return f"one die: {dice[0]}"
    return f"{' + '.join(str(d) for d in dice)} = {sum(dice)}"


def describe(event: Event, game: Game) -> str:
    """One line for an event just applied to ``game`` (the player is the latest turn's)."""
    player = game.turns[-1].player if game.turns else ""
    if isinstance(event, PlayersEvent):
        return f"players: {', '.join(event.names)}"
    if isinstance(event, ThrowEvent):
        return f"{player} threw {throw_text(event.dice, event.total)}"
    if isinstance(event, (ShutEvent, OpenEvent)):
        unentered = " (no throw entered: unverified)" if event.unverified else ""
        verb = "shut" if isinstance(event, ShutEvent) else "uncovered"
        return f"{player} {verb} {plus(event.tiles)}{unentered}"
    if isinstance(event, EndTurnEvent) and event.declared:
        return f"{player} ended the turn (unverified: no throw with no move was entered)"
    if isinstance(event, EndTurnEvent):
        return f"{player} ended the turn (no move possible; unverified: the throw was not entered)"
    return "undone: the last typed entry is withdrawn"


def and_list(names: tuple[str, ...] | list[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    items = list(names)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def counted(n: int, word: str) -> str:
    """``1 round``, ``2 rounds``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def money(value: float, minus: str = "-") -> str:
    """A signed amount, ``+1.50`` or ``-0.75`` (``minus`` may be the typographic ``−``)."""
    return f"{value:+.2f}".replace("-", minus)


def turn_score_text(game: Game, turn: Turn) -> str:
    """``Ann scores 23`` with the running total in the cumulative formats."""
    left = PHASE_WORDS[turn.phase].left
    text = f"{turn.player} scores {turn.score} ({left}: {tiles_text(turn.left)})"
    rules = game.rules
    if rules.cumulative:
        text += f"; total {game.totals[turn.player]} of {rules.limit}"
    return text


def round_result_text(game: Game, r: Round) -> str:
    if r.cut_short:
        text = f"round {r.number}: cut short by the end of the match, no winner"
        return text + ("; every stake is returned" if game.rules.stake else "")
    if r.shut_box_by:
        text = f"round {r.number}: {r.shut_box_by} shut the box and wins the round"
    else:
        low = r.scores.get(r.winners[0]) if r.winners else None
        who = and_list(r.winners)
        text = f"round {r.number}: {who} {'win' if len(r.winners) > 1 else 'wins'} with {low}"
    if game.rules.stake:
        text += "; " + ", ".join(f"{p} {money(v)}" for p, v in r.net.items())
    return text


def winner(game: Game) -> str | None:
    """The single winner of a finished game, or None (not over, or a shared win)."""
    return game.winners[0] if game.finished and len(game.winners) == 1 else None


def game_result_text(game: Game) -> str:
    if not game.finished:
        return "the game is not over"
    rules = game.rules
    who = and_list(game.winners)
    verb = "share the win" if len(game.winners) > 1 else "wins"
    if game.loser:  # the first to reach the limit lost the match
        return f"game over: {game.loser} reached {rules.limit}; {who} {verb}"
    if game.format.uncovering:
        last = game.turns[-1]
        how = "shut the box" if last.shut_box else "uncovered every tile"
        return f"game over: {last.player} {how} and wins"
    return f"game over: {who} {verb}"


def player_score(game: Game, name: str) -> int | None:
    """The score that counts for ``name``: turn score (round), total (drop-out, tournament), latest turn
    score (long game); None for a player who has not had a turn."""
    played = [t for t in game.turns if t.player == name and t.ended]
    if not played:
        return None
    if game.rules.cumulative:
        return game.totals[name]
    return played[-1].score


def player_role(game: Game, name: str) -> str | None:
    """``shuts`` or ``uncovers`` where the format gives the players roles (the long game); else None."""
    if not game.format.uncovering:
        return None
    return PHASE_WORDS[SHUT if name == game.players[0] else UNCOVER].does


def standing_lines(game: Game) -> list[str]:
    """The scores and the match standing, a few short lines."""
    if not game.players:
        return []
    rules, fmt = game.rules, game.format
    lines = []
    if fmt.uncovering:
        shutter, uncoverer = game.players
        last = {p: player_score(game, p) for p in game.players}
        lines.append(f"{shutter} shuts, {uncoverer} uncovers; left undone last turn: "
                     f"{shutter} {_dash(last[shutter])} · {uncoverer} {_dash(last[uncoverer])}")
    elif not fmt.limit_applies:
        scores = " · ".join(f"{p} {_dash(player_score(game, p))}" for p in game.players)
        lines.append(f"scores: {scores} (lowest wins)")
    else:
        parts = []
        for p in game.players:
            mark = " out" if p in game.eliminated else (" lost" if p == game.loser else "")
            parts.append(f"{p} {game.totals[p]}{mark}")
        rnd = game.current_round.number if game.current_round else 1
        lines.append(f"totals (limit {rules.limit}, {fmt.limit_rule}): {' · '.join(parts)} — round {rnd}")
    if rules.stake:
        r = game.current_round
        pool = f"; pool {r.pool:.2f}" if r and not r.finished else ""
        lines.append(f"money: {' · '.join(f'{p} {money(v)}' for p, v in game.balance.items())}{pool}")
    if game.finished:
        lines.append(game_result_text(game))
    return lines


def _dash(value: int | None) -> str:
    return "–" if value is None else str(value)


def turn_record(turn: Turn) -> dict[str, Any]:
    return {
        "number": turn.number,
        "round": turn.round,
        "player": turn.player,
        "phase": turn.phase,
        "start_open": list(turn.start_open),
        "throws": [{"dice": list(t.dice) if t.dice is not None else None, "total": t.total,
                    "tiles": list(t.tiles) if t.tiles is not None else None, "dead": t.dead, "extra": t.extra,
                    "unverified": t.unverified}
                   for t in turn.throws],
        "open_tiles": list(turn.open_tiles),
        "ended": turn.ended,
        "score": turn.score,
        "shut_box": turn.shut_box,
        "uncovered_box": turn.uncovered_box,
        "unverified": turn.unverified,
    }


def result(game: Game) -> dict[str, Any]:
    """The game as one JSON object: ``players`` (name, score, shut_box), ``winner`` and ``turns``."""
    return {
        "match": game.rules.match,
        "finished": game.finished,
        "players": [{"name": p, "score": player_score(game, p),
                     "shut_box": any(t.shut_box for t in game.turns if t.player == p)} for p in game.players],
        "winner": winner(game),
        "winners": list(game.winners),
        "turns": [turn_record(t) for t in game.turns],
        "rounds": [{"number": r.number, "winners": list(r.winners), "shut_box_by": r.shut_box_by,
                    "cut_short": r.cut_short, "scores": dict(r.scores), "net": r.net}
                   for r in game.rounds if r.finished],
        "balance": dict(game.balance),
    }
