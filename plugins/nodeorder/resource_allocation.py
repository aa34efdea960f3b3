"""The weighted average shared by the NodeResourcesFit scoring strategies (Least/MostAllocated).

``resourceAllocationScorer.score`` with ``leastResourceScorer`` / ``mostResourceScorer``: for each
configured resource whose allocatable is non-zero, ``score_r(requested, allocatable) × weight_r``;
the node score is ``Σ / Σ weight_r`` in int64 (0 when no resource counts). The Fit plugin reads
*non-zero* requested cpu and memory (``NodeInfo.NonZeroRequested`` plus the incoming pod's request
with the same 100m / 200Mi defaults), as Kubernetes does when ``useRequested`` is false.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .normalize import go_div
from .state import K8sNodeView

ResourceScore = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``score_r(requested, capacity)`` over int64 arrays."""


def fit_scores(
    view: K8sNodeView,
    pod_non_zero: np.ndarray,
    rows: np.ndarray,
    weights: Sequence[tuple[int, int]],
    resource_score: ResourceScore,
) -> np.ndarray:
    """Scores (0..100, int64) of ``rows`` for ``weights`` = ((column, weight), ...) over cpu/memory."""
    node_score = np.zeros(len(rows), dtype=np.int64)
    weight_sum = np.zeros(len(rows), dtype=np.int64)
    for col, weight in weights:
        capacity = view.alloc[rows, col]
        requested = view.non_zero[rows, col] + pod_non_zero[col]
        counted = capacity != 0
        node_score += np.where(counted, resource_score(requested, capacity) * weight, 0)
        weight_sum += np.where(counted, weight, 0)
    return np.where(weight_sum == 0, 0, go_div(node_score, np.where(weight_sum == 0, 1, weight_sum)))
