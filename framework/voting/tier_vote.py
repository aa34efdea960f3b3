"""Permit / abstain / reject, tier by tier (``JobPipelined``, ``SubJobPipelined``, ``JobEnqueueable``).

Any reject (< 0) answers False at once. If some plugin of a tier permitted (> 0) and none rejected,
the answer is True and later tiers are not asked. A tier that only abstained passes the question to
the next tier. Nobody decided: undecided (the fallback is True for all of these points).
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def tier_vote(tiers: Tiers, *args: Any) -> bool | Undecided:
    for tier in tiers:
        permitted = False
        for fn in tier:
            vote = fn(*args)
            if vote < 0:
                return False
            if vote > 0:
                permitted = True
        if permitted:
            return True
    return UNDECIDED


TIER_VOTE: VotingRule[bool] = VotingRule(
    name="tier vote",
    go="JobPipelined, SubJobPipelined, JobEnqueueable",
    summary=(
        "Plugins vote permit (> 0), abstain (0) or reject (< 0): any reject answers False; a tier with a "
        "permit answers True; a tier that only abstained passes to the next."
    ),
    combine=tier_vote,
)
