"""The rules of one throw: which dice may be thrown, which tiles a throw may shut, what is left scores.

Pure functions over a :class:`shutbox.kit.model.Rules` and a set of tile numbers; no I/O. The same
functions serve the uncovering half of the long game, where the tiles still *shut* play the part
the open tiles play when shutting (see :mod:`shutbox.game.replay`).

Illegal choices raise :class:`IllegalMove` whose message is one sentence a player understands,
e.g. ``6 + 4 = 10, the throw was 7`` or ``one die is not allowed: tile 8 is still open (one die once tiles
7, 8 and 9 are shut)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache

from shutbox.base.errors import ShutboxError
from shutbox.kit.model import Rules

#: Pip values of one die.
DIE_FACES = (1, 2, 3, 4, 5, 6)
#: ``high-shut``: one die once every tile from this one up is shut (the woodworking card's "no tile higher than 6").
HIGH_TILE = 7
#: ``shut-789``: one die once these tiles are shut, whatever the tile count (the pub rules' literal words).
LITERAL_TILES = (7, 8, 9)
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


def sum_text(tiles: Iterable[int]) -> str:
    """``6 + 4 = 10`` for two tiles or more, ``tile 6`` for one."""
    items = sorted(tiles)
    return f"{plus(items)} = {sum(items)}" if len(items) > 1 else f"tile {sum(items)}"


def tiles_out(rules: Rules, tiles: Iterable[int]) -> tuple[int, ...]:
    """The box's tiles not in ``tiles``, ascending: the shut tiles of a set of open ones, and the other way round."""
    present = set(tiles)
    return tuple(t for t in rules.tile_numbers if t not in present)


def high_tiles(rules: Rules) -> tuple[int, ...]:
    """The tiles that must be out of play before one die is allowed (``high-shut``, ``shut-789``)."""
    return _high_tiles(rules.one_die, rules.tiles)


@lru_cache(maxsize=256)
def _high_tiles(one_die: str, tiles: int) -> tuple[int, ...]:
    if one_die == "shut-789":
        return tuple(t for t in LITERAL_TILES if t <= tiles)
    return tuple(range(HIGH_TILE, tiles + 1))


def _span(tiles: Sequence[int]) -> str:
    """Tiles in words, runs of four or more shortened: ``7–12``, ``7, 8 and 9``, ``7–24 and 26–29``."""
    runs: list[list[int]] = []
    for t in sorted(tiles):
        if runs and t == runs[-1][-1] + 1:
            runs[-1].append(t)
        else:
            runs.append([t])
    parts: list[str] = []
    for run in runs:
        parts.extend([f"{run[0]}–{run[-1]}"] if len(run) > 3 else [str(t) for t in run])
    return _or_list(parts, "and")


def one_die_when(rules: Rules, done: str = "shut") -> str | None:
    """When one die is allowed, in words (``once tiles 7–9 are shut``); None under ``never``.

    ``done`` words a tile out of play (``shut``; ``open again`` when uncovering in the long game).
    """
    if rules.one_die in ("high-shut", "shut-789"):
        high = high_tiles(rules)
        return f"once tiles {_span(high)} are {done}" if high else "always"
    left = "open" if done == "shut" else "still shut"
    if rules.one_die == "sum-6":
        return f"when the tiles {left} total {ONE_DIE_SUM} or less"
    if rules.one_die == "sum-5":
        return f"when the tiles {left} total less than {ONE_DIE_SUM}"
    return None


def one_die_allowed(rules: Rules, open_tiles: Iterable[int]) -> bool:
    """May one die be thrown with these tiles in play (open; uncovering: still shut)?"""
    if rules.one_die == "never":
        return False
    if rules.one_die in ("high-shut", "shut-789"):
        return set(open_tiles).isdisjoint(high_tiles(rules))
    total = sum(open_tiles)
    return total <= ONE_DIE_SUM if rules.one_die == "sum-6" else total < ONE_DIE_SUM


