"""One result of ``cad check``: which check, on what, whether it passed, and the measured figures."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    check: str
    subject: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.check:<12} {self.subject}: {self.detail}"
