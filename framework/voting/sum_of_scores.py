"""Scores add up across every enabled plugin (``NodeOrderFn``, ``BatchNodeOrderFn``,
``NodeOrderMapFn``, ``NodeOrderReduceFn``, ``HyperNodeOrderMapFn`` in session_plugins.go).

Tier boundaries do not matter: every enabled plugin's score is added. The batch form adds per-row
score vectors; the hypernode form adds per-hypernode score maps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def sum_scores(tiers: Tiers, *args: Any) -> float | Undecided:
    total = 0.0
    asked = False
    for tier in tiers:
        for fn in tier:
            total += float(fn(*args))
            asked = True
    return total if asked else UNDECIDED


def sum_score_vectors(tiers: Tiers, size: int, *args: Any) -> np.ndarray:
    """Per-row sums of batch scores (one entry per row asked about)."""
    total = np.zeros(size, dtype=np.float64)
    for tier in tiers:
        for fn in tier:
            total += np.asarray(fn(*args), dtype=np.float64)
    return total


def sum_score_maps(tiers: Tiers, *args: Any) -> dict[str, float] | Undecided:
    """Per-key sums of score maps (``HyperNodeOrderMapFn`` summed as ``PrioritizeHyperNodes`` does)."""
    totals: dict[str, float] = {}
    asked = False
    for tier in tiers:
        for fn in tier:
            scores: Mapping[str, float] = fn(*args)
            asked = True
            for key, score in scores.items():
                totals[key] = totals.get(key, 0.0) + float(score)
    return totals if asked else UNDECIDED


SUM_OF_SCORES: VotingRule[float] = VotingRule(
    name="sum of scores",
    go="NodeOrderFn, BatchNodeOrderFn, NodeOrderMapFn, NodeOrderReduceFn",
    summary="Every enabled plugin's score is added, whatever its tier; scalar and batch forms add alike.",
    combine=sum_scores,
)

SUM_OF_SCORE_MAPS: VotingRule[dict[str, float]] = VotingRule(
    name="sum of scores",
    go="HyperNodeOrderMapFn (summed by PrioritizeHyperNodes)",
    summary="Every enabled plugin scores each hypernode; the scores are added per hypernode.",
    combine=sum_score_maps,
)
