"""The referee (shutbox.companion.live.referee): each command ruled on once — events to record, a refusal with its
reason, or a question — under throws ``required`` (typed throws, as before) and ``optional`` (the box keeps
score by itself). Every expectation follows from docs/RULES.md by hand."""

from __future__ import annotations

import pytest

from shutbox.companion.live.command import BoxSeen, End, Move, Throw, Undo
from shutbox.companion.live.moves import expected_shut
from shutbox.companion.live.referee import CONFIRM_S, Referee
from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules

ROUND = Rules()
LONG = Rules(match="long-game")


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def table(throws: str, *events: ev.Event, shut: set[int] | frozenset[int] = frozenset(), rules: Rules = ROUND,
          boxless: bool = False) -> tuple[Referee, Game, Clock]:
    clock = Clock()
    referee = Referee(throws=throws, boxless=boxless, clock=clock)
    game = Game.from_events(rules, [ev.players(["Ann", "Bob"]), *events])
    referee.seen(expected_shut(game))
    referee.judge(game)  # the box set up as the game's board
    referee.seen(frozenset(shut))
    referee.judge(game)
    return referee, game, clock


def kind(referee: Referee, game: Game) -> str | None:
    verdict = referee.judge(game)
    return verdict.kind if verdict is not None else None


def test_required_end_is_refused_with_the_reason_and_nothing_moved_is_flagged():
    referee, game, _ = table("required", ev.throw(6, 6), ev.shut(9, 3), shut={9, 3})
    ruling = referee.rule(End("button"), game)
    assert ruling.refused == ("the turn is not over: throw the dice; a throw that can shut no tiles ends the turn "
                              "by itself") and not ruling.events
    referee.seen(frozenset({9, 3, 5}))
    verdict = referee.judge(game)
    assert verdict is not None and verdict.kind == "flag"  # a tile with no throw
    assert not referee.end_accepted(game)


def test_optional_tiles_moved_with_no_throw_are_held_and_the_end_records_them():
    referee, game, _ = table("optional", shut={9, 3})
    verdict = referee.verdict
    assert verdict is not None and verdict.kind == "unverified" and verdict.tiles == (3, 9)
    assert referee.end_accepted(game)
    ruling = referee.rule(End("button"), game)
    assert ruling.events == (ev.shut(3, 9, unverified=True), ev.end_turn(declared=True))
    for event in ruling.events:
        game.apply(event)
    assert game.turns[0].ended and game.turns[0].unverified and game.turns[0].score == 33


def test_optional_a_press_with_nothing_shut_asks_and_a_second_within_the_time_ends():
    referee, game, clock = table("optional")
    first = referee.rule(End("button"), game)
    assert first.prompt == "press again to end with nothing shut" and not first.events
    clock.t += CONFIRM_S + 0.1  # too late: it asks again
    assert referee.rule(End("button"), game).prompt is not None
    clock.t += 1.0
    assert referee.rule(End("typed"), game).events == (ev.end_turn(declared=True),)
    assert referee.rule(End("typed"), table("optional")[1]).prompt == \
        "press again to end with nothing shut (or type end again)"


def test_optional_a_press_is_refused_only_while_an_entered_throw_can_still_move():
    referee, game, _ = table("optional", ev.throw(3, 4))
    ruling = referee.rule(End("button"), game)
    assert ruling.refused == "the turn is not over: the throw of 7 can still shut 7, 6 + 1, 5 + 2, 4 + 3, …"
    assert not referee.end_accepted(game)
    game.apply(ev.shut(7))
    referee.seen(frozenset({7}))
    referee.judge(game)
    assert referee.end_accepted(game)
    assert referee.rule(End("phone"), game).events == (ev.end_turn(declared=True),)  # tiles were shut: no question


