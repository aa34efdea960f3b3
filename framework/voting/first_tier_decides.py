"""The first tier with an answer decides, by AND (``JobStarving``).

The first tier in which at least one enabled plugin registered the function decides: True only
if all of that tier's functions return True. No function anywhere: False (so the preempt,
reclaim and gang actions do nothing without a starving function).
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def first_tier_decides(tiers: Tiers, *args: Any) -> bool:
    for tier in tiers:
        if not tier:
            continue
        return all(fn(*args) for fn in tier)
    return False
