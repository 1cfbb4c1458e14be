"""Wording the messages of a live game: what was recorded, how a turn, a round and the game ended, the help.

Every function here reads the game and returns ``(kind, text)`` messages; nothing changes the game. The
kinds are those a view shows: recorded, turn, round, win, flag, refused, hint, info, link.
"""

from __future__ import annotations

from shutbox.companion.live.recording import Change
from shutbox.game.events import UndoEvent
from shutbox.game.replay import PHASE_WORDS, Game, Turn
from shutbox.game.report import describe, game_result_text, round_result_text, turn_score_text
from shutbox.game.rules import plus

Note = tuple[str, str]

HELP = ("type a throw: '3 5' (the dice), '4' (one die) or '= 27' (a drawn total); "
        "or end (or press the box's button), undo, hint, quit")
HELP_OPTIONAL = ("move the tiles on the box, then press its button (or type end) to end the turn; a throw typed "
                 "first ('3 5', '4', '= 27') is checked against the tiles; undo, hint, quit")
HELP_BOXLESS = ("type a throw: '3 5' (the dice), '4' (one die) or '= 27' (a drawn total), "
                "then the tiles: 'shut 3 5'; or end, undo, hint, quit")
HELP_BOXLESS_OPTIONAL = ("type the tiles: 'shut 3 5' (a throw typed first, '3 5', is checked against them), "
                         "then end to end the turn; undo, hint, quit")


def help_text(*, boxless: bool, optional: bool) -> str:
    """What may be entered, for this kind of table."""
    if boxless:
        return HELP_BOXLESS_OPTIONAL if optional else HELP_BOXLESS
    return HELP_OPTIONAL if optional else HELP


def game_started(game: Game, game_id: int | None, optional: bool, boxless: bool = False) -> Note:
    rules = game.rules
    ender = "end" if boxless else "the box's button"
    throws = f"; throws optional: {ender} ends a turn" if optional else ""
    return "info", f"game {game_id}: {', '.join(game.players)} — {rules.match}, {rules.tiles} tiles{throws}"


def game_resumed(game: Game, game_id: int | None) -> Note:
    return "info", (f"resuming game {game_id}: {', '.join(game.players)} — {game.rules.match}, "
                    f"{len(game.to_events())} events replayed")


def tiles_held(game: Game, tiles: tuple[int, ...]) -> Note:
    """After a restart: the tiles that were held on the box in the turn (throws optional)."""
    words = PHASE_WORDS[game.phase]
    return "info", (f"{game.current_player}'s turn goes on: {words.done} {plus(tiles)} with no throw entered "
                    "before the restart (unverified; recorded when the turn ends)")


def recorded(change: Change, game: Game) -> list[Note]:
    """The line for the event, then how turns, rounds and the game ended with it."""
    notes: list[Note] = [("recorded", describe(change.event, game))]
    for turn in change.turns:
        notes.extend(turn_ended(game, turn))
    for r in change.rounds:  # a round's winners matter for the stakes
        if game.rules.stake and game.format.pool_per_round:
            notes.append(("round", round_result_text(game, r)))
    if change.finished and not isinstance(change.event, UndoEvent):
        notes.append(("win", game_result_text(game)))
    return notes


def turn_ended(game: Game, turn: Turn) -> list[Note]:
    """What a turn that was open did: a double thrown again, or how it ended."""
    last = turn.throws[-1] if turn.throws else None
    if not turn.ended:
        if last is not None and last.extra:
            return [("turn", f"a double with no move: {turn.player} throws again")]
        return []
    notes: list[Note] = []
    if turn.shut_box:
        notes.append(("win", f"{turn.player} SHUT THE BOX — an instant win!"))
    elif turn.uncovered_box:
        notes.append(("win", f"{turn.player} uncovered every tile — an instant win!"))
    elif last is not None and last.unverified and last.tiles is None:
        notes.append(("turn", f"turn ended (unverified): {turn_score_text(game, turn)}"))
    else:
        why = f"no move for {last.total}" if last is not None and last.total is not None else "no move"
        notes.append(("turn", f"{why}: {turn_score_text(game, turn)}"))
    if turn.player in game.eliminated:
        notes.append(("turn", f"{turn.player} reached {game.rules.limit} and drops out"))
    return notes


def confirm_end(source: str) -> str:
    """Asked after a press that would end a turn in which nothing was shut."""
    again = " (or type end again)" if source == "typed" else ""
    return f"press again to end with nothing shut{again}"
