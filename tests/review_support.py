"""Recorded games for the review and stats tests and benches: played by a seeded player through the rules engine."""

from __future__ import annotations

import random

from shutbox.game import solver
from shutbox.game.replay import UNCOVER, Game
from shutbox.kit.model import Rules


def play_game(rules: Rules, names: list[str], seed: int, skill: float = 0.6, max_turns: int = 200) -> Game:
    """A whole game (unless ``max_turns`` runs out): random dice; each choice the solver's best with
    probability ``skill``, otherwise a random legal one. Dice are recorded as pips."""
    rng = random.Random(seed)
    game = Game(rules).add_players(*names)
    best = solver.solve(rules, "shut")
    while not game.finished and len(game.turns) <= max_turns:
        in_play = game.in_play
        counts = game.dice_counts()
        if len(counts) > 1 and rng.random() < skill:
            count = 1 if best.one_die[solver.mask_of(in_play)] else 2
        else:
            count = rng.choice(counts)
        game.throw(*(rng.randint(1, 6) for _ in range(count)))
        if game.pending is None or game.pending.total is None:
            continue
        moves = game.legal_moves()
        move = solver.rank_moves(best, in_play, game.pending.total)[0].tiles if rng.random() < skill else \
            rng.choice(moves)
        if game.phase == UNCOVER:
            game.uncover(*move)
        else:
            game.shut(*move)
    return game


def long_enough(rules: Rules, names: list[str], turns: int, first_seed: int = 0) -> Game:
    """The first seeded finished game with at least ``turns`` turns."""
    for seed in range(first_seed, first_seed + 500):
        game = play_game(rules, names, seed)
        if game.finished and len(game.turns) >= turns:
            return game
    raise AssertionError(f"no game of {turns} turns in 500 seeds")


def save_game(store, game) -> int:
    """Store a game (every event, finished or not) as the scorekeeper would; its id."""
    from shutbox.game.gamefile import settings_of

    events = game.to_events()
    gid = store.new_game(settings_of(game.rules), events[0])
    for e in events[1:]:
        store.append(gid, e, finished=False)
    if game.finished:
        store.finish(gid)
    return gid
