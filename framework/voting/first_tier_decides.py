"""The first tier with an answer decides, by AND (``JobStarving``).

The first tier in which at least one enabled plugin registered the function decides: True only if
all of that tier's functions return True. No function anywhere: undecided (the fallback is False, so
the preempt, reclaim and gang actions do nothing without a starving function).
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def first_tier_decides(tiers: Tiers, *args: Any) -> bool | Undecided:
    for tier in tiers:
        if not tier:
            continue
        return all(fn(*args) for fn in tier)
    return UNDECIDED


FIRST_TIER_DECIDES: VotingRule[bool] = VotingRule(
    name="first tier decides",
    go="JobStarving",
    summary="The first tier with an enabled plugin decides, by AND over that tier's answers.",
    combine=first_tier_decides,
)
