"""Tier intersection of victims (``Preemptable``, ``Reclaimable``, ``UnifiedEvictable``).

Each function returns ``(victims, vote)``. A vote of 0 abstains. Inside a tier the voters'
lists are intersected (keeping the first voter's order, matching by UID). An empty answer from a
voter ends the tier *without deciding*: the result is reset and the next tier decides afresh, so
an empty answer does not veto across tiers. The first tier that decided (non-None) returns its
list; None means no tier decided.
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def tier_intersection(tiers: Tiers, *args: Any) -> list[Any] | None:
    victims: list[Any] | None = None
    for tier in tiers:
        for fn in tier:
            candidates, vote = fn(*args)
            if vote == 0:
                continue
            if not candidates:
                victims = None
                break
            if victims is None:
                victims = list(candidates)
            else:
                allowed = {candidate.uid for candidate in candidates}
                victims = [victim for victim in victims if victim.uid in allowed]
        if victims is not None:
            return victims
    return victims
