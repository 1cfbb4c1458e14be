"""The live session on its own: typed lines and box snapshots in, events saved before they are shown.

Snapshots are handed to the session as the link would (``Received`` of a decoded line); the
end-to-end tests through the firmware, the pseudo-terminal and pyserial are in test_companion_live_sim/play.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.companion.live.link import Connected, Disconnected, Failed, Noise, Received
from shutbox.companion.live.livestate import LiveState
from shutbox.companion.live.session import InputClosed, LiveSession, Typed
from shutbox.companion.store.database import GameStore
from shutbox.firmware.host.protocol import Rejected, Snapshot
from shutbox.game import events as ev
from shutbox.game.replay import Game
from shutbox.kit.model import Rules
from tests.conftest import unstamped


class Recorder:
    """A view that checks, for every 'recorded' message, that the event is already in the store."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, str]] = []
        self.session: LiveSession | None = None
        self.saved_when_shown: list[int] = []

    def note(self, kind: str, text: str) -> None:
        self.notes.append((kind, text))
        if kind == "recorded" and self.session is not None and self.session.game_id is not None:
            self.saved_when_shown.append(len(self.session.store.events(self.session.game_id)))

    def show(self, state: LiveState) -> None:
        pass

    def kinds(self, kind: str) -> list[str]:
        return [text for k, text in self.notes if k == kind]


def snapshot(tiles: int, shut: set[int], seq: int = 1, presses: int = 0) -> Received:
    return Received(Snapshot(seq, tuple(t in shut for t in range(1, tiles + 1)), False, presses, "change"),
                    time.perf_counter(), time.time())


@pytest.fixture
def make(tmp_path: Path):
    stores: list[GameStore] = []

    def factory(rules: Rules | None = None, players: tuple[str, ...] = ("Ann", "Bob"), hint: bool = False,
                throws: str = "required", clock=time.monotonic):
        rules = rules or Rules()
        store = GameStore(tmp_path / "games.sqlite3")
        stores.append(store)
        view = Recorder()
        session = LiveSession(rules, store, view, hint=hint, throws=throws, clock=clock)
        view.session = session
        session.handle(Connected("/dev/test"))
        session.handle(snapshot(rules.tiles, set()))
        session.start(players)
        return session, view

    yield factory
    for s in stores:
        s.close()


def box(session: LiveSession, shut: set[int]) -> None:
    session.handle(snapshot(session.rules.tiles, shut))


def clean(events: list[dict]) -> list[ev.Event]:
    return unstamped(events)


def test_a_move_on_the_box_is_saved_before_it_is_shown(make):
    session, view = make()
    session.handle(Typed("3 4"))
    box(session, {4})
    assert session.verdict.kind == "partial"
    box(session, {4, 3})
    saved = clean(session.store.events(session.game_id))
    assert saved == [ev.players(["Ann", "Bob"]), ev.throw(3, 4), ev.shut(3, 4)]
    # each 'recorded' line was shown only once its event was in the database (players + n events)
    assert view.saved_when_shown == [2, 3]
    assert view.kinds("recorded") == ["Ann threw 3 + 4 = 7", "Ann shut 4 + 3"]


def test_every_event_carries_the_time_it_was_recorded(make):
    session, _ = make()
    before = time.time()
    session.handle(Typed("6,6"))
    saved = session.store.events(session.game_id)
    assert before - 1 <= saved[-1]["at"] <= time.time() + 1


def test_one_die_when_the_rule_forbids_it_is_refused_at_once_with_the_engines_reason(make):
    session, view = make()
    session.handle(Typed("4"))
    assert view.kinds("refused") == ["one die is not allowed: tiles 7, 8 and 9 are still open (one die once tiles 7, "
                                     "8 and 9 are shut)"]
    assert len(session.store.events(session.game_id)) == 1


