"""AND over every enabled plugin (``JobReady``, ``SubJobReady``, ``Allocatable``, ``Preemptive``,
``SimulateAllocatableFn``).

The first False answers False. Otherwise undecided: the fallback (True for all of these) answers.
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def all_true(tiers: Tiers, *args: Any) -> bool | Undecided:
    for tier in tiers:
        for fn in tier:
            if not fn(*args):
                return False
    return UNDECIDED


ALL_TRUE: VotingRule[bool] = VotingRule(
    name="all true",
    go="JobReady, SubJobReady, Allocatable, Preemptive, SimulateAllocatableFn",
    summary="AND over every enabled plugin, whatever its tier; the first False answers.",
    combine=all_true,
)
