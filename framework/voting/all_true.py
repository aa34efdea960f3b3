"""AND over every enabled plugin, default True (``JobReady``, ``SubJobReady``, ``Allocatable``,
``Preemptive``, ``SimulateAllocatableFn``).

The first False answers False; nobody registered means True.
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def all_true(tiers: Tiers, *args: Any) -> bool:
    for tier in tiers:
        for fn in tier:
            if not fn(*args):
                return False
    return True
