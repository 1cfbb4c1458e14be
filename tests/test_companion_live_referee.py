"""The box referee (companion/shutbox/companion/live/moves.py): what the tiles on the box mean, given the game so far.

Each row: the game's events (built with the rules engine), the tiles shut on the box, and the
verdict expected — its kind, the tiles it points at, a phrase of its message and, for a complete
move, the event it yields. Every expectation follows from RULES.md by hand.
"""

from __future__ import annotations

import pytest

from shutbox.companion.live.moves import expected_shut, judge
from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules

ROUND = Rules()
TWO_MAX = Rules(max_tiles_per_throw=2)
LONG = Rules(match="long-game")

# Ann: 6+6 shuts 9 3, 6+6 shuts 8 4, 6+6 shuts 7 5, then 5+6 = 11 admits no move (1, 2, 6 open): her turn ends.
ANN_TURN = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(6, 6), ev.shut(8, 4), ev.throw(6, 6), ev.shut(7, 5),
            ev.throw(5, 6)]


def game(rules: Rules, *events: ev.Event, players: tuple[str, ...] = ("Ann", "Bob")) -> Game:
    return Game.from_events(rules, [ev.players(list(players)), *events])


CASES = [
    # (id, rules, events, box shut, kind, tiles, phrase, event)
    ("start-ready", ROUND, [], set(), "idle", (), "Ann: throw the dice", None),
    ("start-tile-shut", ROUND, [], {3}, "setup", (3,), "Ann's turn: open tile 3 to start with every tile open",
     None),
    ("throw-nothing-moved", ROUND, [ev.throw(3, 4)], set(), "idle", (), "shut tiles adding up to 7", None),
    ("partial", ROUND, [ev.throw(3, 4)], {4}, "partial", (4,), "tile 4 of 7", None),
    ("partial-two", ROUND, [ev.throw(5, 6)], {1, 2}, "partial", (1, 2), "2 + 1 = 3 of 11", None),
    ("complete-one", ROUND, [ev.throw(3, 4)], {7}, "complete", (7,), "shut 7 = 7", ev.shut(7)),
    ("complete-two", ROUND, [ev.throw(3, 4)], {3, 4}, "complete", (3, 4), "shut 4 + 3 = 7", ev.shut(3, 4)),
    ("overshoot", ROUND, [ev.throw(3, 4)], {6, 4}, "flag", (4, 6), "6 + 4 = 10, the throw was 7: open tiles 4, 6 again",
     None),
    ("overshoot-one-tile", ROUND, [ev.throw(1, 2)], {9}, "flag", (9,), "tile 9, the throw was 3", None),
    ("moved-no-throw", ROUND, [ev.throw(3, 4), ev.shut(7)], {7, 2}, "flag", (2,),
     "tile 2 shut with no throw: open it again and enter the throw first", None),
    ("moved-before-first-throw-is-setup", ROUND, [], {2, 5}, "setup", (2, 5), "open tiles 2, 5 to start", None),
    ("scored-tile-reopened", ROUND, [ev.throw(3, 4), ev.shut(7)], set(), "flag", (7,),
     "tile 7 reopened: it was shut earlier, shut it again", None),
    ("scored-tile-reopened-beats-a-move", ROUND, [ev.throw(3, 4), ev.shut(7), ev.throw(1, 1)], {2}, "flag", (7,),
     "tile 7 reopened", None),
    ("between-moves-matches", ROUND, [ev.throw(3, 4), ev.shut(7)], {7}, "idle", (), "Ann: throw the dice", None),
    # 2 is shut already: 6 of 8 can be completed only by a 2, so it is flagged at once.
    ("partial-dead-end", ROUND, [ev.throw(1, 1), ev.shut(2), ev.throw(4, 4)], {2, 6}, "flag", (6,),
     "tile 6 cannot make 8 (no open tiles left add up to the 2 missing): open tile 6 again", None),
    ("partial-with-a-way-on", ROUND, [ev.throw(1, 1), ev.shut(2), ev.throw(4, 4)], {2, 5}, "partial", (5,),
     "tile 5 of 8", None),
    ("max-two-complete-three", TWO_MAX, [ev.throw(4, 4)], {1, 2, 5}, "flag", (1, 2, 5),
     "at most 2 tiles may be shut with one throw, not 3", None),
    ("max-two-partial-two", TWO_MAX, [ev.throw(4, 4)], {1, 2}, "flag", (1, 2),
     "2 + 1 = 3 cannot make 8 (at most 2 tiles may be shut with one throw)", None),
    ("max-two-partial-one", TWO_MAX, [ev.throw(4, 4)], {1}, "partial", (1,), "tile 1 of 8", None),
    ("max-two-complete", TWO_MAX, [ev.throw(4, 4)], {1, 7}, "complete", (1, 7), "shut 7 + 1 = 8", ev.shut(1, 7)),
    ("next-turn-needs-open-box", ROUND, ANN_TURN, {3, 4, 5, 7, 8, 9}, "setup", (3, 4, 5, 7, 8, 9),
     "Bob's turn: open tiles 3, 4, 5, 7, 8, 9 to start with every tile open", None),
    ("next-turn-ready", ROUND, ANN_TURN, set(), "idle", (), "Bob: throw the dice", None),
    ("game-over", ROUND, [*ANN_TURN, ev.throw(6, 6), ev.shut(9, 3), ev.throw(6, 6), ev.shut(8, 4), ev.throw(6, 6),
                          ev.shut(7, 5), ev.throw(6, 3), ev.shut(6, 2, 1)],
     set(), "over", (), "the game is over", None),
    # The long game: Bob takes the board as Ann left it and uncovers 3, 4, 5, 7, 8, 9.
    ("long-uncoverer-ready", LONG, ANN_TURN, {3, 4, 5, 7, 8, 9}, "idle", (), "Bob: throw the dice", None),
    ("long-uncoverer-box-not-as-left", LONG, ANN_TURN, {3, 4, 5, 7, 8}, "setup", (9,),
     "Bob's turn: shut tile 9 to start from the board as the last turn left it", None),
    ("long-uncover-complete", LONG, [*ANN_TURN, ev.throw(5, 4)], {3, 4, 5, 7, 8}, "complete", (9,),
     "uncover 9 = 9", ev.uncover(9)),
    ("long-uncover-partial", LONG, [*ANN_TURN, ev.throw(5, 6)], {3, 4, 5, 7, 9}, "partial", (8,), "tile 8 of 11",
     None),
    ("long-uncover-overshoot", LONG, [*ANN_TURN, ev.throw(1, 2)], {3, 5, 7, 8, 9}, "flag", (4,),
     "tile 4, the throw was 3", None),
    ("long-uncoverer-shuts", LONG, [*ANN_TURN, ev.throw(5, 4)], {1, 3, 4, 5, 7, 8, 9}, "flag", (1,),
     "tile 1 shut: Bob uncovers tiles, open it again", None),
    ("long-uncovered-no-throw", LONG, [*ANN_TURN, ev.throw(5, 4), ev.uncover(9)], {3, 4, 5, 7}, "flag", (8,),
     "tile 8 uncovered with no throw: shut it again and enter the throw first", None),
    # 11 from 9 needs a 2, which is open already: flagged at once.
    ("long-uncover-dead-end", LONG, [*ANN_TURN, ev.throw(5, 6)], {3, 4, 5, 7, 8}, "flag", (9,),
     "tile 9 cannot make 11 (no shut tiles left add up to the 2 missing): shut tile 9 again", None),
]


