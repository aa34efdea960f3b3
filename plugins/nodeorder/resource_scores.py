"""LeastAllocated and BalancedAllocation summed in one pass over the candidate rows, for the common case.

The two resource scorers every default conf enables read the same rows of the same columns (the
nodes' allocatable cpu and memory); scored one after the other they gather those rows twice and
check the same conditions twice, which costs more than the arithmetic at the few hundred rows a
task is scored on. ``least_and_balanced_scores`` gathers them once, checks once, and computes each
score with the scorers' own formulas (``fitting_scores``, ``capped_fraction``,
``two_resource_scores``), returning
``least × least_weight + balanced × balanced_weight`` (int64), exactly what the separate scorers
(``least_allocated.py``, ``balanced_allocation.py``) sum to, when the case is the common one: cpu and
memory allocatable on every row, the pod's non-zero request fitting every row, and the pod asking
for no GPU. Otherwise it returns None and the caller scores them one by one.
``tests/plugins/test_nodeorder.py`` compares it with the separate scorers.
"""

from __future__ import annotations

import numpy as np

from .balanced_allocation import capped_fraction, two_resource_scores
from .least_allocated import fitting_scores
from .state import CPU_COL, GPU_COL, MEM_COL, K8sNodeView


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
    least = fitting_scores(cpu_capacity, memory_capacity, cpu, memory)
    requested = view.requested.take(rows, axis=0)
    balanced = two_resource_scores(
        capped_fraction(requested[:, CPU_COL] + pod_requested[CPU_COL], cpu_capacity),
        capped_fraction(requested[:, MEM_COL] + pod_requested[MEM_COL], memory_capacity),
    )
    total: np.ndarray = least * least_weight + balanced * balanced_weight
    return total