def test_optional_a_throw_entered_after_its_tiles_counts_for_them_else_they_are_an_earlier_throw():
    referee, game, _ = table("optional", shut={7})
    assert referee.rule(Throw((4, 4)), game).events == (ev.throw(4, 4),)  # 7 is part of 7 + 1: a move of 8
    assert referee.rule(Throw((3, 4)), game).events == (ev.throw(3, 4),)  # 7 is the move of 7
    assert referee.rule(Throw((1, 1)), game).events == (ev.shut(7, unverified=True), ev.throw(1, 1))


def test_optional_shutting_every_tile_with_no_throw_is_complete_at_once():
    referee, game, _ = table("optional", shut=set(range(1, 10)))
    verdict = referee.verdict
    assert verdict is not None and verdict.kind == "complete"
    assert verdict.event == ev.shut(*range(1, 10), unverified=True)
    game.apply(ev.shut(*range(1, 10), unverified=True))
    assert game.finished and game.turns[0].shut_box and game.turns[0].unverified


def test_optional_the_next_turn_must_be_set_up_before_its_tiles_count():
    referee, game, _ = table("optional", shut={9, 3})
    for event in referee.rule(End("button"), game).events:
        game.apply(event)
    referee.seen(frozenset({9, 3}))  # Ann's tiles still shut: Bob's turn is not set up yet
    assert kind(referee, game) == "setup"
    assert str(referee.rule(End("button"), game).refused).startswith("put the box right first: Bob's turn: open")
    referee.seen(frozenset())
    assert kind(referee, game) == "idle"
    referee.seen(frozenset({8}))  # now a move of Bob's
    assert kind(referee, game) == "unverified"


def test_optional_long_game_the_uncoverer_starts_from_the_board_as_left():
    ann = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(6, 6), ev.shut(8, 4), ev.throw(6, 6), ev.shut(7, 5),
           ev.throw(5, 6)]
    referee, game, _ = table("optional", *ann, shut={3, 4, 5, 7, 8, 9}, rules=LONG)
    assert referee.verdict is not None and referee.verdict.kind == "idle"
    referee.seen(frozenset({3, 4, 5, 7, 8}))  # Bob uncovers 9 with no throw entered
    verdict = referee.judge(game)
    assert verdict is not None and verdict.kind == "unverified" and verdict.event == ev.uncover(9, unverified=True)


def test_undo_after_the_game_is_over_is_refused():
    shut_box = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(6, 6), ev.shut(8, 4), ev.throw(6, 6), ev.shut(7, 5),
                ev.throw(5, 4), ev.shut(6, 2, 1)]
    for throws in ("required", "optional"):
        referee, game, _ = table(throws, *shut_box, shut=set(range(1, 10)))
        assert game.finished
        assert referee.rule(Undo(), game).refused == "the game is over: its result stands, and undo cannot reopen it"


def test_a_move_on_the_box_stands_but_a_declared_end_may_be_undone():
    referee, game, _ = table("optional", ev.throw(3, 4), ev.shut(7), shut={7})
    assert referee.rule(Undo(), game).refused == ("a move made on the box stands; undo withdraws only a typed "
                                                  "throw or end")
    game.apply(ev.end_turn(declared=True))
    assert referee.rule(Undo(), game).events == (ev.undo(),)


def test_box_less_optional_moves_are_typed_without_a_throw():
    referee, game, _ = table("optional", boxless=True)
    assert referee.rule(Move((9, 3), "shut"), game).events == (ev.shut(9, 3, unverified=True),)
    required, game2, _ = table("required", boxless=True)
    assert required.rule(Move((9, 3), "shut"), game2).refused == "enter the throw first, then shut its tiles"
    assert required.rule(Move((9, 3), "open"), game2).refused == "Ann shuts tiles: type 'shut 9 3'"


def test_nothing_is_taken_while_the_box_is_away():
    referee, game, _ = table("optional")
    referee.connected = False
    assert str(referee.rule(Throw((3, 4)), game).refused).startswith("waiting for the box")
    assert not referee.end_accepted(game)
    referee.connected = True
    with pytest.raises(TypeError):
        referee.rule(BoxSeen(frozenset()), game)  # a snapshot is seen, not ruled on
