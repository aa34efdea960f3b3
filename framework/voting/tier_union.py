"""Union of victims within a tier; the first non-empty tier answers."""

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def tier_union(tiers: Tiers, *args: object) -> list[Any] | Undecided:
    """The victims of a tier's plugins are united (first seen first, duplicates dropped); the first tier
    with any victim answers."""
    for tier in tiers:
        seen: dict[int, Any] = {}
        for fn in tier:
            for victim in fn(*args):
                seen.setdefault(id(victim), victim)
        if seen:
            return list(seen.values())
    return UNDECIDED


TIER_UNION = VotingRule(tier_union, "VictimTasks")
