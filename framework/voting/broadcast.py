"""Everybody is told, nobody answers."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def broadcast(tiers: Tiers, *args: object) -> Undecided:
    """Every enabled plugin is called in tier order; what they return is ignored."""
    for tier in tiers:
        for fn in tier:
            fn(*args)
    return UNDECIDED


BROADCAST: VotingRule[None] = VotingRule(broadcast, "JobEnqueued, ReservedNodes, AddEventHandler")
