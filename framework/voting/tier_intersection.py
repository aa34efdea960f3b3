"""Tier intersection of victims (Volcano's ``Preemptable``, ``Reclaimable``, ``UnifiedEvictable``),
and fumarole's stricter variant (conf ``configurations: [{name: voting, arguments:
{emptyIntersection: noVictims}}]``, docs/differences.md)."""

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def _intersect(tiers: Tiers, args: tuple[Any, ...], empty_decides: bool) -> list[Any] | Undecided:
    for tier in tiers:
        victims: list[Any] | None = None
        for fn in tier:
            candidates, vote = fn(*args)
            if vote == 0:
                continue
            if not candidates:
                victims = None
                break
            if victims is None:
                victims = list(candidates)
                continue
            allowed = {candidate.uid for candidate in candidates}
            victims = [victim for victim in victims if victim.uid in allowed]
            if not victims and not empty_decides:
                victims = None
        if victims is not None:
            return victims
    return UNDECIDED


def tier_intersection(tiers: Tiers, *args: object) -> list[Any] | Undecided:
    """Voters answer ``(victims, vote)``; a vote of 0 abstains. Inside a tier the voters' lists are
    intersected (the first list's order kept, victims matched by UID). An empty answer ends the tier
    undecided; an empty intersection leaves it undecided too, so the next voter of the tier starts
    afresh (Go's nil slice). The first tier that ends with a list decides."""
    return _intersect(tiers, args, empty_decides=False)


def strict_tier_intersection(tiers: Tiers, *args: object) -> list[Any] | Undecided:
    """As the tier intersection, but an empty intersection decides: no victims."""
    return _intersect(tiers, args, empty_decides=True)


TIER_INTERSECTION = VotingRule(tier_intersection, "Preemptable, Reclaimable, UnifiedEvictable")
STRICT_TIER_INTERSECTION = VotingRule(strict_tier_intersection, "(a fumarole option; Volcano has none)")
