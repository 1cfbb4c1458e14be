"""``shutbox solve`` and ``shutbox advise``: the exact solver on the command line."""

from __future__ import annotations

import argparse
import dataclasses
import re

from shutbox.base.errors import ShutboxError
from shutbox.base.text import quoted
from shutbox.cli.commandspec import Command
from shutbox.game.policy import OBJECTIVES, STRATEGIES, Setup
from shutbox.game.rules import IllegalMove, check_total, dice_words, parse_tiles, rules_text, score
from shutbox.kit.model import Kit, Rules

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

_OBJECTIVE_HELP = "shut: maximise the chance to shut the box; score: minimise the expected final score"


def _solve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--objective", choices=OBJECTIVES, default="shut", help=f"{_OBJECTIVE_HELP} [default shut]")
    p.add_argument("--state", metavar="TILES", help='open tiles, e.g. "1 2 4" [default: all open]')
    p.add_argument("--strategy", choices=STRATEGIES, default="optimal",
                   help="policy to evaluate [default optimal]")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _advise_arguments(a: argparse.ArgumentParser) -> None:
    a.add_argument("--open", metavar="TILES", help='open tiles, e.g. "1 2 3 4 5 6 7 8 9" [default: all open]')
    a.add_argument("--throw", metavar="N", required=True, help="the total thrown")
    a.add_argument("--objective", choices=OBJECTIVES, default="shut", help=f"{_OBJECTIVE_HELP} [default shut]")
    a.add_argument("--json", action="store_true", help="print one JSON object")


def parse_open(rules: Rules, text: str | None, flag: str) -> tuple[int, ...]:
    """Tiles from ``"1 2 4"`` (spaces or commas); all tiles when not given."""
    if text is None:
        return rules.tile_numbers
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    numbers: list[int] = []
    for part in parts:
        if not re.fullmatch(r"[0-9]{1,6}", part):
            raise ShutboxError(f"{flag} {quoted(text)}: {quoted(part)} is not a tile number (tiles 1 to {rules.tiles})")
        numbers.append(int(part))
    try:
        return parse_tiles(rules, numbers)
    except IllegalMove as exc:
        raise ShutboxError(f"{flag} {quoted(text)}: {exc}") from None


def _settings(rules: Rules) -> dict[str, Any]:
    return dataclasses.asdict(Setup.of(rules))


def _method_json(advisor: Any) -> dict[str, Any]:
    """``exact`` and ``method`` for a JSON answer."""
    return {"exact": advisor.exact, "method": advisor.method}


def _pm(value: float, stderr: float | None, percent: bool) -> str:
    """``12.3400%`` (exact: ``stderr`` None) or, for an estimate, ``12.34% ± 0.36%``."""
    if percent:
        return f"{value:.4%}" if stderr is None else f"{value:.2%} ± {stderr:.2%}"
    return f"{value:.4f}" if stderr is None else f"{value:.2f} ± {stderr:.2f}"


def _tiles_text(tiles: tuple[int, ...]) -> str:
    return " ".join(map(str, tiles)) if tiles else "none (box shut)"