@pytest.mark.parametrize(("rules", "events", "box", "kind", "tiles", "phrase", "event"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_verdict(rules, events, box, kind, tiles, phrase, event):
    verdict = judge(game(rules, *events), box)
    assert verdict.kind == kind, verdict
    assert verdict.tiles == tiles
    assert phrase in verdict.message
    assert verdict.event == event


def test_waiting_for_players():
    assert judge(Game(ROUND), {1}).kind == "idle"
    assert judge(Game(ROUND), {1}).message == "waiting for players"


@pytest.mark.parametrize(("case_id"), [c[0] for c in CASES if c[4] == "complete"])
def test_a_complete_move_applies_and_then_the_box_matches(case_id):
    """The event a complete verdict yields is legal, and once applied the box agrees with the game."""
    _, rules, events, box, *_ = next(c for c in CASES if c[0] == case_id)
    g = game(rules, *events)
    verdict = judge(g, box)
    assert verdict.event is not None
    g.apply(verdict.event)
    assert expected_shut(g) == frozenset(box)
    assert judge(g, box).kind in ("idle", "over", "setup")


def test_putting_the_flagged_tiles_back_clears_the_flag():
    """Reopening the tiles of an overshooting move returns to the throw, then the right tiles complete it."""
    g = game(ROUND, ev.throw(3, 4))
    flagged = judge(g, {6, 4})
    assert flagged.kind == "flag"
    assert judge(g, {6, 4} - set(flagged.tiles)).kind == "idle"
    assert judge(g, {7}).event == ev.shut(7)


def test_the_referee_is_stateless():
    """The same game and box give the same verdict however the box got there (replug, restart)."""
    events = [ev.throw(6, 6), ev.shut(9, 3), ev.throw(2, 3)]
    a, b = game(ROUND, *events), game(ROUND, *events)
    assert judge(a, {9, 3, 5}) == judge(b, {5, 3, 9})
    assert judge(a, {9, 3, 5}).event == ev.shut(5)
