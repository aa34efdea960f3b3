"""Tier intersection of victims (``Preemptable``, ``Reclaimable``, ``UnifiedEvictable``).

Each function returns ``(victims, vote)``; a vote of 0 abstains. Walking a tier's voters in order:

* an empty answer resets the victims to "not decided" and ends the tier;
* the first voter with victims starts the list; each later voter intersects it (the earlier list's
  order is kept, victims match by UID);
* an empty intersection also resets the victims to "not decided", so the next voter of the same tier
  starts a fresh list (Go's ``intersection`` slice stays nil when nothing matches).

A tier that ends with a list returns it; a tier that ends undecided lets the next tier decide. Nobody
decided: undecided (the fallback, None).

``STRICT_TIER_INTERSECTION`` is fumarole's optional stricter rule (conf ``configurations: - name:
voting, arguments: {emptyIntersection: noVictims}``): an empty intersection is a decision, "no
victims", and the tier returns it. See docs/differences.md.
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def _intersect(tiers: Tiers, args: tuple[Any, ...], *, empty_decides: bool) -> list[Any] | Undecided:
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


def tier_intersection(tiers: Tiers, *args: Any) -> list[Any] | Undecided:
    """Volcano's rule: an empty intersection does not decide."""
    return _intersect(tiers, args, empty_decides=False)


def strict_tier_intersection(tiers: Tiers, *args: Any) -> list[Any] | Undecided:
    """fumarole's stricter rule: an empty intersection decides "no victims"."""
    return _intersect(tiers, args, empty_decides=True)


TIER_INTERSECTION: VotingRule[list[Any] | None] = VotingRule(
    name="tier intersection",
    go="Preemptable, Reclaimable, UnifiedEvictable",
    summary=(
        "Voters' victim lists are intersected inside a tier; an empty answer ends the tier undecided, "
        "an empty intersection makes the next voter start afresh; the first tier that ends with a "
        "list decides."
    ),
    combine=tier_intersection,
)

STRICT_TIER_INTERSECTION: VotingRule[list[Any] | None] = VotingRule(
    name="strict tier intersection",
    go="(fumarole option; Volcano has none)",
    summary="As the tier intersection, but an empty intersection decides: no victims.",
    combine=strict_tier_intersection,
)
