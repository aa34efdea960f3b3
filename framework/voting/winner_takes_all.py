"""Winner takes all (``HyperNodeGradientForJobFn``, ``HyperNodeGradientForSubJobFn``, ``TargetJob``)
and first non-None (``BestNodeFn``).

``winner_takes_all``: the first enabled plugin that registered the function answers, whatever it
answers; with none, the caller's fallback (for hypernode gradients ``[[hypernode]]``).
``first_not_none``: the first answer that is not None wins; later plugins are asked otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ._types import Tiers

T = TypeVar("T")


def winner_takes_all(tiers: Tiers, fallback: Callable[[], T], *args: Any) -> T:
    for tier in tiers:
        for fn in tier:
            result: T = fn(*args)
            return result
    return fallback()


def first_not_none(tiers: Tiers, *args: Any) -> Any:
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result is not None:
                return result
    return None
