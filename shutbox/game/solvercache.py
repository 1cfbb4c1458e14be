"""The solver's values cached on disk, so a new process answers (solve, advise, review) without solving again.

Settings beyond the exact solver's reach get the solver's approximate ``advisor`` (not cached here).

One ``.values`` file per (settings a player's odds depend on, objective, strategy) in the ``solver`` cache
(:mod:`shutbox.base.caches`: the user's cache folder; ``SHUTBOX_CACHE_DIR`` moves it, ``=off`` turns it off).
The file is one text header line -- the format, what made the values (:func:`shutbox.base.caches.made_with`:
shutbox's and numpy's versions), the code digest (CRC-32 and Adler-32 of the sources the values depend
on: solver, rules, policy, model), every setting, the objective and strategy, the number of states and
the CRC-32 of the body -- then a body of
raw little-endian float64 ``p_shut`` and ``expected_score`` and one byte of ``one_die`` per state. The
file name is a checksum of the header's settings part. On read, the header must be exactly the one
these settings, this code and these versions would write, the body exactly as long as stated and its CRC-32 must
match; otherwise the values are solved again and the file rewritten (atomically). The checksums catch
damage and stale code, not tampering: whoever can write the user's cache folder can write a checksum
too. A cache folder that cannot be written only costs the solve.

Reading needs no numpy, json or hashlib: :func:`cached_advisor` (``shutbox solve``/``advise``) returns
values in memoryviews of the bytes read, so an already solved setting starts as fast as a plain script;
:func:`cached_solve` returns read-only numpy arrays (review, stats, hints).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import zlib
from functools import cache
from pathlib import Path

from shutbox.base import caches
from shutbox.game.policy import OBJECTIVES, STRATEGIES, Setup
from shutbox.game.solution import Advisor, Solution
from shutbox.kit.model import Rules

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: The header's format tag; a file of another format is solved again and replaced.
FORMAT = "shutbox solver values 2"
#: The Solution fields this cache knows how to store; another shape is never cached.
_FIELDS = {"setup", "objective", "strategy", "p_shut", "expected_score", "one_die"}
#: The sources the values depend on (relative to the shutbox package folder).
_SOURCES = ("game/solver.py", "game/rules.py", "game/policy.py", "kit/model.py")
_HEADER_LIMIT = 4096


def _checksum(data: bytes, crc: int = 0, adler: int = 1) -> tuple[int, int]:
    return zlib.crc32(data, crc), zlib.adler32(data, adler)


@cache
def code_digest() -> str | None:
    """Checksum of the sources the solver's values depend on (None if they cannot be read: no caching)."""
    here = Path(__file__).parent.parent  # the shutbox/ folder: game/ and kit/
    crc, adler = 0, 1
    try:
        for name in _SOURCES:
            crc, adler = _checksum((here / name).read_bytes(), crc, adler)
    except OSError:
        return None
    return f"{crc:08x}{adler:08x}"


def _key(setup: Setup, objective: str, strategy: str) -> tuple[Path, bytes] | None:
    """Where the values of these settings live and their header up to the body's CRC-32 (None: caching is off)."""
    folder = caches.folder("solver")
    code = code_digest()
    if folder is None or code is None:
        return None
    fields = sorted({**dataclasses.asdict(setup), "objective": objective, "strategy": strategy}.items())
    settings = "; ".join(f"{k}={v!r}" for k, v in fields)
    made = caches.made_with("solver")
    head = f"{FORMAT}; made with {made}; code={code}; {settings}; states={1 << setup.tiles}; crc32=".encode()
    crc, adler = _checksum(head)
    return folder / f"{crc:08x}{adler:08x}.values", head


def _read(path: Path, head: bytes, states: int) -> bytes | None:
    """The body stored at ``path`` if its header is ``head`` and it is intact, else None."""
    try:
        with open(path, "rb") as f:
            line = f.readline(_HEADER_LIMIT)
            if not line.startswith(head) or len(line) != len(head) + 9 or os.fstat(f.fileno()).st_size != \
                    len(line) + 17 * states:
                return None
            body = f.read(17 * states)
    except OSError:  # missing or unreadable
        return None
    if len(body) != 17 * states or line[len(head):] != b"%08x\n" % zlib.crc32(body):
        return None
    return body


