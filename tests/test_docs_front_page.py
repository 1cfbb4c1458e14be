"""The README is a front page: short, playing within its first 80 lines, every docs page linked, no dead link."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = sorted(p.name for p in (REPO / "docs").glob("*.md"))


def test_the_readme_is_short_and_starts_people_playing_early() -> None:
    lines = README.splitlines()
    assert len(lines) <= 200
    first = "\n".join(lines[:80])
    for command in ("make kit", "make test", "shutbox sim --demo", "shutbox play --port none",
                    "shutbox play --players"):
        assert command in first, command
    assert "![" in first and "docs/img/" in first  # one picture of the kit


def test_every_docs_page_is_linked_from_the_readme() -> None:
    assert len(PAGES) >= 12, PAGES
    for page in PAGES:
        assert f"](docs/{page})" in README, page


def test_no_link_in_the_readme_or_the_docs_is_dead() -> None:
    for doc in (REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))):
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) + re.findall(r'src="([^"]+)"', text):
            if "://" in target:
                continue
            assert (doc.parent / target).exists(), f"{doc.name}: {target}"
