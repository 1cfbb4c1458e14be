"""Where a player's turns go under a solver policy: exact state-visit probabilities and long-game lengths.

A player following a policy moves from one set of tiles in play (a bitmask, as in
:mod:`shutbox.game.solver`) to the next with known probabilities: the policy picks one or two dice,
the dice fall, the policy picks the move. Two policies are walked:

- ``optimal``: the solver's best move and dice choice for the objective (ties broken as
  :func:`~shutbox.game.solver.rank_moves` breaks them);
- ``greedy-largest``: the rules engine's first legal move (the largest tiles), one die whenever allowed.

From these transitions come, exactly (no sampling):

- :func:`visit_probabilities`: the chance a turn passes through each state (the strategy card's
  common positions);
- :func:`long_game_lengths`: the distribution of the number of turns a long game lasts. In the long
  game the next player works on the complement of what the last turn left (the uncoverer on the
  tiles still shut, the shutter on the tiles open again), with the same rules on the tiles in play,
  so one turn map serves both roles; a dead double is thrown again instead of ending the turn.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import sparse

from shutbox.base.errors import ShutboxError
from shutbox.game import solver
from shutbox.game.policy import strategy_dice
from shutbox.game.rules import double_chances, legal_moves, throw_distribution
from shutbox.game.solution import ranked_moves
from shutbox.game.solver import mask_of, tiles_of
from shutbox.kit.model import MIN_TILES, Rules

POLICIES = ("optimal", "greedy-largest")
LONG_GAME_QUANTILE = 0.99  #: a long-game pad's rows cover this share of games
MAX_TURNS = 2000  #: a safety bound on the long-game walk (games that long have negligible chance)
WALK_MAX_TILES = 12  #: the exact walks visit every state: up to 12 tiles that takes about a second


@cache
def _dice_outcomes(count: int) -> tuple[tuple[float, int, bool], ...]:
    """(probability, total, is a double) of each way ``count`` dice can fall: the rules engine's
    :func:`~shutbox.game.rules.throw_distribution`, each total's doubles (:func:`~shutbox.game.rules.double_chances`)
    apart."""
    doubles = double_chances(count)
    out: list[tuple[float, int, bool]] = []
    for total, p in throw_distribution(count):
        double = doubles.get(total, 0.0)
        out += [(p - double, total, False)] + ([(double, total, True)] if double else [])
    return tuple(out)


def _chosen_move(rules: Rules, policy: str, solution: solver.Solution, state: int, total: int) -> int | None:
    """The state the policy leaves after ``total`` from ``state``; None when no move exists."""
    tiles = tiles_of(state)
    if policy == "greedy-largest":
        moves = legal_moves(rules, tiles, total)  # largest tiles first
    else:
        moves = ranked_moves(solution, tiles, total)  # the solver's best first
    return state & ~mask_of(moves[0]) if moves else None


def _dice_choice(rules: Rules, policy: str, solution: solver.Solution, state: int) -> int:
    """How many dice the policy throws in ``state``: the solver's choice (:meth:`Solution.dice`), or the named
    strategy's (:func:`~shutbox.game.policy.strategy_dice`)."""
    if policy == "greedy-largest":
        return strategy_dice(rules, tiles_of(state))
    return solution.dice(tiles_of(state))


@dataclass(frozen=True)
class TurnMap:
    """One turn's transitions for every state, as sparse matrices over the 2**N states.

    ``step[s, s2]``: the chance that the next throw takes the player from ``s`` to ``s2``;
    ``stop[s]``: the chance it ends the turn in ``s`` (no move). With ``rethrow`` (long game), a dead
    double's chance is shared out over the other outcomes, as throwing again does.
    """

    tiles: int
    step: sparse.csr_matrix
    stop: np.ndarray
    dice: np.ndarray  #: the dice count thrown in each state (0 for the shut box)


@cache
def turn_map(rules: Rules, objective: str = "shut", policy: str = "optimal", rethrow: bool = False) -> TurnMap:
    """The policy's transitions (cached per settings; ``rules.match`` and ``rules.stake`` do not matter)."""
    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r}; allowed: {', '.join(POLICIES)}")
    solution = solver.solve(rules, objective)
    n = 1 << rules.tiles
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    stop = np.zeros(n)
    dice = np.zeros(n, dtype=np.int64)
    for state in range(1, n):
        count = _dice_choice(rules, policy, solution, state)
        dice[state] = count
        after: dict[int, float] = {}
        dead = again = 0.0
        for p, total, double in _dice_outcomes(count):
            nxt = _chosen_move(rules, policy, solution, state, total)
            if nxt is not None:
                after[nxt] = after.get(nxt, 0.0) + p
            elif rethrow and double:
                again += p
            else:
                dead += p
        scale = 1.0 / (1.0 - again)
        for nxt, p in after.items():
            rows.append(state)
            cols.append(nxt)
            vals.append(p * scale)
        stop[state] = dead * scale
    step = sparse.csr_matrix((vals, (rows, cols)), shape=(n, n))
    return TurnMap(rules.tiles, step, stop, dice)


