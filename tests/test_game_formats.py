"""Match formats are objects (shutbox.game.formats): no module outside the model and the domain compares
format names, and a format added in the model and the domain alone is played, printed and shown."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shutbox.game import formats
from shutbox.game.formats import FIRST_TO_LIMIT, FORMATS, LAST_LEFT, ROUND_END, MatchFormat, match_format
from shutbox.game.report import game_result_text, result, standing_lines
from shutbox.kit.model import DEFAULT_LIMITS, MATCHES, Rules
from tests.conftest import REPO
from tests.print_support import play
from tests.test_architecture import host_modules

#: The only modules that may spell a format's name: the model declares the names, the domain the objects.
NAMING_MODULES = {"shutbox/kit/model.py", "shutbox/game/formats.py"}
#: Format names that are no other word in the code ("round" is also a JSON key and a message kind).
DISTINCT_NAMES = set(MATCHES) - {"round"}


def test_every_model_format_has_its_object_in_the_models_order() -> None:
    assert tuple(FORMATS) == MATCHES
    for name, fmt in FORMATS.items():
        assert fmt.name == name
        assert fmt.limit_applies == (name in DEFAULT_LIMITS) == fmt.rounds_repeat
        assert fmt.limit_applies == (fmt.ends in (LAST_LEFT, FIRST_TO_LIMIT))
        assert Rules(match=name).cumulative == fmt.limit_applies


def _is_match(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "match"


def _names_in(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and n.value in DISTINCT_NAMES}


def format_name_uses(path: Path) -> list[str]:
    """Where ``path`` asks a format by its name: ``rules.match`` compared or used as a key, a format name
    compared, or a table keyed by format names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_match(s) for s in sides) or any(_names_in(s) for s in sides):
                found.append(f"line {node.lineno}: compares a format name")
        elif isinstance(node, ast.Subscript) and _is_match(node.slice):
            found.append(f"line {node.lineno}: looks up by format name")
        elif isinstance(node, ast.Dict) and any(k is not None and _names_in(k) for k in node.keys):
            found.append(f"line {node.lineno}: a table keyed by format names")
    return found


def test_only_the_model_and_the_domain_ask_a_format_by_its_name() -> None:
    offenders = {}
    for path in host_modules().values():
        rel = path.relative_to(REPO).as_posix()
        if rel not in NAMING_MODULES and (uses := format_name_uses(path)):
            offenders[rel] = uses
    assert offenders == {}


def test_the_web_page_asks_the_state_not_the_format_name() -> None:
    page = (REPO / "companion" / "shutbox" / "companion" / "web" / "page.html").read_text(encoding="utf-8")
    assert [name for name in DISTINCT_NAMES if f'"{name}"' in page or f"'{name}'" in page] == []


def test_the_name_check_finds_a_comparison(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def f(rules, t):\n    a = rules.match == "round"\n    b = t[rules.match]\n'
                      '    return {"drop-out": 1}, a, b, "tournament" in t\n')
    assert len(format_name_uses(sample)) == 4


# ----------------------------------------------------------------------------------- a throw-away format
@pytest.fixture(params=["practice", "sprint"])
def new_format(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Rules:
    """A format registered in the model and the domain only: ``practice`` (one round, like ``round``) or
    ``sprint`` (drop-out to a limit of 30)."""
    name = request.param
    if name == "practice":
        fmt = MatchFormat(name, "Practice", ROUND_END)
    else:
        fmt = MatchFormat(name, "Sprint", LAST_LEFT, min_players=2)
        monkeypatch.setitem(DEFAULT_LIMITS, name, 30)
    monkeypatch.setitem(formats.FORMATS, name, fmt)
    rules = Rules(match=name)
    assert match_format(rules) is fmt
    return rules


def test_a_new_format_is_played_reported_printed_and_shown(new_format: Rules, tmp_path: Path) -> None:
    from shutbox.companion.live.link import Connected
    from shutbox.companion.live.session import LiveSession
    from shutbox.companion.live.tui import screen, to_ansi
    from shutbox.companion.store.database import GameStore
    from shutbox.companion.web.state import table_state
    from shutbox.print.plan import plan_blank
    from shutbox.print.sheet import SheetBuilder, paginate

    rules = new_format
    fmt = match_format(rules)
    game = play(rules, ["Ann", "Bob", "Cy"], seed=3)
    assert game.finished and game.winners
    assert len(game.rounds) > 1 if fmt.rounds_repeat else len(game.rounds) == 1
    assert result(game)["match"] == rules.match
    lines = standing_lines(game)
    assert lines[-1] == game_result_text(game)
    assert any(("limit 30" in line) == fmt.limit_applies for line in lines)

    plan = plan_blank(rules, None, None, "a4", 1, 1)
    assert plan.players == 4 and plan.pad.sides
    builder = SheetBuilder(game)
    assert builder.title().startswith(f"Shut the Box · {fmt.title} ·")
    assert paginate(builder, 800.0)

    store = GameStore(tmp_path / "games.sqlite3")
    try:
        session = LiveSession(rules, store, _Silent(), boxless=True)
        session.handle(Connected("/dev/test"))
        session.start(("Ann", "Bob"))
        state = table_state(session.state)
        assert state["rules"]["match"] == rules.match
        assert state["limit"] == (30 if fmt.limit_applies else None)
        assert [p["role"] for p in state["players"]] == [None, None]
        assert "Ann" in to_ansi(screen(session.state, []), 100)
    finally:
        store.close()


class _Silent:
    def note(self, kind: str, text: str) -> None:
        pass

    def show(self, state: object) -> None:
        pass


def test_a_long_game_player_count_is_refused_by_its_format() -> None:
    fmt = FORMATS["long-game"]
    assert fmt.players_refusal(3) == "the long game is for exactly 2 players, not 3"
    assert FORMATS["drop-out"].players_refusal(1) == "a drop-out match needs at least 2 players"
    assert FORMATS["round"].players_refusal(1) is None