def test_one_die_is_taken_once_the_rule_allows_it(make):
    session, view = make(Rules(one_die="sum-6"))
    # Shut 9 3, 8 4, 7 5 with three double sixes: 1, 2, 6 stay open (9 > 6: still two dice).
    for shut in ({9, 3}, {9, 3, 8, 4}, {9, 3, 8, 4, 7, 5}):
        session.handle(Typed("6 6"))
        box(session, shut)
    session.handle(Typed("4"))
    assert view.kinds("refused")[-1].startswith("one die is allowed only when the open tiles add up to 6 or less")
    session.handle(Typed("3 3"))  # 6 shuts the 6; 1 and 2 are left (3 <= 6)
    box(session, {9, 3, 8, 4, 7, 5, 6})
    session.handle(Typed("3"))
    assert clean(session.store.events(session.game_id))[-1] == ev.throw(3)


def test_a_typed_throw_with_no_move_ends_the_turn_and_scores_it(make):
    session, view = make()
    for shut in ({9, 3}, {9, 3, 8, 4}, {9, 3, 8, 4, 7, 5}):
        session.handle(Typed("6 6"))
        box(session, shut)
    session.handle(Typed("6 6"))  # 1, 2, 6 open: 12 cannot be made
    assert "no move for 12: Ann scores 9 (left open: 1 2 6)" in view.kinds("turn")
    assert session.game.current_player == "Bob"
    # Bob's turn starts only when every tile is open again: until then throws are refused.
    assert session.verdict.kind == "setup"
    session.handle(Typed("3 4"))
    assert view.kinds("refused")[-1].startswith("put the box right first: Bob's turn: open")
    box(session, set())
    session.handle(Typed("3 4"))
    assert clean(session.store.events(session.game_id))[-1] == ev.throw(3, 4)


def test_flags_are_shown_once_and_cleared_by_putting_the_tiles_back(make):
    session, view = make()
    session.handle(Typed("3 4"))
    box(session, {6})
    box(session, {6, 4})
    box(session, {6, 4})  # a heartbeat repeating the same state does not repeat the message
    assert view.kinds("flag") == ["6 + 4 = 10, the throw was 7: open tiles 4, 6 again"]
    session.handle(Typed("1 1"))  # no throw while the box is flagged (and the 7 is still pending)
    assert view.kinds("refused")[-1].startswith("put the box right first")
    box(session, set())
    assert session.verdict.kind == "idle"
    box(session, {7})
    assert clean(session.store.events(session.game_id))[-1] == ev.shut(7)


def test_shutting_the_box_is_announced_as_an_instant_win(make):
    session, view = make(players=("Ann", "Bob", "Cy"))
    shut: set[int] = set()
    for throw, tiles in (("6 6", {9, 3}), ("6 6", {8, 4}), ("6 6", {7, 5}), ("5 4", {6, 2, 1})):
        session.handle(Typed(throw))
        shut |= tiles
        box(session, shut)
    assert view.kinds("win") == ["Ann SHUT THE BOX — an instant win!", "game over: Ann wins"]
    assert session.done and not session.quit
    assert session.game.finished and session.game.winners == ("Ann",)
    # the game is marked finished in the same transaction as its last event
    assert session.store.latest_unfinished() is None


def test_undo_withdraws_a_typed_throw_but_not_a_move_made_on_the_box(make):
    session, view = make()
    session.handle(Typed("undo"))
    assert view.kinds("refused") == ["there is nothing to undo"]
    session.handle(Typed("2 3"))
    session.handle(Typed("undo"))  # a mistyped throw
    assert session.game.pending is None
    session.handle(Typed("3 3"))
    box(session, {6})
    session.handle(Typed("undo"))
    assert view.kinds("refused")[-1] == "a move made on the box stands; undo withdraws only a typed throw or end"
    record = clean(session.store.events(session.game_id))
    assert [e.type for e in record] == ["players", "throw", "undo", "throw", "shut"]
    assert [e.type for e in session.game.effective_events()] == ["players", "throw", "shut"]
    assert Game.from_events(session.rules, record).effective_events() == clean(session.game.effective_events())


