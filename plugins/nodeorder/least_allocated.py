"""NodeResourcesFit with the LeastAllocated strategy, cpu weight 50 and memory weight 50 (as Volcano
configures it in ``nodeorder.go`` ``InitPlugin``): favours nodes with more unrequested resources.

``leastRequestedScore = (capacity - requested) × 100 / capacity`` (int64), 0 when capacity is 0 or
requested exceeds it (``noderesources/least_allocated.go``). No normalisation, never skipped.
"""

from __future__ import annotations

import numpy as np

from .normalize import MAX_NODE_SCORE, go_div
from .resource_allocation import fit_scores
from .state import CPU_COL, MEM_COL, K8sNodeView

LEAST_ALLOCATED_WEIGHTS = ((CPU_COL, 50), (MEM_COL, 50))


def least_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    safe = np.where(capacity == 0, 1, capacity)
    score = go_div((capacity - requested) * MAX_NODE_SCORE, safe)
    return np.where((capacity == 0) | (requested > capacity), 0, score)


def least_allocated_scores(view: K8sNodeView, pod_non_zero: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return fit_scores(view, pod_non_zero, rows, LEAST_ALLOCATED_WEIGHTS, least_requested_score)
