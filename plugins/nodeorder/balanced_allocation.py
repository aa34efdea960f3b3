"""NodeResourcesBalancedAllocation over cpu, memory and ``nvidia.com/gpu`` (weights 1, as Volcano
configures it): favours nodes whose resource fractions stay close to each other.

For each resource, ``fraction = (requested + pod request) / allocatable`` capped at 1, with the
node's *actual* requests (``NodeInfo.Requested``, no non-zero defaults) and the pod's actual
request; a resource with allocatable 0 is left out, and the GPU also when the pod does not request
it. ``std`` is ``|f0 - f1| / 2`` for two fractions, the population standard deviation for three,
0 otherwise; the score is ``int64((1 - std) × 100)``. A pod requesting none of the three resources
skips the plugin (``PreScore`` returns Skip, kubernetes#129138). No normalisation.
Spec: ``noderesources/balanced_allocation.go`` and ``resource_allocation.go``.
"""

from __future__ import annotations

import numpy as np

from .normalize import MAX_NODE_SCORE
from .state import CPU_COL, GPU_COL, MEM_COL, K8sNodeView

BALANCED_RESOURCES = (CPU_COL, MEM_COL, GPU_COL)


def balanced_allocation_scores(
    view: K8sNodeView, pod_requested: np.ndarray, rows: np.ndarray
) -> np.ndarray | None:
    """Scores (int64) of ``rows``, or None when the plugin skips this pod."""
    if not np.any(pod_requested[list(BALANCED_RESOURCES)]):
        return None
    cpu_capacity = view.alloc[rows, CPU_COL]
    memory_capacity = view.alloc[rows, MEM_COL]
    if cpu_capacity.all() and memory_capacity.all():
        # the common cases: cpu and memory counted on every row, and the GPU on none (the pod asks
        # none) or on every row
        cpu = _fraction(view, pod_requested, rows, CPU_COL, cpu_capacity)
        memory = _fraction(view, pod_requested, rows, MEM_COL, memory_capacity)
        if pod_requested[GPU_COL] == 0:
            return two_resource_scores(cpu, memory)
        gpu_capacity = view.alloc[rows, GPU_COL]
        if gpu_capacity.all():
            gpu = _fraction(view, pod_requested, rows, GPU_COL, gpu_capacity)
            return np.trunc((1 - _std_of_three(cpu, memory, gpu)) * float(MAX_NODE_SCORE)).astype(np.int64)
    return general_scores(view, pod_requested, rows)


def _fraction(
    view: K8sNodeView, pod_requested: np.ndarray, rows: np.ndarray, col: int, capacity: np.ndarray
) -> np.ndarray:
    """``min((requested + pod request) / capacity, 1)`` of one resource over ``rows`` (capacity non-zero)."""
    return capped_fraction(view.requested[rows, col] + pod_requested[col], capacity)


def capped_fraction(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``min(requested / capacity, 1)`` row by row, in float64 (capacity non-zero)."""
    fraction: np.ndarray = np.minimum(requested.astype(np.float64) / capacity.astype(np.float64), 1.0)
    return fraction


def two_resource_scores(cpu: np.ndarray, memory: np.ndarray) -> np.ndarray:
    """The scores from the cpu and memory fractions alone (the GPU not counted): std = |f0 - f1| / 2."""
    scores: np.ndarray = np.trunc((1 - np.abs((cpu - memory) / 2)) * float(MAX_NODE_SCORE)).astype(np.int64)
    return scores


def _std_of_three(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The population standard deviation of three fractions, summed in Kubernetes' order."""
    mean = ((a + b) + c) / 3
    total = ((a - mean) * (a - mean) + (b - mean) * (b - mean)) + (c - mean) * (c - mean)
    return np.sqrt(total / 3)


def general_scores(view: K8sNodeView, pod_requested: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The scores for any mix of counted resources (``balanced_allocation_scores`` takes a shorter
    path when cpu and memory are counted on every row and the GPU on none, the pod asking none, or on
    every row)."""
    size = len(rows)
    fractions = np.zeros((size, 3), dtype=np.float64)
    counted = np.zeros((size, 3), dtype=bool)
    for i, col in enumerate(BALANCED_RESOURCES):
        if col == GPU_COL and pod_requested[col] == 0:
            continue
        capacity = view.alloc[rows, col]
        requested = view.requested[rows, col] + pod_requested[col]
        counted[:, i] = capacity != 0
        safe = np.where(capacity == 0, 1, capacity).astype(np.float64)
        fractions[:, i] = np.minimum(requested.astype(np.float64) / safe, 1.0)
    count = counted.sum(axis=1)
    # Counted fractions first, in resource order (the order Kubernetes appends them).
    order = np.argsort(~counted, axis=1, kind="stable")
    ordered = np.take_along_axis(fractions, order, axis=1)
    first, second, third = ordered[:, 0], ordered[:, 1], ordered[:, 2]
    std = np.zeros(size, dtype=np.float64)
    two = count == 2
    std[two] = np.abs((first[two] - second[two]) / 2)
    three = count == 3
    if np.any(three):
        std[three] = _std_of_three(first[three], second[three], third[three])
    return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
