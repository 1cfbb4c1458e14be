"""Player statistics across games: each game summarised per player, the summaries added up per player.

A game's summary (:func:`game_record`) is a small JSON-ready object, so it can be cached beside the
database and the statistics of thousands of games added up without replaying them. Names are matched
exactly as recorded ("Ann" and "ann" are two players). Only finished games count.

Per player: games, wins (a shared win counts for each winner), boxes shut (turns that shut every
tile), the mean of the score each match format counts (round: the turn's score; drop-out and
tournament: the final total; long game: what the last turn left undone), and from the reviews (the one
measure of :mod:`shutbox.game.measure`) the accuracy, the inaccuracies, mistakes and blunders, and the mean
loss per decision (only when every game was measured by the same objective: the units differ).
Turns played verified and unverified are counted apart (throws optional: an unverified turn had tiles
moved, or its end, with no throw entered, and is not reviewed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from shutbox.game.replay import Game
from shutbox.game.report import player_score
from shutbox.game.review import Review

#: Bump when a record's shape or meaning changes (cached records of another version are recomputed).
RECORD_VERSION = 3
#: The review's counts a record keeps per player (disjoint grades).
COUNTS = ("inaccuracies", "mistakes", "blunders")


def game_record(game: Game, review: Review) -> dict[str, Any]:
    """One finished game per player: won, boxes shut, the counted score and the review's totals."""
    players = {}
    for name in game.players:
        mine = review.players[name]
        players[name] = {
            "won": name in game.winners,
            "boxes_shut": sum(1 for t in game.turns if t.player == name and t.shut_box),
            "turns_verified": sum(1 for t in game.turns if t.player == name and t.ended and not t.unverified),
            "turns_unverified": sum(1 for t in game.turns if t.player == name and t.ended and t.unverified),
            "score": player_score(game, name),
            "decisions": mine.decisions,
            **mine.counts(),
            "accuracy": mine.accuracy,
            "loss": mine.loss,
        }
    return {"v": RECORD_VERSION, "match": game.rules.match, "objective": review.objective, "players": players}


@dataclass
class PlayerStats:
    """One player's totals across games."""

    name: str
    games: int = 0
    wins: int = 0
    boxes_shut: int = 0
    turns_verified: int = 0
    turns_unverified: int = 0
    decisions: int = 0
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0
    loss: float = 0.0
    accuracies: list[float] = field(default_factory=list)  #: per game with a decision, 0-100
    objectives: set[str] = field(default_factory=set)  #: the objectives the games were measured by
    scores: dict[str, list[int]] = field(default_factory=dict)  #: match format -> counted scores

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def accuracy(self) -> float | None:
        """The mean of the player's per-game accuracies (0-100; None without a decision)."""
        return sum(self.accuracies) / len(self.accuracies) if self.accuracies else None

    @property
    def mean_loss(self) -> float | None:
        """Mean loss per decision (0 without decisions; None when the games' objectives differ)."""
        if len(self.objectives) > 1:
            return None
        return self.loss / self.decisions if self.decisions else 0.0

    @property
    def mistakes_per_game(self) -> float:
        return self.mistakes / self.games if self.games else 0.0

    def mean_score(self) -> dict[str, float]:
        """Match format -> the mean of the scores that format counts."""
        return {match: sum(v) / len(v) for match, v in sorted(self.scores.items()) if v}

    def as_dict(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "win_rate": self.win_rate, "boxes_shut": self.boxes_shut,
                "turns_verified": self.turns_verified, "turns_unverified": self.turns_unverified,
                "mean_score": self.mean_score(), "decisions": self.decisions, "accuracy": self.accuracy,
                "inaccuracies": self.inaccuracies, "mistakes": self.mistakes, "blunders": self.blunders,
                "loss": self.loss if len(self.objectives) <= 1 else None, "mean_loss": self.mean_loss,
                "mistakes_per_game": self.mistakes_per_game}


def add_up(records: Iterable[Mapping[str, Any]]) -> dict[str, PlayerStats]:
    """Every player's totals from the game records, by name as recorded."""
    stats: dict[str, PlayerStats] = {}
    for record in records:
        match = record["match"]
        for name, part in record["players"].items():
            s = stats.setdefault(name, PlayerStats(name))
            s.games += 1
            s.wins += bool(part["won"])
            s.boxes_shut += part["boxes_shut"]
            s.turns_verified += part.get("turns_verified", 0)
            s.turns_unverified += part.get("turns_unverified", 0)
            s.decisions += part["decisions"]
            s.inaccuracies += part["inaccuracies"]
            s.mistakes += part["mistakes"]
            s.blunders += part["blunders"]
            s.loss += part["loss"]
            s.objectives.add(record["objective"])
            if part["accuracy"] is not None:
                s.accuracies.append(part["accuracy"])
            if part["score"] is not None:
                s.scores.setdefault(match, []).append(part["score"])
    return stats


def objectives_of(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Objective -> how many of the records were measured by it."""
    out: dict[str, int] = {}
    for record in records:
        out[record["objective"]] = out.get(record["objective"], 0) + 1
    return out


def leaderboard(stats: Mapping[str, PlayerStats]) -> list[PlayerStats]:
    """Players ranked: most wins, then the higher win rate, then the higher accuracy (none: last), then name."""
    return sorted(stats.values(), key=lambda s: (-s.wins, -s.win_rate, -(s.accuracy if s.accuracy is not None
                                                                           else -1.0), s.name))
