"""The first tier with an answer decides, by AND."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def first_tier_decides(tiers: Tiers, *args: object) -> bool | Undecided:
    """The first tier with an enabled plugin decides: True only if all of that tier's answers are True."""
    for tier in tiers:
        if tier:
            return all(fn(*args) for fn in tier)
    return UNDECIDED


FIRST_TIER_DECIDES = VotingRule(first_tier_decides, "JobStarving")