def one_die_refusal(rules: Rules, open_tiles: Iterable[int], left: str = "open") -> str | None:
    """Why one die is not allowed now, or None when it is.

    ``open_tiles`` are the tiles in play; ``left`` is what they are on the board (``open``, or
    ``shut`` for the long game's uncovering player), so the message says what is true on the board.
    """
    tiles = set(open_tiles)
    if one_die_allowed(rules, tiles):
        return None
    if rules.one_die == "never":
        return "one die is never allowed (one-die rule 'never')"
    if rules.one_die in ("high-shut", "shut-789"):
        blocking = sorted(tiles & set(high_tiles(rules)))
        word, verb = ("tile", "is") if len(blocking) == 1 else ("tiles", "are")
        done = "shut" if left == "open" else "open again"
        return (f"one die is not allowed: {word} {_span(blocking)} {verb} still {left} "
                f"(one die {one_die_when(rules, done)})")
    total = sum(tiles)
    bound = f"{ONE_DIE_SUM} or less" if rules.one_die == "sum-6" else f"less than {ONE_DIE_SUM}"
    return f"one die is allowed only when the {left} tiles add up to {bound} (they add up to {total})"


def dice_counts(rules: Rules, open_tiles: Iterable[int]) -> tuple[int, ...]:
    """How many dice the player may throw now: all of them (``rules.dice``), one or all, or one (forced).

    With more than two dice the one-die rules mean exactly one die, not one die fewer.
    """
    if not one_die_allowed(rules, open_tiles):
        return (rules.dice,)
    return (1,) if rules.one_die_forced else (1, rules.dice)


def throw_totals(count: int) -> range:
    """The totals ``count`` dice can show."""
    return range(count, 6 * count + 1)


@cache
def throw_distribution(count: int) -> tuple[tuple[int, float], ...]:
    """(total, chance) of every total ``count`` fair dice can show, ascending (exact counts of the ways,
    divided once). The one dice distribution: the solver, reviews and the strategy card's walks read it."""
    ways: dict[int, int] = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for face in DIE_FACES:
                nxt[total + face] = nxt.get(total + face, 0) + n
        ways = nxt
    whole = len(DIE_FACES) ** count
    return tuple((t, ways[t] / whole) for t in throw_totals(count))


def is_double(dice: Sequence[int]) -> bool:
    """A double: every die shows the same pips (two or more dice)."""
    return len(dice) >= 2 and len(set(dice)) == 1


@cache
def double_chances(count: int) -> dict[int, float]:
    """Per total, the chance that ``count`` dice show it as a double (:func:`is_double`); none for one die."""
    if count < 2:
        return {}
    return {count * face: len(DIE_FACES) ** -count for face in DIE_FACES}


def only_a_double(rules: Rules, open_tiles: Iterable[int], total: int) -> bool:
    """A throw recorded by ``total`` alone was a double: only every die a six shows it, or every die a one
    while one die cannot show it (more than six dice, or one die not allowed with these tiles in play)."""
    d = rules.dice
    return total == 6 * d or (total == d and (d > 6 or dice_counts(rules, open_tiles) == (d,)))


def dice_words(count: int) -> str:
    """``one die``, ``two dice``, ``6 dice``."""
    return {1: "one die", 2: "two dice"}.get(count, f"{count} dice")


def per_throw_text(rules: Rules) -> str:
    """``any number of tiles per throw`` or ``at most 2 tiles per throw``."""
    most = rules.max_tiles_per_throw
    return "any number of tiles per throw" if most is None else f"at most {most} tiles per throw"


def rules_text(rules: Rules, *, brief: bool = False, match: bool = True) -> str:
    """A rule set in one line, as every command and screen words it: ``drop-out to 45, 9 tiles, two dice,
    one die high-shut, at most 2 tiles per throw, sum scoring, stake 1``. ``brief``: the match, the tiles and
    the scoring only (a screen's head); ``match=False`` leaves the match format out (what the solver ignores)."""
    parts = [f"{rules.match}" + (f" to {rules.limit}" if rules.limit and not brief else "")] if match else []
    parts.append(f"{rules.tiles} tiles")
    if not brief:
        forced = ", forced" if rules.one_die_forced and rules.one_die != "never" else ""
        parts += [dice_words(rules.dice), f"one die {rules.one_die}{forced}"]
        parts += [per_throw_text(rules)] if rules.max_tiles_per_throw is not None else []
    parts.append(f"{rules.scoring} scoring")
    if rules.stake and not brief and match:
        parts.append(f"stake {rules.stake:g}")
    return ", ".join(parts)


