"""The rules of one throw: which dice may be thrown, which tiles a throw may shut, what is left scores.

Pure functions over a :class:`shutbox.model.Rules` and a set of tile numbers; no I/O. The same
functions serve the uncovering half of the long game, where the tiles still *shut* play the part
the open tiles play when shutting (see :mod:`shutbox.game.replay`).

Illegal choices raise :class:`IllegalMove` whose message is one sentence a player understands,
e.g. ``6 + 4 = 10, the throw was 7`` or ``one die is not allowed while 7, 8 or 9 is open``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations

from shutbox.errors import ShutboxError
from shutbox.model import Rules

#: Pip values of one die.
DIE_FACES = (1, 2, 3, 4, 5, 6)
#: Lowest tile that must be shut before one die is allowed under ``high-shut``.
HIGH_TILE = 7
#: The open tiles must add up to at most this for ``sum-6`` (and to less than it for ``sum-5``).
ONE_DIE_SUM = 6


class IllegalMove(ShutboxError):
    """A throw, a set of tiles or an event the rules do not allow; the message says why."""


def _or_list(items: Sequence[object], word: str = "or") -> str:
    parts = [str(i) for i in items]
    if len(parts) <= 1:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} {word} {parts[-1]}"


def plus(tiles: Iterable[int]) -> str:
    """``6 + 4`` for the tiles 6 and 4, largest first."""
    return " + ".join(str(t) for t in sorted(tiles, reverse=True))


def high_tiles(rules: Rules) -> tuple[int, ...]:
    """The tiles that must be shut before one die is allowed under ``high-shut``."""
    return tuple(t for t in rules.tile_numbers if t >= HIGH_TILE)


def one_die_when(rules: Rules) -> str | None:
    """When one die is allowed, in words (``once tiles 7–9 are shut``); None under ``never``."""
    if rules.one_die == "high-shut":
        high = high_tiles(rules)
        return f"once tiles {high[0]}–{high[-1]} are shut" if high else "always"
    if rules.one_die == "sum-6":
        return f"when the open tiles total {ONE_DIE_SUM} or less"
    if rules.one_die == "sum-5":
        return f"when the open tiles total less than {ONE_DIE_SUM}"
    return None


def one_die_allowed(rules: Rules, open_tiles: Iterable[int]) -> bool:
    """May one die be thrown with these tiles open (the tiles still in play)?"""
    return one_die_refusal(rules, open_tiles) is None


def one_die_refusal(rules: Rules, open_tiles: Iterable[int]) -> str | None:
    """Why one die is not allowed now, or None when it is."""
    tiles = set(open_tiles)
    if rules.one_die == "never":
        return "one die is never allowed (one-die rule 'never')"
    if rules.one_die == "high-shut":
        high = high_tiles(rules)
        if tiles & set(high):
            return f"one die is not allowed while {_or_list(high)} is open"
        return None
    total = sum(tiles)
    if rules.one_die == "sum-6" and total > ONE_DIE_SUM:
        return f"one die is allowed only when the open tiles add up to {ONE_DIE_SUM} or less (they add up to {total})"
    if rules.one_die == "sum-5" and total >= ONE_DIE_SUM:
        return f"one die is allowed only when the open tiles add up to less than {ONE_DIE_SUM} (they add up to {total})"
    return None


def dice_counts(rules: Rules, open_tiles: Iterable[int]) -> tuple[int, ...]:
    """How many dice the player may throw now: ``(2,)``, ``(1, 2)`` or ``(1,)`` (one die forced)."""
    if not one_die_allowed(rules, open_tiles):
        return (2,)
    return (1,) if rules.one_die_forced else (1, 2)


def throw_totals(count: int) -> range:
    """The totals ``count`` dice can show."""
    return range(count, 6 * count + 1)


def check_dice(rules: Rules, open_tiles: Iterable[int], dice: Sequence[int]) -> int:
    """Validate a throw (the pips of each die) against the rules; return its total."""
    tiles = tuple(open_tiles)
    if len(dice) not in (1, 2):
        raise IllegalMove(f"a throw is one or two dice, not {len(dice)}")
    for pips in dice:
        if isinstance(pips, bool) or not isinstance(pips, int) or pips not in DIE_FACES:
            raise IllegalMove(f"a die shows 1 to 6, not {pips!r}")
    check_dice_count(rules, tiles, len(dice))
    return sum(dice)


def check_dice_count(rules: Rules, open_tiles: Iterable[int], count: int) -> None:
    """Raise unless ``count`` dice may be thrown with these tiles open."""
    tiles = tuple(open_tiles)
    if count == 1:
        refusal = one_die_refusal(rules, tiles)
        if refusal:
            raise IllegalMove(refusal)
    elif count == 2 and dice_counts(rules, tiles) == (1,):
        raise IllegalMove("two dice are not allowed: one die is allowed now and the rules force it (one-die-forced)")


def check_total(rules: Rules, open_tiles: Iterable[int], total: int) -> None:
    """Raise unless some allowed number of dice can show ``total`` with these tiles open."""
    tiles = tuple(open_tiles)
    counts = dice_counts(rules, tiles)
    if any(total in throw_totals(c) for c in counts):
        return
    if counts == (2,):
        refusal = one_die_refusal(rules, tiles)
        if 1 <= total <= 6 and refusal:
            raise IllegalMove(f"a throw of {total} needs one die, and {refusal}; two dice throw 2 to 12")
        raise IllegalMove(f"a throw of {total} is impossible with two dice (2 to 12)")
    if counts == (1,):
        raise IllegalMove(f"a throw of {total} is impossible: one die must be thrown now, it shows 1 to 6")
    raise IllegalMove(f"a throw of {total} is impossible: one die shows 1 to 6, two dice 2 to 12")


def parse_tiles(rules: Rules, tiles: Iterable[object], what: str = "tile") -> tuple[int, ...]:
    """Validate tile numbers (on the box, none twice); return them sorted."""
    seen: list[int] = []
    for t in tiles:
        if isinstance(t, bool) or not isinstance(t, int):
            raise IllegalMove(f"{what} {t!r} is not a tile number (tiles 1 to {rules.tiles})")
        if t not in rules.tile_numbers:
            raise IllegalMove(f"{what} {t} is not on the box (tiles 1 to {rules.tiles})")
        if t in seen:
            raise IllegalMove(f"{what} {t} is listed twice")
        seen.append(t)
    return tuple(sorted(seen))


@lru_cache(maxsize=4096)
def _moves(open_tiles: tuple[int, ...], throw: int, max_tiles: int | None) -> tuple[tuple[int, ...], ...]:
    candidates = [t for t in open_tiles if t <= throw]
    most = len(candidates) if max_tiles is None else min(max_tiles, len(candidates))
    found = [c for k in range(1, most + 1) for c in combinations(candidates, k) if sum(c) == throw]
    return tuple(sorted(found, key=move_preference))


def move_preference(move: Sequence[int]) -> tuple[int, ...]:
    """Sort key putting the move with the largest tiles first: {8} before {7, 1} before {6, 2}."""
    return tuple(-t for t in sorted(move, reverse=True))


def legal_moves(rules: Rules, open_tiles: Iterable[int], throw: int) -> tuple[tuple[int, ...], ...]:
    """Every set of open tiles adding up to ``throw`` (tiles ascending), largest tiles first.

    Respects ``max_tiles_per_throw``; an empty result means the throw ends the turn.
    """
    return _moves(tuple(sorted(set(open_tiles))), throw, rules.max_tiles_per_throw)


def check_move(rules: Rules, open_tiles: Iterable[int], throw: int, tiles: Iterable[object],
               verb: str = "shut", state_word: str = "shut") -> tuple[int, ...]:
    """Validate shutting ``tiles`` with ``throw``; return them sorted.

    ``verb``/``state_word`` word the messages for uncovering (``uncover``/``open``).
    """
    chosen = parse_tiles(rules, tiles)
    available = set(open_tiles)
    if not chosen:
        raise IllegalMove(f"name at least one tile to {verb}")
    for t in chosen:
        if t not in available:
            raise IllegalMove(f"tile {t} is already {state_word}")
    total = sum(chosen)
    if total != throw:
        sums = f"{plus(chosen)} = {total}" if len(chosen) > 1 else f"tile {total}"
        raise IllegalMove(f"{sums}, the throw was {throw}")
    limit = rules.max_tiles_per_throw
    if limit is not None and len(chosen) > limit:
        raise IllegalMove(
            f"at most {limit} tiles may be {state_word} with one throw, not {len(chosen)} ({plus(chosen)})"
        )
    return chosen


def score(rules: Rules, open_tiles: Iterable[int]) -> int:
    """The score of the tiles left open: their sum, or (``digits``) their labels read left to right."""
    tiles = sorted(open_tiles)
    if not tiles:
        return 0
    if rules.scoring == "digits":
        return int("".join(str(t) for t in tiles))
    return sum(tiles)
