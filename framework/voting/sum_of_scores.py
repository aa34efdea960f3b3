"""Scores add up across every enabled plugin (``NodeOrderFn``, ``BatchNodeOrderFn``,
``NodeOrderMapFn``, ``NodeOrderReduceFn`` in session_plugins.go).

Tier boundaries do not matter: every enabled plugin's score is added. ``sum_batch_scores`` adds
per-node score vectors (one entry per candidate node).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._types import Tiers


def sum_scores(tiers: Tiers, *args: Any) -> float:
    total = 0.0
    for tier in tiers:
        for fn in tier:
            total += float(fn(*args))
    return total


def sum_batch_scores(tiers: Tiers, size: int, *args: Any) -> np.ndarray:
    total = np.zeros(size, dtype=np.float64)
    for tier in tiers:
        for fn in tier:
            total += np.asarray(fn(*args), dtype=np.float64)
    return total