def check_dice(rules: Rules, open_tiles: Iterable[int], dice: Sequence[int], left: str = "open") -> int:
    """Validate a throw (the pips of each die) against the rules; return its total."""
    tiles = tuple(open_tiles)
    if len(dice) not in (1, rules.dice):
        raise IllegalMove(f"a throw is one die or {dice_words(rules.dice)}, not {len(dice)}")
    for pips in dice:
        if isinstance(pips, bool) or not isinstance(pips, int) or pips not in DIE_FACES:
            raise IllegalMove(f"a die shows 1 to 6, not {pips!r}")
    check_dice_count(rules, tiles, len(dice), left)
    return sum(dice)


def check_dice_count(rules: Rules, open_tiles: Iterable[int], count: int, left: str = "open") -> None:
    """Raise unless ``count`` dice may be thrown with these tiles in play."""
    tiles = tuple(open_tiles)
    if count == 1:
        refusal = one_die_refusal(rules, tiles, left)
        if refusal:
            raise IllegalMove(refusal)
    elif count == rules.dice and dice_counts(rules, tiles) == (1,):
        raise IllegalMove(f"{dice_words(count)} are not allowed: one die is allowed now and the rules force it "
                          "(one-die-forced)")


def check_total(rules: Rules, open_tiles: Iterable[int], total: int, left: str = "open") -> None:
    """Raise unless some allowed number of dice can show ``total`` with these tiles in play."""
    tiles = tuple(open_tiles)
    counts = dice_counts(rules, tiles)
    if any(total in throw_totals(c) for c in counts):
        return
    d = rules.dice
    all_dice = f"{dice_words(d)} throw {d} to {6 * d}"
    if counts == (d,):
        refusal = one_die_refusal(rules, tiles, left)
        if 1 <= total <= 6 and refusal:
            raise IllegalMove(f"a throw of {total} needs one die, and {refusal}; {all_dice}")
        raise IllegalMove(f"a throw of {total} is impossible with {dice_words(d)} ({d} to {6 * d})")
    if counts == (1,):
        raise IllegalMove(f"a throw of {total} is impossible: one die must be thrown now, it shows 1 to 6")
    raise IllegalMove(f"a throw of {total} is impossible: one die shows 1 to 6, {all_dice}")


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
    """Every subset of ``open_tiles`` adding up to ``throw`` (at most ``max_tiles``), largest tiles first."""
    candidates = [t for t in open_tiles if t <= throw]  # ascending
    most = len(candidates) if max_tiles is None else max_tiles
    below = [0]  # below[i]: the sum of candidates[:i], to prune branches that cannot reach the throw
    for t in candidates:
        below.append(below[-1] + t)
    found: list[tuple[int, ...]] = []

    def extend(chosen: list[int], limit: int, left: int) -> None:
        """Add tiles from candidates[:limit], largest first, until ``left`` is used up."""
        if left == 0:
            found.append(tuple(reversed(chosen)))
            return
        if len(chosen) == most or below[limit] < left:
            return
        for i in range(limit - 1, -1, -1):
            if candidates[i] <= left:
                chosen.append(candidates[i])
                extend(chosen, i, left - candidates[i])
                chosen.pop()

    extend([], len(candidates), throw)
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
    if sum(chosen) != throw:
        raise IllegalMove(f"{sum_text(chosen)}, the throw was {throw}")
    limit = rules.max_tiles_per_throw
    if limit is not None and len(chosen) > limit:
        raise IllegalMove(
            f"at most {limit} tiles may be {'shut' if verb == 'shut' else verb + 'ed'} with one throw, "
            f"not {len(chosen)} ({plus(chosen)})"
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
