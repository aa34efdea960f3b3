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
    cpu_capacity = view.alloc[rows, CPU_COL]
    memory_capacity = view.alloc[rows, MEM_COL]
    cpu = view.non_zero[rows, CPU_COL] + pod_non_zero[CPU_COL]
    memory = view.non_zero[rows, MEM_COL] + pod_non_zero[MEM_COL]
    if (
        cpu_capacity.all()
        and memory_capacity.all()
        and (cpu <= cpu_capacity).all()
        and (memory <= memory_capacity).all()
    ):
        return fitting_scores(cpu_capacity, memory_capacity, cpu, memory)
    return fit_scores(view, pod_non_zero, rows, LEAST_ALLOCATED_WEIGHTS, least_requested_score)


def fitting_scores(
    cpu_capacity: np.ndarray, memory_capacity: np.ndarray, cpu: np.ndarray, memory: np.ndarray
) -> np.ndarray:
    """The scores in the common case: both resources counted (capacity non-zero) and the requests
    (``cpu``, ``memory``: the node's plus the pod's) fitting on every row. Every term is then
    non-negative, so Go's truncating division is floor division."""
    (_, cpu_weight), (_, memory_weight) = LEAST_ALLOCATED_WEIGHTS
    cpu_score = (cpu_capacity - cpu) * MAX_NODE_SCORE // cpu_capacity
    memory_score = (memory_capacity - memory) * MAX_NODE_SCORE // memory_capacity
    scores: np.ndarray = (cpu_score * cpu_weight + memory_score * memory_weight) // (
        cpu_weight + memory_weight
    )
    return scores
