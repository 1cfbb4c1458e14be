"""The rule documents say what the model does: every rule setting in docs/settings.md's table with its default as it
is, every option name in docs/RULES.md, and every decision the sources leave open marked as the kit's."""

from __future__ import annotations

import re

from shutbox.kit.model import DEFAULT_LIMITS, MATCHES, ONE_DIE_RULES, SCORINGS, SETTINGS, Rules, show_value
from tests.conftest import REPO

SETTINGS_MD = (REPO / "docs" / "settings.md").read_text(encoding="utf-8")
RULES_MD = (REPO / "docs" / "RULES.md").read_text(encoding="utf-8")


def settings_table() -> dict[str, tuple[str, str]]:
    """docs/settings.md's table: flag -> (values, default)."""
    section = SETTINGS_MD.split("# Settings", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(--[a-z-]+)` \| (.*?) \| (.*?) \|$", section, flags=re.M)
    return {flag: (values, default) for flag, values, default in rows}


def test_settings_page_lists_every_rule_setting_with_its_default_as_it_is() -> None:
    table = settings_table()
    rule_flags = {s.flag for s in SETTINGS if s.rule}
    assert set(table) == rule_flags  # --stake and --dice included
    rules = Rules()
    for s in SETTINGS:
        if not s.rule:
            continue
        default = table[s.flag][1]
        if s.name == "limit":  # none for round; per format for the cumulative ones
            assert all(f"{limit} {match}" in default for match, limit in DEFAULT_LIMITS.items())
        else:
            value = getattr(rules, s.name)
            shown = f"{value:g}" if isinstance(value, float) else show_value(value)
            assert re.match(rf"`?{re.escape(shown)}`?\b", default), (s.flag, default, shown)
    for name in ONE_DIE_RULES:
        assert f"`{name}`" in table["--one-die"][0]


def test_rules_md_names_every_option_and_marks_the_kits_choices() -> None:
    for name in (*ONE_DIE_RULES, *SCORINGS, *MATCHES):
        assert f"`{name}`" in RULES_MD, name
    for decision in ("cut short", "Long game", "Tournament winner", "Shutting the box in drop-out",
                     "The match ends mid-round", "Long game, doubles", "Digits on 10 and 12 tiles",
                     "More than two dice", "Drawing dominoes or cards", "Limits", "unverified"):
        paragraph = next((p for p in RULES_MD.split("\n\n") if decision in p), "")
        assert "kit's choice" in paragraph or "kit's reading" in paragraph, decision
