"""The first non-zero comparison wins, in tier order."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def first_nonzero(tiers: Tiers, *args: object) -> int | Undecided:
    """Plugins compare two objects (< 0: the left one first, 0: no preference); the first non-zero
    answer in tier order decides, as -1 or 1."""
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result != 0:
                return -1 if result < 0 else 1
    return UNDECIDED


FIRST_NONZERO = VotingRule(
    first_nonzero,
    "JobOrderCompareFn, QueueOrderFn, TaskCompareFns, VictimQueueOrderFn, ClusterOrderFn, SubJobOrderFn",
)
