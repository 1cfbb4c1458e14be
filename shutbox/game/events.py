"""The game record: an append-only list of JSON-serialisable events, version 1.

Every event is a JSON object with ``"v": 1`` (the record version) and a ``"type"``; an optional
``"at"`` (a timestamp, number or string, kept as given) may be added by whoever records it. The
rule settings are not events: they travel beside the record (a :class:`shutbox.kit.model.Rules`; in a
game file they are its ``"settings"``, see :mod:`shutbox.game.gamefile`). The state of a game
is derived by replaying the events in order with :class:`shutbox.game.replay.Game`.

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
from typing import Any

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
_OPTIONAL = {"throw": ("dice", "total"), "shut": ("unverified",), "open": ("unverified",),
             "end_turn": ("unverified", "declared")}
#: Bounds on what a record may hold (a name's length, players, numbers in a list, a number, a timestamp).
MAX_NAME = 40
MAX_PLAYERS = 64
MAX_LIST = 64
MAX_VALUE = 10**6
MAX_AT = 1e11


def players(names: Sequence[str]) -> dict[str, Any]:
    """The ``players`` event."""
    return {"v": EVENT_VERSION, "type": "players", "names": list(names)}


def throw(*dice: int, total: int | None = None) -> dict[str, Any]:
    """A ``throw`` event: ``throw(3, 4)`` for the dice, or ``throw(total=7)`` for a total only."""
    if dice and total is not None:
        raise ValueError("give the dice or the total, not both")
    if dice:
        return {"v": EVENT_VERSION, "type": "throw", "dice": list(dice)}
    return {"v": EVENT_VERSION, "type": "throw", "total": total}


def shut(*tiles: int, unverified: bool = False) -> dict[str, Any]:
    """A ``shut`` event; ``unverified``: shut on the box with no throw entered (throws optional)."""
    event: dict[str, Any] = {"v": EVENT_VERSION, "type": "shut", "tiles": list(tiles)}
    return dict(event, unverified=True) if unverified else event


def uncover(*tiles: int, unverified: bool = False) -> dict[str, Any]:
    """An ``open`` event (long game: reopen shut tiles); ``unverified`` as for :func:`shut`."""
    event: dict[str, Any] = {"v": EVENT_VERSION, "type": "open", "tiles": list(tiles)}
    return dict(event, unverified=True) if unverified else event


def end_turn(*, declared: bool = False) -> dict[str, Any]:
    """An ``end_turn`` event: a dead throw reported without its dice, so the end is unverified;
    ``declared``: the players ended the turn themselves (throws optional: the button, ``end``, the page)."""
    event: dict[str, Any] = {"v": EVENT_VERSION, "type": "end_turn", "unverified": True}
    return dict(event, declared=True) if declared else event


def undo() -> dict[str, Any]:
    """An ``undo`` event."""
    return {"v": EVENT_VERSION, "type": "undo"}


def _int_list(value: Any, field: str) -> list[int]:
    if (not isinstance(value, list) or len(value) > MAX_LIST
            or any(type(x) is not int or abs(x) > MAX_VALUE for x in value)):
        raise IllegalMove(f"'{field}' must be a list of whole numbers, not {shown(value)}")
    return list(value)


def normalise(event: Any) -> dict[str, Any]:
    """Check an event's shape (not its legality) and return a clean copy; raise IllegalMove."""
    kind = _check_envelope(event)
    clean: dict[str, Any] = {"v": EVENT_VERSION, "type": kind, **_FIELD_CHECKS.get(kind, _no_fields)(event)}
    if "at" in event:
        at = event["at"]
        number = isinstance(at, (int, float)) and not isinstance(at, bool) and 0 <= at <= MAX_AT
        if not (number or (isinstance(at, str) and len(at) <= 64 and at.isprintable())):
            raise IllegalMove(f"'at' must be a time (seconds since 1970, 0 to {MAX_AT:g}) or a short text, "
                              f"not {shown(at)}")
        clean["at"] = at
    return clean


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
    allowed = {"v", "type", "at", *EVENT_FIELDS[kind], *_OPTIONAL.get(kind, ())}
    extra = sorted(set(event) - allowed)
    if extra:
        raise IllegalMove(f"'{kind}' event has unknown field {shown(extra[0])}")
    missing = [f for f in EVENT_FIELDS[kind] if f not in event]
    if missing:
        raise IllegalMove(f"'{kind}' event needs '{missing[0]}'")
    return kind


def _players_fields(event: Mapping[str, Any]) -> dict[str, Any]:
    names = event["names"]
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
    return {"names": list(names)}


def _throw_fields(event: Mapping[str, Any]) -> dict[str, Any]:
    has_dice, has_total = "dice" in event, "total" in event
    if has_dice == has_total:
        raise IllegalMove("a 'throw' event needs either 'dice' or 'total'")
    if has_dice:
        return {"dice": _int_list(event["dice"], "dice")}
    total = event["total"]
    if type(total) is not int or abs(total) > MAX_VALUE:
        raise IllegalMove(f"'total' must be a whole number, not {shown(total)}")
    return {"total": total}


def _tiles_fields(event: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {"tiles": _int_list(event["tiles"], "tiles")}
    if "unverified" in event:
        if event["unverified"] is not True:
            raise IllegalMove(f"'unverified' of a '{event['type']}' event is true (tiles moved with no throw "
                              f"entered), not {str(event['unverified'])[:20]!r}")
        fields["unverified"] = True
    return fields


def _no_fields(event: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _end_fields(event: Mapping[str, Any]) -> dict[str, Any]:
    if event.get("unverified", True) is not True:
        raise IllegalMove(f"'unverified' of an 'end_turn' event is true (an end the rules could not check), "
                          f"not {str(event['unverified'])[:20]!r}")
    if "declared" in event:
        if event["declared"] is not True:
            raise IllegalMove(f"'declared' of an 'end_turn' event is true (the players ended the turn), "
                              f"not {str(event['declared'])[:20]!r}")
        return {"unverified": True, "declared": True}
    return {"unverified": True}


#: Event type -> the check of its own fields, returning them clean.
_FIELD_CHECKS = {"players": _players_fields, "throw": _throw_fields, "shut": _tiles_fields, "open": _tiles_fields,
                 "end_turn": _end_fields}
