"""Union of victims within a tier; the first non-empty tier answers (``VictimTasks``).

A plugin may register several victim functions; every function of every enabled plugin of a tier
contributes. The union keeps first-seen order and drops duplicates (by identity).
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def tier_union(tiers: Tiers, *args: Any) -> list[Any]:
    for tier in tiers:
        seen: dict[int, Any] = {}
        for fn in tier:
            for victim in fn(*args):
                seen.setdefault(id(victim), victim)
        if seen:
            return list(seen.values())
    return []
