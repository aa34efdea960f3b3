"""Everybody is told, nobody answers (``JobEnqueued``, ``ReservedNodes``, event handlers).

Every enabled function is called in tier and plugin order; return values are ignored.
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def broadcast(tiers: Tiers, *args: Any) -> Undecided:
    for tier in tiers:
        for fn in tier:
            fn(*args)
    return UNDECIDED


BROADCAST: VotingRule[None] = VotingRule(
    name="broadcast",
    go="JobEnqueued, ReservedNodes, AddEventHandler",
    summary="Every enabled plugin is called in tier order; nothing is returned.",
    combine=broadcast,
)
