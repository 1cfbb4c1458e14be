"""What the emulated-Pico tests share: skip (or, in CI, fail) when Node or the harness's packages are missing."""

from __future__ import annotations

import pytest

from tests.conftest import IN_CI


def needs_emulator() -> None:
    """Skip with the reason when the emulated Pico cannot run here; in CI that is a failure."""
    from shutbox.base.errors import ShutboxError
    from shutbox.firmware.host.emulator import check_harness, find_node

    try:
        find_node()
        check_harness()
    except ShutboxError as exc:
        if IN_CI:
            pytest.fail(str(exc))
        pytest.skip(str(exc))
