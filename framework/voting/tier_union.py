"""Union of victims within a tier; the first non-empty tier answers (``VictimTasks``).

Every function of every enabled plugin of a tier contributes. The union keeps first-seen order and
drops duplicates (by identity). Every tier empty: undecided (the fallback, no victims).
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def tier_union(tiers: Tiers, *args: Any) -> list[Any] | Undecided:
    for tier in tiers:
        seen: dict[int, Any] = {}
        for fn in tier:
            for victim in fn(*args):
                seen.setdefault(id(victim), victim)
        if seen:
            return list(seen.values())
    return UNDECIDED


TIER_UNION: VotingRule[list[Any]] = VotingRule(
    name="tier union",
    go="VictimTasks",
    summary="The victims of a tier's plugins are united; the first tier with any victim answers.",
    combine=tier_union,
)
