"""The first answer that is not None wins."""

from typing import Any

from .rule import UNDECIDED, Tiers, VotingRule


def first_not_none(tiers: Tiers, *args: object) -> Any:
    """The first plugin, in tier order, whose answer is not None decides."""
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result is not None:
                return result
    return UNDECIDED


FIRST_NOT_NONE = VotingRule(first_not_none, "BestNodeFn")