def test_throws_wait_for_the_box(make):
    session, view = make()
    session.handle(Disconnected("/dev/test", "unplugged"))
    session.handle(Typed("3 4"))
    assert view.kinds("refused")[-1].startswith("waiting for the box")
    session.handle(Connected("/dev/test"))
    box(session, set())
    session.handle(Typed("3 4"))
    assert clean(session.store.events(session.game_id))[-1] == ev.throw(3, 4)


def test_a_move_made_while_unplugged_is_scored_from_the_next_snapshot(make):
    session, _ = make()
    session.handle(Typed("6 6"))
    box(session, {9})
    session.handle(Disconnected("/dev/test", "unplugged"))
    session.handle(Connected("/dev/test"))
    box(session, {9, 3})
    assert clean(session.store.events(session.game_id))[-1] == ev.shut(3, 9)


def test_resume_replays_the_game_exactly(make):
    session, _ = make(Rules(match="drop-out", limit=20))
    session.handle(Typed("6 6"))
    box(session, {9, 3})
    session.handle(Typed("6 6"))
    box(session, {9})  # half a move
    resumed = LiveSession.resume(session.store, Recorder(), session.game_id)
    assert resumed.rules == session.rules
    assert resumed.game is not None and session.game is not None
    assert resumed.game.to_events() == session.game.to_events()
    resumed.handle(snapshot(9, {9, 3, 8, 4}))
    assert clean(resumed.store.events(session.game_id))[-1] == ev.shut(4, 8)


def test_hint_shows_the_solvers_best_move(make):
    session, view = make(hint=True)
    session.handle(Typed("hint"))
    assert view.kinds("hint") == ["throw first; the hint ranks the moves for a throw"]
    session.handle(Typed("1 2"))  # 3: shut 3, or 2 + 1
    hint = view.kinds("hint")[-1]
    assert hint.startswith("best: shut ") and "expected score" in hint and "1 other move" in hint


def test_commands_and_nonsense(make):
    session, view = make()
    session.handle(Typed("help"))
    session.handle(Typed("three"))
    session.handle(Typed("7 1"))
    assert view.kinds("info")[-1].startswith("type a throw")
    assert view.kinds("refused")[0].startswith("'three': not understood")
    assert view.kinds("refused")[1] == "a die shows 1 to 6, not 7"
    session.handle(Noise(Rejected("checksum", "bad")))
    assert session.noise == 1
    session.handle(Typed("quit"))
    assert session.done and session.quit


def test_end_of_input_quits_and_keeps_the_game(make):
    session, _ = make()
    session.handle(InputClosed())
    assert session.done and session.quit
    assert session.store.latest_unfinished().id == session.game_id


def test_a_failed_link_stops_the_session_with_its_error(make):
    session, _ = make()
    with pytest.raises(ShutboxError, match="10 tiles"):
        session.handle(Failed(ShutboxError("the box on /dev/x has 10 tiles but the settings are for 9")))


def test_players_are_checked_by_the_rules(tmp_path):
    with GameStore(tmp_path / "g.sqlite3") as store:
        session = LiveSession(Rules(match="long-game"), store, Recorder())
        with pytest.raises(ShutboxError, match="exactly 2 players"):
            session.start(["Ann", "Bob", "Cy"])
        assert store.games() == []


