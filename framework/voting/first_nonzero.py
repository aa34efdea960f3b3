"""The first non-zero comparison wins, in tier order (``JobOrderCompareFn``, ``QueueOrderFn``,
``TaskCompareFns``, ``VictimQueueOrderFn``, ``ClusterOrderFn``, ``SubJobOrderFn``).

Each function compares two objects: negative when the left one goes first, positive when the
right one does, zero when it has no preference. The first non-zero answer decides; 0 means no
plugin decided and the caller applies its fallback (creation time then UID, etc.).
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def first_nonzero(tiers: Tiers, *args: Any) -> int:
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result != 0:
                return -1 if result < 0 else 1
    return 0
