"""The game record: an append-only list of events, one class per kind, each serialised as a JSON object, version 1.

In the code an event is one of the frozen classes of :data:`Event` (:class:`PlayersEvent`, :class:`ThrowEvent`,
:class:`ShutEvent`, :class:`OpenEvent`, :class:`EndTurnEvent`, :class:`UndoEvent`), made by the functions named
after the types (``players``, ``throw``, ``shut``, ``uncover``, ``end_turn``, ``undo``); :func:`from_dict` reads
one from its JSON object (checking its shape, not its legality) and ``to_dict()`` writes it back, field for field
and in the same order as it has always been saved. On disk and on the wire every event is a JSON object with
``"v": 1`` (the record version) and a ``"type"``; an optional ``"at"`` (a timestamp, number or string, kept as
given) may be added by whoever records it (``event.stamped(at)``). The rule settings are not events: they
travel beside the record (a :class:`shutbox.kit.model.Rules`; in a game file they are its ``"settings"``, see
:mod:`shutbox.game.gamefile`). The state of a game is derived by replaying the events in order with
:class:`shutbox.game.replay.Game`.

==========  ==========================================  ============================================
type        fields                                      meaning
==========  ==========================================  ============================================
players     ``names``: list of 1+ distinct names        who plays, in turn order. First event, once.
                                                        ``long-game`` takes exactly 2, ``drop-out`` and
                                                        ``tournament`` at least 2.
throw       ``dice``: pips 1..6 of one die or of         the current player threw one die or all the
            all ``rules.dice`` dice                     rules' dice (two unless set otherwise).
            *or* ``total``: int                         only the total is known (a domino or card
                                                        drawn instead; a double only by its total).
shut        ``tiles``: list of tile numbers             shut these open tiles with the current throw;
                                                        they must add up to it. Without a preceding
                                                        ``throw`` the throw is taken to be their sum
                                                        (dice not entered).
            ``unverified``: true (optional)             tiles shut on the box with no throw entered
                                                        (throws optional): any open tiles, the sum of
                                                        one or more throws nobody entered; unchecked.
open        ``tiles``: list of tile numbers             long game, uncovering player: reopen these
                                                        shut tiles with the current throw.
            ``unverified``: true (optional)             as for ``shut``: reopened with no throw entered.
end_turn    ``unverified``: true (optional; written      the player reports a throw that admitted no
            by :func:`end_turn`, implied when absent)   move without entering it (box-only play):
                                                        accepted when no pending throw can still move
                                                        and some throw would not; marked unverified.
            ``declared``: true (optional)               throws optional: the players ended the turn
                                                        (the box's button, ``end``, the page); accepted
                                                        unless an entered throw is unused and can
                                                        still move tiles. Always unverified.
undo        —                                           withdraw the latest event still in effect.
==========  ==========================================  ============================================

A throw that admits no move ends the turn by itself (no ``end_turn`` needed); so does shutting
(or, long game, uncovering) the box. Example record::

    [{"v": 1, "type": "players", "names": ["Ann", "Bob"]},
     {"v": 1, "type": "throw", "dice": [3, 5]},
     {"v": 1, "type": "shut", "tiles": [8]},
     {"v": 1, "type": "throw", "dice": [6, 6]}, ...]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

from shutbox.base.text import quoted, shown, text_refusal
from shutbox.game.rules import IllegalMove

#: The version of the event record this module reads and writes.
EVENT_VERSION = 1
#: Event types and the fields each requires (besides ``v``, ``type`` and the optional ``at``).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "players": ("names",),
    "throw": (),  # "dice" or "total"
    "shut": ("tiles",),
    "open": ("tiles",),
    "end_turn": (),
    "undo": (),
}
#: Event types and the fields each may have besides those it requires.
OPTIONAL_FIELDS: dict[str, tuple[str, ...]] = {"throw": ("dice", "total"), "shut": ("unverified",),
                                               "open": ("unverified",), "end_turn": ("unverified", "declared")}
#: Bounds on what a record may hold (a name's length, players, numbers in a list, a number, a timestamp).
MAX_NAME = 40
MAX_PLAYERS = 64
MAX_LIST = 64
MAX_VALUE = 10**6
MAX_AT = 1e11

#: When an event was recorded, as given: seconds since 1970 or a short text.
At = int | float | str | None


@dataclass(frozen=True)
class GameEvent:
    """What every event has: its ``type`` (a class constant) and the optional time it was recorded."""

    type: ClassVar[str]
    at: At = field(default=None, kw_only=True)

    def stamped(self, at: At) -> Self:
        """The same event with the time it is recorded."""
        return replace(self, at=at)

    def to_dict(self) -> dict[str, Any]:
        """The event's JSON object, as the record has always held it (``at`` last, when there is one)."""
        data: dict[str, Any] = {"v": EVENT_VERSION, "type": self.type, **self._fields()}
        if self.at is not None:
            data["at"] = self.at
        return data

    def _fields(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class PlayersEvent(GameEvent):
    """Who plays, in turn order (the first event, once)."""

    type: ClassVar[str] = "players"
    names: tuple[str, ...]

    def _fields(self) -> dict[str, Any]:
        return {"names": list(self.names)}


@dataclass(frozen=True)
class ThrowEvent(GameEvent):
    """The current player's throw: the pips of the dice, or only its total."""

    type: ClassVar[str] = "throw"
    dice: tuple[int, ...] | None = None
    total: int | None = None  #: only when the dice are not given

    def _fields(self) -> dict[str, Any]:
        return {"dice": list(self.dice)} if self.dice is not None else {"total": self.total}


@dataclass(frozen=True)
class ShutEvent(GameEvent):
    """Open tiles shut with the current throw (``unverified``: moved on the box with no throw entered)."""

    type: ClassVar[str] = "shut"
    tiles: tuple[int, ...]
    unverified: bool = False

    def _fields(self) -> dict[str, Any]:
        return {"tiles": list(self.tiles), **({"unverified": True} if self.unverified else {})}


@dataclass(frozen=True)
class OpenEvent(GameEvent):
    """Long game, the uncovering player: shut tiles reopened with the current throw (``unverified`` as for shut)."""

    type: ClassVar[str] = "open"
    tiles: tuple[int, ...]
    unverified: bool = False

    def _fields(self) -> dict[str, Any]:
        return {"tiles": list(self.tiles), **({"unverified": True} if self.unverified else {})}


@dataclass(frozen=True)
class EndTurnEvent(GameEvent):
    """The turn ended without a throw entered that admits no move: always unverified; ``declared``: the players
    ended it themselves (throws optional)."""

    type: ClassVar[str] = "end_turn"
    declared: bool = False

    def _fields(self) -> dict[str, Any]:
        return {"unverified": True, **({"declared": True} if self.declared else {})}


@dataclass(frozen=True)
class UndoEvent(GameEvent):
    """Withdraw the latest event still in effect."""

    type: ClassVar[str] = "undo"


#: Every kind of event.
Event = PlayersEvent | ThrowEvent | ShutEvent | OpenEvent | EndTurnEvent | UndoEvent
#: The events that move tiles.
Move = ShutEvent | OpenEvent


def players(names: Sequence[str]) -> PlayersEvent:
    """The ``players`` event."""
    return PlayersEvent(tuple(names))


def throw(*dice: int, total: int | None = None) -> ThrowEvent:
    """A ``throw`` event: ``throw(3, 4)`` for the dice, or ``throw(total=7)`` for a total only."""
    if dice and total is not None:
        raise ValueError("give the dice or the total, not both")
    return ThrowEvent(dice=tuple(dice)) if dice else ThrowEvent(total=total)


def shut(*tiles: int, unverified: bool = False) -> ShutEvent:
    """A ``shut`` event; ``unverified``: shut on the box with no throw entered (throws optional)."""
    return ShutEvent(tuple(tiles), unverified)


def uncover(*tiles: int, unverified: bool = False) -> OpenEvent:
    """An ``open`` event (long game: reopen shut tiles); ``unverified`` as for :func:`shut`."""
    return OpenEvent(tuple(tiles), unverified)


def end_turn(*, declared: bool = False) -> EndTurnEvent:
    """An ``end_turn`` event: a dead throw reported without its dice, so the end is unverified;
    ``declared``: the players ended the turn themselves (throws optional: the button, ``end``, the page)."""
    return EndTurnEvent(declared=declared)


def undo() -> UndoEvent:
    """An ``undo`` event."""
    return UndoEvent()


def checked(event: Event | Mapping[str, Any]) -> Event:
    """An event with its shape checked (a JSON object read, or an event made in the code): IllegalMove if it is
    not one this version records (a name too long, a list too long, a throw with both dice and total, ...)."""
    return from_dict(event if isinstance(event, Mapping) else event.to_dict())


def from_dict(data: Any) -> Event:
    """The event a JSON object holds, its shape checked (not its legality); raise IllegalMove naming what is wrong."""
    kind = _check_envelope(data)
    event: Event  # its fields checked first, then its time
    if kind == "players":
        event = PlayersEvent(_check_names(data["names"]))
    elif kind == "throw":
        event = ThrowEvent(*_check_throw(data))
    elif kind in ("shut", "open"):
        tiles = _int_list(data["tiles"], "tiles")
        if "unverified" in data and data["unverified"] is not True:
            raise IllegalMove(f"'unverified' of a '{kind}' event is true (tiles moved with no throw "
                              f"entered), not {str(data['unverified'])[:20]!r}")
        event = (ShutEvent if kind == "shut" else OpenEvent)(tiles, "unverified" in data)
    elif kind == "end_turn":
        event = EndTurnEvent(_check_end(data))
    else:
        event = UndoEvent()
    at = _check_at(data)
    return event if at is None else event.stamped(at)


def _int_list(value: Any, field: str) -> tuple[int, ...]:
    if (not isinstance(value, list) or len(value) > MAX_LIST
            or any(type(x) is not int or abs(x) > MAX_VALUE for x in value)):
        raise IllegalMove(f"'{field}' must be a list of whole numbers, not {shown(value)}")
    return tuple(value)


def _check_envelope(event: Any) -> str:
    """Check the version, type and field names of an event; return its type."""
    if not isinstance(event, Mapping):
        raise IllegalMove(f"an event is a JSON object, not {event!r}")
    version = event.get("v")
    if type(version) is not int or version != EVENT_VERSION:  # true and 1.0 are not version 1
        if type(version) is int and version > EVENT_VERSION:
            raise IllegalMove(f"event version {shown(version)} is newer than this shutbox reads ({EVENT_VERSION})")
        raise IllegalMove(f"event version must be {EVENT_VERSION}, not {shown(version)}")
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise IllegalMove(f"unknown event type {shown(kind)}; allowed: {', '.join(EVENT_FIELDS)}")
    allowed = {"v", "type", "at", *EVENT_FIELDS[kind], *OPTIONAL_FIELDS.get(kind, ())}
    extra = sorted(set(event) - allowed)
    if extra:
        raise IllegalMove(f"'{kind}' event has unknown field {shown(extra[0])}")
    missing = [f for f in EVENT_FIELDS[kind] if f not in event]
    if missing:
        raise IllegalMove(f"'{kind}' event needs '{missing[0]}'")
    return kind


def _check_at(event: Mapping[str, Any]) -> At:
    if "at" not in event:
        return None
    at = event["at"]
    number = isinstance(at, (int, float)) and not isinstance(at, bool) and 0 <= at <= MAX_AT
    if not (number or (isinstance(at, str) and len(at) <= 64 and at.isprintable())):
        raise IllegalMove(f"'at' must be a time (seconds since 1970, 0 to {MAX_AT:g}) or a short text, "
                          f"not {shown(at)}")
    return at


def _check_names(names: Any) -> tuple[str, ...]:
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise IllegalMove("'names' must be a list of one or more player names")
    if len(names) > MAX_PLAYERS:
        raise IllegalMove(f"at most {MAX_PLAYERS} players, not {len(names)}")
    for name in names:
        if len(name) > MAX_NAME:
            raise IllegalMove(f"player name {quoted(name)}: at most {MAX_NAME} characters, no control characters")
        refusal = text_refusal(name)
        if refusal is not None:
            raise IllegalMove(f"player name {quoted(name)} {refusal}")
    return tuple(names)


def _check_throw(event: Mapping[str, Any]) -> tuple[tuple[int, ...] | None, int | None]:
    has_dice, has_total = "dice" in event, "total" in event
    if has_dice == has_total:
        raise IllegalMove("a 'throw' event needs either 'dice' or 'total'")
    if has_dice:
        return _int_list(event["dice"], "dice"), None
    total = event["total"]
    if type(total) is not int or abs(total) > MAX_VALUE:
        raise IllegalMove(f"'total' must be a whole number, not {shown(total)}")
    return None, total


def _check_end(event: Mapping[str, Any]) -> bool:
    """An ``end_turn`` event's ``declared`` (its ``unverified`` may only be true)."""
    if event.get("unverified", True) is not True:
        raise IllegalMove(f"'unverified' of an 'end_turn' event is true (an end the rules could not check), "
                          f"not {str(event['unverified'])[:20]!r}")
    if "declared" in event and event["declared"] is not True:
        raise IllegalMove(f"'declared' of an 'end_turn' event is true (the players ended the turn), "
                          f"not {str(event['declared'])[:20]!r}")
    return "declared" in event