def test_long_game_uncovering_through_the_box(make):
    session, view = make(Rules(match="long-game"))
    shut: set[int] = set()
    for tiles in ({9, 3}, {8, 4}, {7, 5}):
        session.handle(Typed("6 6"))
        shut |= tiles
        box(session, shut)
    session.handle(Typed("6 6"))  # a dead double: Ann throws again
    assert "a double with no move: Ann throws again" in view.kinds("turn")
    session.handle(Typed("5 6"))  # dead, not a double: Bob uncovers 3, 4, 5, 7, 8, 9
    assert session.game.phase == "uncover" and session.verdict.kind == "idle"
    for tiles in ({9, 3}, {8, 4}, {7, 5}):
        session.handle(Typed("6 6"))
        shut -= tiles
        box(session, shut)
    assert session.game.finished and session.game.winners == ("Bob",)
    assert view.kinds("win")[0] == "Bob uncovered every tile — an instant win!"
    replayed = Game.from_events(session.rules, session.store.events(session.game_id))
    assert replayed.winners == ("Bob",)


def test_the_box_button_ends_the_turn_like_typing_end(make):
    session, view = make()
    for dice, tiles in (("6 6", {9, 3}), ("4 4", {8}), ("3 4", {7}), ("6 5", {6, 5}), ("2 2", {4})):
        session.handle(Typed(dice))
        box(session, session.box | tiles)
    assert sorted(session.game.board) == [1, 2]
    # With 1 and 2 open a press is an `end`: refused, as the throws are typed and a throw of 3 would
    # still shut both; the turn ends once a typed throw admits no move.
    session.handle(snapshot(9, set(session.box), presses=1))
    assert view.kinds("refused")[-1] == ("the turn is not over: throw the dice; a throw that can shut no tiles ends "
                                         "the turn by itself")
    assert session.game.current_player == "Ann"
    session.handle(Typed("6 6"))
    assert session.game.current_player == "Bob" and session.game.turns[0].score == 3
    # Bob's turn: the press is refused the same way.
    session.handle(snapshot(9, set(), presses=2))
    assert len(view.kinds("refused")) == 2
    assert session.game.current_player == "Bob" and session.game.current_turn is None
    # The first snapshot after a reconnect only sets the count, and a count that went back
    # (the box restarted) is not a press either.
    refused = len(view.kinds("refused"))
    session.handle(Disconnected("/dev/test", "unplugged"))
    session.handle(Connected("/dev/test"))
    session.handle(snapshot(9, set(), presses=7))
    session.handle(snapshot(9, set(), presses=0))
    assert len(view.kinds("refused")) == refused


def test_box_less_play_the_tiles_are_typed_and_every_rule_applies(tmp_path):
    with GameStore(tmp_path / "games.sqlite3") as store:
        view = Recorder()
        session = LiveSession(Rules(), store, view, boxless=True, hint=True)
        view.session = session
        session.start(["Ann", "Bob"])
        assert session.verdict is not None and session.verdict.message == "Ann: throw the dice"
        session.handle(Typed("shut 9 3"))
        assert view.kinds("refused")[-1] == "enter the throw first, then shut its tiles"
        session.handle(Typed("6 6"))
        assert view.kinds("hint")[-1].startswith("best: shut 9 + 3")
        session.handle(Typed("shut 9 4"))
        assert view.kinds("refused")[-1] == "9 + 4 = 13, the throw was 12"
        session.handle(Typed("open 9 3"))
        assert view.kinds("refused")[-1] == "Ann shuts tiles: type 'shut 9 3'"
        session.handle(Typed("shut nine"))
        assert view.kinds("refused")[-1] == "shut 'nine': give tile numbers, e.g. 'shut 3 5'"
        session.handle(Typed("shut 9, 3"))
        assert session.box == frozenset({3, 9}) and session.verdict.message == "Ann: throw the dice"
        session.handle(Typed("undo"))  # a typed move may be withdrawn
        assert session.box == frozenset() and session.game is not None and session.game.pending is not None
        assert session.game_id is not None
        saved = [e.type for e in clean(store.events(session.game_id))]
        assert saved == ["players", "throw", "shut", "undo"]


