"""The first non-zero comparison wins, in tier order (``JobOrderCompareFn``, ``QueueOrderFn``,
``TaskCompareFns``, ``VictimQueueOrderFn``, ``ClusterOrderFn``, ``SubJobOrderFn``).

Each function compares two objects: negative when the left one goes first, positive when the right
one does, zero when it has no preference. The first non-zero answer decides (as -1 or 1); all zero:
undecided, and the point's fallback comparison (creation time then UID, etc.) answers.
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def first_nonzero(tiers: Tiers, *args: Any) -> int | Undecided:
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result != 0:
                return -1 if result < 0 else 1
    return UNDECIDED


FIRST_NONZERO: VotingRule[int] = VotingRule(
    name="first non-zero",
    go="JobOrderCompareFn, QueueOrderFn, TaskCompareFns, VictimQueueOrderFn, ClusterOrderFn, SubJobOrderFn",
    summary="Plugins compare two objects (< 0: left first); the first non-zero answer in tier order wins.",
    combine=first_nonzero,
)
