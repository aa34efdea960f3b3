"""Permit / abstain / reject, tier by tier."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def tier_vote(tiers: Tiers, *args: object) -> bool | Undecided:
    """Plugins vote permit (> 0), abstain (0) or reject (< 0): any reject answers False at once; a tier
    with a permit answers True; a tier that only abstained passes the question to the next."""
    for tier in tiers:
        permitted = False
        for fn in tier:
            vote = fn(*args)
            if vote < 0:
                return False
            permitted = permitted or vote > 0
        if permitted:
            return True
    return UNDECIDED


TIER_VOTE = VotingRule(tier_vote, "JobPipelined, SubJobPipelined, JobEnqueueable")