def test_typing_tiles_is_refused_while_a_box_reports_them(make):
    session, view = make()
    session.handle(Typed("6 6"))
    session.handle(Typed("shut 9 3"))
    assert view.kinds("refused")[-1].startswith("move the tiles on the box: it reports them")
    assert len(session.store.events(session.game_id)) == 2


def test_a_line_from_the_page_is_answered_with_what_it_caused(make):
    from shutbox.companion.live.command import Throw
    from shutbox.companion.live.session import Remote

    session, view = make()
    taken = Remote(Throw((6, 6), source="phone"))
    session.handle(taken)
    assert taken.reply.result(0) == (True, [("recorded", "Ann threw 6 + 6 = 12")])
    again = Remote(Throw((5, 5), source="phone"))
    session.handle(again)
    ok, notes = again.reply.result(0)
    assert not ok and notes[0][0] == "refused"
    assert view.kinds("recorded") == ["Ann threw 6 + 6 = 12"]  # the terminal saw the same messages
    assert view.kinds("refused") == [notes[0][1]]


# -- throws optional: the box keeps score by itself -------------------------------------------------

def test_optional_the_button_ends_a_turn_of_tiles_moved_with_no_throw(make):
    session, view = make(throws="optional")
    assert session.state.throws == "optional" and not session.state.verified and session.state.legal is None
    box(session, {9})
    box(session, {9, 3})
    state = session.state
    assert state.verdict is not None and state.verdict.kind == "unverified" and state.end_accepted
    assert len(session.store.events(session.game_id)) == 1  # held until the turn ends
    session.handle(snapshot(9, {9, 3}, presses=1))
    assert clean(session.store.events(session.game_id))[1:] == [ev.shut(3, 9, unverified=True),
                                                                ev.end_turn(declared=True)]
    assert view.saved_when_shown == [3, 3]  # the run is saved whole, then shown
    assert "turn ended (unverified): Ann scores 33 (left open: 1 2 4 5 6 7 8)" in view.kinds("turn")
    assert session.game.current_player == "Bob" and session.verdict.kind == "setup"


def test_optional_an_accidental_press_asks_and_times_out(make):
    now = [0.0]
    session, view = make(throws="optional", clock=lambda: now[0])
    session.handle(snapshot(9, set(), presses=0))
    session.handle(snapshot(9, set(), presses=1))
    assert view.kinds("refused") == ["press again to end with nothing shut"]
    now[0] = 10.0  # a second press long after is a first press again
    session.handle(snapshot(9, set(), presses=2))
    assert len(view.kinds("refused")) == 2 and session.game.current_player == "Ann"
    now[0] = 12.0
    session.handle(snapshot(9, set(), presses=3))
    assert session.game.turns[0].ended and session.game.turns[0].score == 45


def test_optional_state_says_verified_and_the_legal_moves(make):
    session, _ = make(throws="optional")
    session.handle(Typed("1 2"))
    state = session.state
    assert state.verified and state.legal == [[3], [1, 2]] and not state.end_accepted
    box(session, {3})
    assert session.state.verified and session.state.legal is None and session.state.end_accepted


def test_undo_after_the_game_is_over_is_refused_and_the_money_stands(make):
    session, view = make(Rules(stake=1), players=("Ann", "Bob"))
    shut: set[int] = set()
    for throw, tiles in (("6 6", {9, 3}), ("6 6", {8, 4}), ("6 6", {7, 5}), ("5 4", {6, 2, 1})):
        session.handle(Typed(throw))
        shut |= tiles
        box(session, shut)
    assert session.game.finished and session.game.balance == {"Ann": 2.0, "Bob": -2.0}
    record = session.store.events(session.game_id)
    session.handle(Typed("undo"))
    assert view.kinds("refused")[-1] == "the game is over: its result stands, and undo cannot reopen it"
    assert session.store.events(session.game_id) == record and session.game.finished
    assert session.game.balance == {"Ann": 2.0, "Bob": -2.0}