def _write(path: Path, head: bytes, solution: Any) -> None:
    """Store a solver Solution's arrays (numpy) at ``path``, atomically; a failure only loses the cache."""
    import tempfile

    body = b"".join((solution.p_shut.astype("<f8").tobytes(), solution.expected_score.astype("<f8").tobytes(),
                     solution.one_die.astype("u1").tobytes()))
    name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".solver-", suffix=".values", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(head + b"%08x\n" % zlib.crc32(body) + body)
        os.replace(name, path)
        name = None
    except OSError:
        pass  # a cache that cannot be written only costs the next solve
    finally:  # also on Ctrl-C or SIGTERM: no half-written temporary file is left in the cache folder
        if name is not None:
            try:
                os.unlink(name)
            except OSError:
                pass


def _doubles(body: bytes, start: int, count: int) -> Any:
    """``count`` float64 from ``body`` (little-endian) from value ``start`` on: a memoryview (no import needed)."""
    raw = body[8 * start:8 * (start + count)]
    if sys.byteorder != "little":
        from array import array

        values = array("d", raw)
        values.byteswap()
        return values
    return memoryview(raw).cast("d")


def _stored(setup: Setup, objective: str, strategy: str, numpy: bool) -> Solution | None:
    """The values on disk for these settings (numpy arrays or, with ``numpy=False``, memoryviews)."""
    key = _key(setup, objective, strategy)
    if key is None or {f.name for f in dataclasses.fields(Solution)} != _FIELDS:
        return None
    path, head = key
    n = 1 << setup.tiles
    body = _read(path, head, n)
    if body is None:
        return None
    if numpy:
        import numpy as np

        return Solution(setup, objective, strategy, np.frombuffer(body, "<f8", n, 0),
                        np.frombuffer(body, "<f8", n, 8 * n), np.frombuffer(body, np.bool_, n, 16 * n))
    return Solution(setup, objective, strategy, _doubles(body, 0, n), _doubles(body, n, n), body[16 * n:])


def _store(setup: Setup, objective: str, strategy: str, solution: Any) -> None:
    key = _key(setup, objective, strategy)
    if key is not None and {f.name for f in dataclasses.fields(Solution)} == _FIELDS:
        _write(key[0], key[1], solution)


def cached_advisor(rules: Rules, objective: str = "shut", strategy: str = "optimal") -> Advisor:
    """:func:`shutbox.game.solver.advisor`; settings already solved are read from disk without importing numpy,
    new ones are solved (numpy) and stored."""
    if objective in OBJECTIVES and strategy in STRATEGIES:
        setup = Setup.of(rules)
        solved_as = objective if strategy == "optimal" else "shut"  # as solver.solve: strategies are objective-free
        stored = _stored(setup, solved_as, strategy, numpy=False)
        if stored is not None:
            return Advisor(rules, objective, strategy, stored)
    from shutbox.game import solver

    advisor = solver.advisor(rules, objective, strategy)  # raises for unknown names, as the solver does
    if advisor.solution is not None:
        _store(advisor.solution.setup, advisor.solution.objective, advisor.solution.strategy, advisor.solution)
    return advisor


def cached_solve(rules: Rules, objective: str = "shut", strategy: str = "optimal") -> Any:
    """:func:`shutbox.game.solver.solve` (numpy arrays), with its values kept on disk between processes (and in
    memory); beyond the exact solver's reach, the solver's approximate advisor."""
    return _cached(Setup.of(rules), objective if strategy == "optimal" else "shut", strategy)


@cache
def _cached(setup: Setup, objective: str, strategy: str) -> Any:
    from shutbox.game import solver

    rules = setup.rules
    if not solver.exact(rules):
        return solver.advisor(rules, objective)  # the stated approximate method for larger sets
    stored = _stored(setup, objective, strategy, numpy=True)
    if stored is not None:
        return stored
    solution = solver.solve(rules, objective, strategy)
    _store(setup, objective, strategy, solution)
    return solution
