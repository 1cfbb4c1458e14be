"""The match formats as objects: what each format means for play, scores, standings, pads and money.

A :class:`MatchFormat` answers every question a view or the replay has about a format (does a limit
apply, what ends the match, what a row of the pad shows, whether the second player uncovers, how the
stakes move), so no module compares format names. :func:`match_format` reaches a rule set's format.
The names (``round``, ``drop-out``, ``tournament``, ``long-game``) stay the names on the CLI, in TOML and
in JSON; the kit model declares them (:data:`shutbox.kit.model.MATCHES`) with their default limits
(:data:`shutbox.kit.model.DEFAULT_LIMITS`). Adding a format: its name (and default limit) in the model, its
object in :data:`FORMATS`, and only where it brings a new kind of ending, that ending in
:mod:`shutbox.game.replay`.
"""

from __future__ import annotations

from dataclasses import dataclass

from shutbox.kit.model import DEFAULT_LIMITS, Rules

#: What ends a match (:attr:`MatchFormat.ends`).
ROUND_END = "round-end"  #: one round: the match ends with it; the lowest score wins
LAST_LEFT = "last-left"  #: rounds repeat; a total reaching the limit drops the player out; the last one left wins
FIRST_TO_LIMIT = "first-to-limit"  #: rounds repeat; the first total reaching the limit loses at once
BOX_DONE = "box-done"  #: turns alternate on one board until a player shuts (or uncovers) the whole box

#: What a row of a blank pad shows (:attr:`MatchFormat.pad_rows`).
TILE_ROWS = "tiles"  #: per round, a player's tiles to tick, the score and a box for the winner
TOTAL_ROWS = "totals"  #: per round, each player's score and running total, the limit marked
TURN_ROWS = "turns"  #: a game's turns, the shutting and the uncovering player side by side


@dataclass(frozen=True)
class MatchFormat:
    """One match format and everything that differs between formats."""

    name: str  #: the name on the CLI, in TOML and in JSON
    title: str  #: printed on pads and sheets
    ends: str  #: what ends the match: :data:`ROUND_END`, :data:`LAST_LEFT`, :data:`FIRST_TO_LIMIT`, :data:`BOX_DONE`
    min_players: int = 1
    max_players: int | None = None
    #: The second player uncovers: the board carries over from turn to turn and the turns alternate.
    uncovering: bool = False
    #: A double that admits no move does not end the turn: the player throws again.
    double_throws_again: bool = False
    #: How it runs, in a few short lines under the rule summary of a pad (formats the summary does not say).
    how_it_runs: tuple[str, ...] = ()

    @property
    def limit_applies(self) -> bool:
        """Scores add up over the rounds towards the rules' limit: the formats with a default limit in the
        model (:data:`~shutbox.kit.model.DEFAULT_LIMITS`, also read by :attr:`Rules.cumulative`)."""
        return self.name in DEFAULT_LIMITS

    @property
    def rounds_repeat(self) -> bool:
        """A finished round that does not end the match is followed by another."""
        return self.ends in (LAST_LEFT, FIRST_TO_LIMIT)

    @property
    def limit_rule(self) -> str:
        """What reaching the limit does, in words (empty when no limit applies)."""
        return {LAST_LEFT: "reaching it drops out", FIRST_TO_LIMIT: "the first to reach it loses"}.get(self.ends, "")

    @property
    def pool_per_round(self) -> bool:
        """Stakes: each round has its pool (and a result worth announcing); False: the game is one pool."""
        return self.ends != BOX_DONE

    @property
    def objective(self) -> str:
        """What a best-move hint optimises: ``shut`` when the match is won by finishing, else ``score``."""
        return "shut" if self.ends == BOX_DONE else "score"

    @property
    def round_word(self) -> str:
        """What one block of the pad or sheet is: a ``round``, or (turns alternating to the end) a ``game``."""
        return "game" if self.ends == BOX_DONE else "round"

    @property
    def score_word(self) -> str:
        """What a turn's score is called on a sheet: ``score``, or ``left`` (what the turn left undone)."""
        return "left" if self.uncovering else "score"

    @property
    def pad_rows(self) -> str:
        """What a row of a blank pad shows: :data:`TURN_ROWS`, :data:`TOTAL_ROWS` or :data:`TILE_ROWS`."""
        if self.uncovering:
            return TURN_ROWS
        return TOTAL_ROWS if self.limit_applies else TILE_ROWS

    @property
    def fixed_players(self) -> int | None:
        """The exact number of players the format is for, or None when it takes a range."""
        return self.min_players if self.max_players == self.min_players else None

    def players_refusal(self, count: int) -> str | None:
        """Why ``count`` players cannot play this format, in one line; None when they can."""
        if self.fixed_players is not None and count != self.fixed_players:
            return f"the {self.title.lower()} is for exactly {self.fixed_players} players, not {count}"
        if count < self.min_players:
            return f"a {self.name} match needs at least {self.min_players} players"
        return None


#: Every format by its name, in the model's order (:data:`shutbox.kit.model.MATCHES`).
FORMATS: dict[str, MatchFormat] = {f.name: f for f in (
    MatchFormat("round", "Round", ROUND_END),
    MatchFormat("drop-out", "Drop-out", LAST_LEFT, min_players=2),
    MatchFormat("tournament", "Tournament", FIRST_TO_LIMIT, min_players=2),
    MatchFormat("long-game", "Long game", BOX_DONE, min_players=2, max_players=2, uncovering=True,
                double_throws_again=True,
                how_it_runs=("Long game: the first player shuts; the other then uncovers",
                             "shut tiles adding up to each throw; turns alternate until one",
                             "shuts the box or uncovers it completely.",
                             "A double that moves no tile is thrown again.")),
)}


def match_format(rules: Rules) -> MatchFormat:
    """The format ``rules`` are played in."""
    return FORMATS[rules.match]


__all__ = ["BOX_DONE", "FIRST_TO_LIMIT", "FORMATS", "LAST_LEFT", "ROUND_END", "TILE_ROWS", "TOTAL_ROWS", "TURN_ROWS",
           "MatchFormat", "match_format"]
