"""The first failing validation is the answer."""

from typing import Any

from .rule import UNDECIDED, Tiers, VotingRule


def first_failure(tiers: Tiers, *args: object) -> Any:
    """The first result that did not pass, in tier order, is the answer (None passes)."""
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result is not None and not result.passed:
                return result
    return UNDECIDED


FIRST_FAILURE = VotingRule(first_failure, "JobValid")