@pytest.fixture
def count_move_checks(monkeypatch):
    """Count the calls of the rules engine's one move check (``check_move``), wherever it was imported."""
    import sys

    from shutbox.game import rules as rules_module

    original = rules_module.check_move
    calls: list[tuple[int, ...]] = []

    def counted(*args, **kwargs):
        calls.append(tuple(args[3]))
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "check_move", None) is original:
            monkeypatch.setattr(module, "check_move", counted)
    return calls


def test_a_move_completed_on_the_box_is_validated_once(make, count_move_checks):
    session, view = make()
    session.handle(Typed("6 6"))
    box(session, {9})  # a part of the move: no move check yet
    box(session, {9, 3})
    assert clean(session.store.events(session.game_id))[-1] == ev.shut(3, 9)
    assert count_move_checks == [(3, 9)]
    box(session, {9, 3})  # the same snapshot again: nothing more to check
    assert count_move_checks == [(3, 9)]


def test_a_typed_move_is_validated_once(tmp_path, count_move_checks):
    with GameStore(tmp_path / "games.sqlite3") as store:
        session = LiveSession(Rules(), store, Recorder(), boxless=True)
        session.start(["Ann", "Bob"])
        session.handle(Typed("6 6"))
        session.handle(Typed("shut 9 3"))
        assert clean(store.events(1))[-1] == ev.shut(9, 3)
        assert count_move_checks == [(9, 3)]


def test_an_illegal_move_on_the_box_is_flagged_after_one_check(make, count_move_checks):
    session, view = make(Rules(max_tiles_per_throw=2))
    session.handle(Typed("6 6"))
    box(session, {5, 4, 3})
    assert session.verdict.kind == "flag"
    assert session.verdict.message.startswith("at most 2 tiles may be shut with one throw")
    assert count_move_checks == [(3, 4, 5)]
    assert clean(session.store.events(session.game_id))[-1] == ev.throw(6, 6)


def test_tiles_held_hands_free_are_saved_before_they_are_shown_and_resumed(tmp_path):
    """Throws optional: held tiles are in the store when the screen shows them; a session resumed from the store
    goes on with the turn (no set-up asked); once an event is recorded they are no longer held."""
    path = tmp_path / "games.sqlite3"
    shown_held: list[tuple[int, tuple[int, ...]] | None] = []

    class Watch(Recorder):
        def show(self, state: LiveState) -> None:
            if state.verdict is not None and state.verdict.kind == "unverified":
                shown_held.append(store.held(1))

    store = GameStore(path)
    session = LiveSession(Rules(), store, Watch(), throws="optional")
    session.handle(Connected("/dev/test"))
    box(session, set())
    session.start(["Ann", "Bob"])
    box(session, {9})
    box(session, {9, 8})
    assert shown_held == [(1, (9,)), (1, (8, 9))]
    store.close()  # the scorekeeper stops (the lock goes with it)

    store = GameStore(path)
    view = Recorder()
    session = LiveSession.resume(store, view, 1, throws="optional")
    session.handle(Connected("/dev/test"))
    session.resumed()
    assert any(text.startswith("Ann's turn goes on: shut 9 + 8") for text in view.kinds("info"))
    box(session, {9, 8})
    verdict = session.verdict
    assert verdict is not None and verdict.kind == "unverified" and verdict.tiles == (8, 9)
    session.handle(Typed("5 4"))  # fits neither 8 + 9 nor a part of it: they were an earlier throw's
    assert clean(store.events(1))[1:] == [ev.shut(8, 9, unverified=True), ev.throw(5, 4)]
    assert store.held(1) is None
    store.close()


def test_tiles_moved_with_no_throw_in_a_required_game_are_never_held(make):
    session, _ = make()  # throws required: tiles moved with no throw are refused
    session.handle(Typed("6 6"))
    box(session, {9, 3})
    box(session, {9, 3, 1})
    assert session.verdict.kind == "flag" and session.store.held(session.game_id) is None
