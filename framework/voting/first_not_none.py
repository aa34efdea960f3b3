"""The first answer that is not None wins (``BestNodeFn``).

Later plugins are asked only while earlier ones answered None; nobody answered: undecided.
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def first_not_none(tiers: Tiers, *args: Any) -> Any:
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result is not None:
                return result
    return UNDECIDED


FIRST_NOT_NONE: VotingRule[Any] = VotingRule(
    name="first answer",
    go="BestNodeFn",
    summary="The first plugin, in tier order, whose answer is not None decides.",
    combine=first_not_none,
)

__all__ = ["FIRST_NOT_NONE", "Undecided", "first_not_none"]
