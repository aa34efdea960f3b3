"""Winner takes all: the first registered function answers alone."""

from typing import Any

from .rule import UNDECIDED, Tiers, VotingRule


def winner_takes_all(tiers: Tiers, *args: object) -> Any:
    """The first enabled plugin, in tier order, answers alone, whatever it answers."""
    for tier in tiers:
        for fn in tier:
            return fn(*args)
    return UNDECIDED


WINNER_TAKES_ALL = VotingRule(
    winner_takes_all, "HyperNodeGradientForJobFn, HyperNodeGradientForSubJobFn, TargetJob"
)
