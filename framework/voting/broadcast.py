"""Everybody is told, nobody answers (``JobEnqueued``, ``ReservedNodes``, event handlers).

Every enabled function is called in tier and plugin order; return values are ignored.
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def broadcast(tiers: Tiers, *args: Any) -> None:
    for tier in tiers:
        for fn in tier:
            fn(*args)
