"""The solver's tables cached on disk, so a new process reviews a game without solving again.

Settings beyond the exact solver's reach get the solver's approximate ``advisor`` (not cached here).

One ``.npz`` file per (settings a player's odds depend on, objective, strategy) in the user's cache
folder (``solver/`` under ``platformdirs.user_cache_dir("shutbox")``; ``SHUTBOX_CACHE_DIR`` moves it,
``SHUTBOX_CACHE_DIR=off`` turns it off). The file name hashes the settings and the source of the
solver, rules and policy modules, so a code change never reads stale values. On read, the settings
stored inside must equal the ones asked for and a SHA-256 of the arrays must match the one stored
beside them; any mismatch or damage means the tables are solved again and the file rewritten
(atomically). A cache folder that cannot be written only costs the solve.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

from shutbox.game.policy import Setup
from shutbox.model import Rules

ENV = "SHUTBOX_CACHE_DIR"
#: The Solution fields this cache knows how to store; another shape is never cached.
_FIELDS = {"setup", "objective", "strategy", "p_shut", "expected_score", "one_die"}
_ARRAYS = ("p_shut", "expected_score", "one_die")


def cache_folder(name: str) -> Path | None:
    """A folder of the user's shutbox cache (``SHUTBOX_CACHE_DIR/name``), or None when caching is off."""
    value = os.environ.get(ENV)
    if value is not None and value.strip().lower() in ("off", "0", "none", ""):
        return None
    if value:
        return Path(value) / name
    import platformdirs

    return Path(platformdirs.user_cache_dir("shutbox")) / name


@cache
def code_digest() -> str:
    """Hash of the modules the solver's values depend on."""
    from shutbox.game import policy, rules, solver

    h = hashlib.sha256()
    for module in (solver, rules, policy):
        h.update(Path(str(module.__file__)).read_bytes())
    return h.hexdigest()[:20]


def _meta(setup: Setup, objective: str, strategy: str) -> dict[str, Any]:
    return {"setup": dataclasses.asdict(setup), "objective": objective, "strategy": strategy, "code": code_digest()}


def _digest(arrays: dict[str, Any]) -> str:
    h = hashlib.sha256()
    for name in _ARRAYS:
        h.update(name.encode())
        h.update(arrays[name].tobytes())
    return h.hexdigest()


def _path(meta: dict[str, Any]) -> Path | None:
    folder = cache_folder("solver")
    if folder is None:
        return None
    key = hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:32]
    return folder / f"{key}.npz"


def _read(path: Path, meta: dict[str, Any]) -> dict[str, Any] | None:
    """The arrays stored at ``path`` if they are for ``meta`` and intact, else None."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            stored = json.loads(str(data["meta"]))
            arrays = {name: data[name] for name in _ARRAYS}
            digest = str(data["digest"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # missing, damaged or foreign file
        return None
    if stored != meta or digest != _digest(arrays):
        return None
    return arrays


def _write(path: Path, meta: dict[str, Any], arrays: dict[str, Any]) -> None:
    import numpy as np

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".solver-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            np.savez(f, meta=np.array(json.dumps(meta, sort_keys=True)), digest=np.array(_digest(arrays)), **arrays)
        os.replace(name, path)
    except OSError:
        try:
            os.unlink(name)
        except (OSError, UnboundLocalError):
            pass


def cached_solve(rules: Rules, objective: str = "shut", strategy: str = "optimal") -> Any:
    """:func:`shutbox.game.solver.solve`, with its tables kept on disk between processes (and in memory)."""
    return _cached(Setup.of(rules), objective if strategy == "optimal" else "shut", strategy)


@cache
def _cached(setup: Setup, objective: str, strategy: str) -> Any:
    from shutbox.game import solver

    rules = setup.rules
    if not solver.exact(rules):
        advisor = getattr(solver, "advisor", None)  # the stated approximate method for larger sets
        if advisor is None:
            return solver.solve(rules, objective, strategy)  # raises TooLarge: one line for the user
        return advisor(rules, objective)
    fields = {f.name for f in dataclasses.fields(solver.Solution)}
    if fields != _FIELDS:
        return solver.solve(rules, objective, strategy)  # a solution shape this cache does not know
    meta = _meta(setup, objective, strategy)
    path = _path(meta)
    arrays = _read(path, meta) if path is not None and path.is_file() else None
    if arrays is not None:
        for a in arrays.values():
            a.setflags(write=False)
        return solver.Solution(setup=setup, objective=objective, strategy=strategy, **arrays)
    solution = solver.solve(rules, objective, strategy)
    if path is not None and getattr(solution, "exact", True):
        _write(path, meta, {name: getattr(solution, name) for name in _ARRAYS})
    return solution
