"""LeastAllocated and BalancedAllocation summed in one pass over the candidate rows, for the common case.

The two resource scorers every default conf enables read the same rows of the same columns (the
nodes' allocatable cpu and memory); scored one after the other they gather those rows twice and
check the same conditions twice, which costs more than the arithmetic at the few hundred rows a
task is scored on. ``least_and_balanced_scores`` gathers them once and returns
``least × least_weight + balanced × balanced_weight`` (int64), exactly what the separate scorers
(``least_allocated.py``, ``balanced_allocation.py``) sum to, when the case is the common one: cpu and
memory allocatable on every row, the pod's non-zero request fitting every row, and the pod asking
for no GPU. Otherwise it returns None and the caller scores them one by one.
``tests/plugins/nodeorder/test_resource_scores.py`` compares it with the separate scorers.
"""

from __future__ import annotations

import numpy as np

from .least_allocated import LEAST_ALLOCATED_WEIGHTS
from .normalize import MAX_NODE_SCORE
from .state import CPU_COL, GPU_COL, MEM_COL, K8sNodeView

(_, CPU_WEIGHT), (_, MEMORY_WEIGHT) = LEAST_ALLOCATED_WEIGHTS


def least_and_balanced_scores(
    view: K8sNodeView,
    pod_requested: np.ndarray,
    pod_non_zero: np.ndarray,
    rows: np.ndarray,
    least_weight: int,
    balanced_weight: int,
) -> np.ndarray | None:
    """The weighted sum of both scores over ``rows`` (int64), or None outside the common case."""
    if pod_requested[GPU_COL] != 0 or not (pod_requested[CPU_COL] or pod_requested[MEM_COL]):
        return None  # the GPU counts, or BalancedAllocation skips the pod
    alloc = view.alloc.take(rows, axis=0)
    cpu_capacity = alloc[:, CPU_COL]
    memory_capacity = alloc[:, MEM_COL]
    non_zero = view.non_zero.take(rows, axis=0)
    cpu = non_zero[:, CPU_COL] + pod_non_zero[CPU_COL]
    memory = non_zero[:, MEM_COL] + pod_non_zero[MEM_COL]
    if not (
        (cpu <= cpu_capacity) & (memory <= memory_capacity) & (cpu_capacity != 0) & (memory_capacity != 0)
    ).all():
        return None
    # LeastAllocated: every term non-negative, so Go's truncating division is floor division
    cpu_score = (cpu_capacity - cpu) * MAX_NODE_SCORE // cpu_capacity
    memory_score = (memory_capacity - memory) * MAX_NODE_SCORE // memory_capacity
    least = (cpu_score * CPU_WEIGHT + memory_score * MEMORY_WEIGHT) // (CPU_WEIGHT + MEMORY_WEIGHT)
    # BalancedAllocation over cpu and memory: std = |f0 - f1| / 2, fractions capped at 1
    requested = view.requested.take(rows, axis=0)
    cpu_fraction = np.minimum(
        (requested[:, CPU_COL] + pod_requested[CPU_COL]).astype(np.float64) / cpu_capacity.astype(np.float64),
        1.0,
    )
    memory_fraction = np.minimum(
        (requested[:, MEM_COL] + pod_requested[MEM_COL]).astype(np.float64)
        / memory_capacity.astype(np.float64),
        1.0,
    )
    balanced = np.trunc((1 - np.abs((cpu_fraction - memory_fraction) / 2)) * float(MAX_NODE_SCORE)).astype(
        np.int64
    )
    total: np.ndarray = least * least_weight + balanced * balanced_weight
    return total