def run_solve(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.game.solvercache import cached_advisor

    rules = kit.rules
    open_tiles = parse_open(rules, args.state, "--state")
    advisor = cached_advisor(rules, args.objective, args.strategy)
    value = advisor.value(open_tiles)
    dice = advisor.dice(open_tiles) if open_tiles else None
    if args.json:
        out = {"settings": _settings(rules), "state": list(open_tiles), "objective": args.objective,
               "strategy": args.strategy, **_method_json(advisor), "p_shut": value.p_shut,
               "expected_score": value.expected_score, "dice": dice}
        if not advisor.exact:
            out["stderr"] = {"p_shut": value.p_stderr, "expected_score": value.score_stderr}
        import json

        print(json.dumps(out))
        return 0
    policy = "optimal, " + args.objective if args.strategy == "optimal" else args.strategy
    print(rules_text(rules, match=False))
    print(f"open tiles:           {_tiles_text(open_tiles)}")
    print(f"policy:               {policy}")
    print(f"method:               {advisor.method}")
    if not advisor.exact:
        print("                      approximate: this set is beyond the exact solver's limit; the optimum is "
              "at least this good")
    approx = not advisor.exact
    print(f"chance to shut box:   {_pm(value.p_shut, value.p_stderr if approx else None, True)}")
    print(f"expected final score: {_pm(value.expected_score, value.score_stderr if approx else None, False)}")
    if dice is not None:
        print(f"next throw:           {dice_words(dice)}")
    return 0


def parse_throw(rules: Rules, open_tiles: tuple[int, ...], text: str) -> int:
    """A throw total the rules allow with these tiles open, or a one-line error."""
    if not re.fullmatch(r"\s*[0-9]{1,6}\s*", text):
        raise ShutboxError(f"--throw {quoted(text)}: not a whole number (one die throws 1 to 6, "
                           f"{dice_words(rules.dice)} {rules.dice} to {6 * rules.dice})")
    total = int(text)
    try:
        check_total(rules, open_tiles, total)
    except IllegalMove as exc:
        raise ShutboxError(f"--throw {total}: {exc}") from None
    return total


def run_advise(args: argparse.Namespace, kit: Kit | None) -> int:
    assert kit is not None
    from shutbox.game.solvercache import cached_advisor

    rules = kit.rules
    open_tiles = parse_open(rules, args.open, "--open")
    if not open_tiles:
        raise ShutboxError(f"--open {args.open!r}: no tile is open, the box is already shut")
    total = parse_throw(rules, open_tiles, args.throw)
    advisor = cached_advisor(rules, args.objective)
    ranked = advisor.rank_moves(open_tiles, total)
    value_of = (lambda m: m.p_shut) if args.objective == "shut" else (lambda m: m.expected_score)
    rows = []
    for m in ranked:
        row = {"tiles": list(m.tiles), "open_after": list(m.open_after), "value": value_of(m),
               "p_shut": m.p_shut, "expected_score": m.expected_score,
               "next_dice": advisor.dice(m.open_after) if m.open_after else None}
        if not advisor.exact:
            row["stderr"] = {"p_shut": m.p_stderr, "expected_score": m.score_stderr}
        rows.append(row)
    final = score(rules, open_tiles)
    if args.json:
        out = {"settings": _settings(rules), "open": list(open_tiles), "throw": total, "objective": args.objective,
               **_method_json(advisor), "moves": rows, "turn_over": not rows,
               "score_if_over": final if not rows else None}
        import json

        print(json.dumps(out))
        return 0
    print(rules_text(rules, match=False))
    print(f"open tiles: {_tiles_text(open_tiles)}; throw: {total}; objective: {args.objective}")
    print(f"method: {advisor.method}" + ("" if advisor.exact else " (approximate: values ± one standard error)"))
    if not rows:
        print(f"No open tiles add up to {total}: the turn is over, scoring {final}.")
        return 0
    width = max(len(" + ".join(map(str, reversed(r["tiles"])))) for r in rows)
    print(f"{'':>4} {'shut':<{width}}  {'leaves open':<26} {'P(shut box)':>15} {'E[score]':>16}")
    for i, (r, m) in enumerate(zip(rows, ranked, strict=True), start=1):
        move = " + ".join(map(str, reversed(r["tiles"])))
        leaves = " ".join(map(str, r["open_after"])) or "none: box shut!"
        p_err, e_err = (None, None) if advisor.exact else (m.p_stderr, m.score_stderr)
        print(f"{i:>3}. {move:<{width}}  {leaves:<26} {_pm(m.p_shut, p_err, True):>15} "
              f"{_pm(m.expected_score, e_err, False):>16}")
    return 0


#: The rule settings a single player's odds depend on (the fields of :class:`Setup`).
SOLVER_SETTINGS = tuple(f"rules.{f.name}" for f in dataclasses.fields(Setup))

COMMANDS = (
    Command("solve", "odds of shutting the box and expected score",
            "Solve every state exactly (up to 18 tiles; larger sets by a stated Monte Carlo method) and print the "
            "value of the start state (or --state) under the optimal policy or a named strategy.", run_solve,
            SOLVER_SETTINGS, _solve_arguments),
    Command("advise", "rank every legal move for a throw",
            "Rank every legal move for a throw, best first, with the value it leaves.", run_advise,
            SOLVER_SETTINGS, _advise_arguments),
)