def visit_probabilities(rules: Rules, objective: str = "shut", policy: str = "optimal") -> np.ndarray:
    """Per state: the chance that one turn from the full box passes through it (the start counts, 1.0).

    Every move shuts at least one tile, so a state is visited at most once per turn and the chances
    are computed exactly in one pass over the states from most tiles open to fewest.
    """
    tm = turn_map(rules, objective, policy)
    n = 1 << rules.tiles
    visit = np.zeros(n)
    visit[n - 1] = 1.0
    step_t = tm.step.T.tocsr()
    for state in sorted(range(n - 1), key=lambda s: -s.bit_count()):
        lo, hi = step_t.indptr[state], step_t.indptr[state + 1]
        visit[state] = float(np.dot(step_t.data[lo:hi], visit[step_t.indices[lo:hi]]))
    return visit


def _turn_ends(tm: TurnMap) -> tuple[sparse.csr_matrix, np.ndarray]:
    """For a turn starting with ``s`` in play: ``ends[s, s2]``, the chance it stops with ``s2`` still in
    play, and ``wins[s]``, the chance it moves every tile in play (shuts or uncovers the box)."""
    n = 1 << tm.tiles
    stop = tm.stop.copy()
    stop[0] = 1.0  # nothing in play (the shutter moved nothing): no throw can move a tile
    stop_m = sparse.diags(stop, format="csr")
    keep = sparse.diags(np.r_[0.0, np.ones(n - 1)], format="csr")  # drops the mass that finished
    reach = sparse.identity(n, format="csr")
    ends = sparse.csr_matrix((n, n))
    wins = np.zeros(n)
    for _ in range(tm.tiles + 1):  # each move takes at least one tile: at most ``tiles`` moves a turn
        ends = ends + reach @ stop_m
        reach = sparse.csr_matrix(reach @ tm.step)
        wins += reach[:, 0].toarray().ravel()
        reach = sparse.csr_matrix(reach @ keep)
    return sparse.csr_matrix(ends), wins


@dataclass(frozen=True)
class LongGameLength:
    """How many turns long games last: ``ends[k - 1]`` is the chance a game ends on turn ``k``."""

    policy: str
    ends: tuple[float, ...]

    def quantile(self, q: float) -> int:
        """The fewest turns that finish at least a share ``q`` of games."""
        done = 0.0
        for k, p in enumerate(self.ends, start=1):
            done += p
            if done >= q - 1e-12:
                return k
        raise ValueError(f"no game length covers {q:.0%} within {len(self.ends)} turns")

    @property
    def mean(self) -> float:
        return sum(k * p for k, p in enumerate(self.ends, start=1))


@cache
def long_game_lengths(rules: Rules, policy: str = "optimal") -> LongGameLength:
    """The exact distribution of a long game's turn count when both players follow ``policy``."""
    tm = turn_map(rules, "shut", policy, rethrow=True)
    ends, wins = _turn_ends(tm)
    n = 1 << rules.tiles
    full = n - 1
    flip = sparse.csr_matrix((np.ones(n), (np.arange(n), full ^ np.arange(n))), shape=(n, n))
    # in play for the next player: the complement of what the last turn left
    after_turn = sparse.csr_matrix(sparse.csr_matrix(ends @ flip).transpose())
    dist = np.zeros(n)
    dist[full] = 1.0  # the first player shuts, with every tile in play
    finished: list[float] = []
    while dist.sum() > 1e-9 and len(finished) < MAX_TURNS:
        finished.append(float(dist @ wins))
        dist = after_turn @ dist
    return LongGameLength(policy, tuple(finished))


def long_game_turn_rows(rules: Rules) -> int:
    """Turn rows per game on a long-game pad: enough for :data:`LONG_GAME_QUANTILE` of games under
    the longer-running of :data:`POLICIES` (the solver's best play and shutting the largest tiles).

    Raises :class:`ShutboxError` above :data:`WALK_MAX_TILES` tiles, where it is not measured.
    """
    if rules.tiles > WALK_MAX_TILES:
        # the example is the largest measured set with its own dice (the asked-for dice may not fit it: 9 dice
        # are for 37 tiles and up), so the message never names a combination nobody asked for
        largest = dataclasses.replace(rules, tiles=WALK_MAX_TILES, dice=None)
        raise ShutboxError(
            f"--tiles {rules.tiles}: long-game pads are measured up to {WALK_MAX_TILES} tiles (their turn rows come "
            f"from the exact length of the game; with {WALK_MAX_TILES} tiles and {largest.dice} dice "
            f"{LONG_GAME_QUANTILE:.0%} of long games end within {long_game_turn_rows(largest)} turns); allowed: "
            f"--tiles from {MIN_TILES} to {WALK_MAX_TILES} with --match long-game")
    return max(long_game_lengths(rules, p).quantile(LONG_GAME_QUANTILE) for p in POLICIES)


__all__ = ["LONG_GAME_QUANTILE", "POLICIES", "WALK_MAX_TILES", "LongGameLength", "TurnMap", "long_game_lengths",
           "long_game_turn_rows", "turn_map", "visit_probabilities"]
