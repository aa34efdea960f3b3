"""OR over every enabled plugin, default False (``Overused``).

The first True answers True; nobody registered means False.
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def any_true(tiers: Tiers, *args: Any) -> bool:
    for tier in tiers:
        for fn in tier:
            if fn(*args):
                return True
    return False
