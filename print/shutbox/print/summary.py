"""The short rule summary printed on every pad, so a table knows which rules were played."""

from __future__ import annotations

from shutbox.game.formats import match_format
from shutbox.game.rules import one_die_when, per_throw_text
from shutbox.kit.model import BOX_DICE, Rules


def one_die_text(rules: Rules) -> str:
    """When one die may (or must) be thrown, in words (the rules engine's :func:`one_die_when`)."""
    when = one_die_when(rules)
    if when is None:
        return "one die: never (always two dice)"
    verb = "must" if rules.one_die_forced else "may"
    return f"one die: {rules.one_die} (one die {verb} be thrown {when})"


def scoring_text(rules: Rules) -> str:
    if rules.scoring == "digits":
        return "scoring: digits (open tiles read left to right as one number)"
    return "scoring: sum (open tiles added)"


def summary_lines(rules: Rules) -> list[str]:
    """Short lines naming every rule setting the pad was made for (and how the format runs, where it says)."""
    limit = f"limit {rules.limit}" if rules.limit is not None else "no limit"
    format_line = f"format: {rules.match} · {limit} · {per_throw_text(rules)}"
    if rules.stake:
        format_line += f" · stake {rules.stake:g} per round"
    dice = f" · {rules.dice} dice" if rules.dice != BOX_DICE else ""
    lines = [f"Rules: {rules.tiles} tiles{dice} · {scoring_text(rules)}", format_line, one_die_text(rules)]
    return lines + list(match_format(rules).how_it_runs)
