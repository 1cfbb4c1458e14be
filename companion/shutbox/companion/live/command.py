"""The command model: every input to a live game is one typed command object, applied by one referee.

This is the entry point for anything that feeds a game in progress — the keyboard, the web page, the
box's button and tiles, a script, and a camera reading the dice::

    from shutbox.companion.live.command import Throw
    table.submit(Throw(dice=(3, 5), source="camera"))   # a LiveSession takes it like a typed '3 5'

Every command names its ``source``: ``typed`` (a line at the keyboard), ``phone`` (the web page),
``button`` (the box's end-turn button), ``box`` (a snapshot of the box's tiles), ``script`` (``sim
--script``), ``camera`` (dice read from the tray) or ``dice`` (smart dice saying their faces over Bluetooth,
:mod:`shutbox.companion.live.smartdice`). The source changes how a message is worded, never what
the rules allow. A command holds what was entered, checked only for its shape; whether it is legal is
for the rules engine (:mod:`shutbox.game.rules` via :class:`shutbox.game.replay.Game`) to say, once, when
the referee (:mod:`shutbox.companion.live.referee`) applies it.

=================  ================================================================================
command            meaning
=================  ================================================================================
``Throw``          the dice thrown (``dice``), or a total drawn instead (``total``: a domino, a card)
``Move``           tiles shut (``verb="shut"``) or uncovered (``"open"``), or either as the phase says
                   (``"either"``): typed or tapped in box-less play; a box reports its tiles itself
``End``            end the turn: the box's button, ``end`` typed, the page's End button
``Undo``           withdraw the latest entry still in effect (a throw, a typed move, an end)
``Hint``           ask for the solver's best move for the pending throw
``Help``/``Quit``  the keyboard's own commands
``BoxSeen``        the tiles shut on the box, as a snapshot reported them (a tile flip)
=================  ================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: Where a command came from (see the module docstring).
SOURCES = ("typed", "phone", "button", "box", "script", "camera", "dice")
Source = Literal["typed", "phone", "button", "box", "script", "camera", "dice"]
MoveVerb = Literal["shut", "open", "either"]


@dataclass(frozen=True)
class Throw:
    """The dice thrown (pips per die), or only the total (``total``), as entered from ``source``."""

    dice: tuple[int, ...] = ()
    total: int | None = None
    source: Source = "typed"

    def __post_init__(self) -> None:
        if bool(self.dice) == (self.total is not None):
            raise ValueError("a throw is its dice or its total, not both or neither")

    @property
    def value(self) -> int:
        """The throw's total."""
        return self.total if self.total is not None else sum(self.dice)


@dataclass(frozen=True)
class Move:
    """Tiles moved by hand where no box reports them (box-less play)."""

    tiles: tuple[int, ...]
    verb: MoveVerb = "either"
    source: Source = "typed"


@dataclass(frozen=True)
class End:
    """End the turn."""

    source: Source = "typed"


@dataclass(frozen=True)
class Undo:
    """Withdraw the latest entry still in effect."""

    source: Source = "typed"


@dataclass(frozen=True)
class Hint:
    """The solver's best move for the pending throw."""

    source: Source = "typed"


@dataclass(frozen=True)
class Help:
    """What may be entered."""

    source: Source = "typed"


@dataclass(frozen=True)
class Quit:
    """Leave the game (it is saved and may be resumed)."""

    source: Source = "typed"


@dataclass(frozen=True)
class BoxSeen:
    """The tiles the box reports shut."""

    shut: frozenset[int] = field(default_factory=frozenset)
    source: Source = "box"


Command = Throw | Move | End | Undo | Hint | Help | Quit | BoxSeen
