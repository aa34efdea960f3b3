"""OR over every enabled plugin."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def any_true(tiers: Tiers, *args: object) -> bool | Undecided:
    """OR over every enabled plugin, whatever its tier; the first True answers."""
    for tier in tiers:
        for fn in tier:
            if fn(*args):
                return True
    return UNDECIDED


ANY_TRUE = VotingRule(any_true, "Overused")
