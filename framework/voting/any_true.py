"""OR over every enabled plugin (``Overused``).

The first True answers True. Otherwise undecided: the fallback (False) answers.
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def any_true(tiers: Tiers, *args: Any) -> bool | Undecided:
    for tier in tiers:
        for fn in tier:
            if fn(*args):
                return True
    return UNDECIDED


ANY_TRUE: VotingRule[bool] = VotingRule(
    name="any true",
    go="Overused",
    summary="OR over every enabled plugin, whatever its tier; the first True answers.",
    combine=any_true,
)
