"""AND over every enabled plugin."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def all_true(tiers: Tiers, *args: object) -> bool | Undecided:
    """AND over every enabled plugin, whatever its tier; the first False answers."""
    for tier in tiers:
        for fn in tier:
            if not fn(*args):
                return False
    return UNDECIDED


ALL_TRUE = VotingRule(all_true, "JobReady, SubJobReady, Allocatable, Preemptive, SimulateAllocatableFn")
