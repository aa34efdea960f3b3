"""Permit / abstain / reject, tier by tier (``JobPipelined``, ``SubJobPipelined``, ``JobEnqueueable``).

Any reject (< 0) answers False at once. If some plugin of a tier permitted (> 0) and none
rejected, the answer is True and later tiers are not asked. A tier that only abstained passes the
question to the next tier. Nobody decided: True.
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def tier_vote(tiers: Tiers, *args: Any) -> bool:
    permitted = False
    for tier in tiers:
        for fn in tier:
            vote = fn(*args)
            if vote < 0:
                return False
            if vote > 0:
                permitted = True
        if permitted:
            return True
    return True
