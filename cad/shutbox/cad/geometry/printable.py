"""What prints without support, as numbers every part's geometry shares (no CAD kernel, no kit)."""

from __future__ import annotations

import math

ROOF_SLOPE = 1.2  # rise over run of the hollow's sloping ceilings: steeper than 45 degrees, no support
SQRT2 = math.sqrt(2.0)
