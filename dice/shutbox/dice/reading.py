"""What the dice reader gives: the dice read (value and box) and the boxes of the dice it will not vouch for."""

from __future__ import annotations

from dataclasses import dataclass

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Die:
    """One die read: its top face's value and the face's box (x, y, width, height) in the picture's pixels."""

    value: int
    box: Box


@dataclass(frozen=True)
class Reading:
    """What a picture shows: the dice read, and the boxes of the dice seen but not read."""

    dice: tuple[Die, ...]
    unsure: tuple[Box, ...]

    @property
    def values(self) -> list[int]:
        """The values read, lowest first."""
        return sorted(d.value for d in self.dice)

    def as_dict(self) -> dict[str, object]:
        """``{"dice": [values], "unsure": N}``."""
        return {"dice": self.values, "unsure": len(self.unsure)}
