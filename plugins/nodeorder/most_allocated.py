"""NodeResourcesFit with the MostAllocated strategy, cpu weight 1 and memory weight 1 (as Volcano
configures it in ``nodeorder.go`` ``InitPlugin``): favours nodes with more requested resources.

``mostRequestedScore = min(requested, capacity) × 100 / capacity`` (int64), 0 when capacity is 0
(``noderesources/most_allocated.go``). No normalisation, never skipped.
"""

from __future__ import annotations

import numpy as np

from .normalize import MAX_NODE_SCORE, go_div
from .resource_allocation import fit_scores
from .state import CPU_COL, MEM_COL, K8sNodeView

MOST_ALLOCATED_WEIGHTS = ((CPU_COL, 1), (MEM_COL, 1))


def most_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    safe = np.where(capacity == 0, 1, capacity)
    score = go_div(np.minimum(requested, capacity) * MAX_NODE_SCORE, safe)
    return np.where(capacity == 0, 0, score)


def most_allocated_scores(view: K8sNodeView, pod_non_zero: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return fit_scores(view, pod_non_zero, rows, MOST_ALLOCATED_WEIGHTS, most_requested_score)
