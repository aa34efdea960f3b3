"""Pod count check of Volcano's ``Predicate`` (``predicates.go``, before the k8s filters).

A node fails with Unschedulable "node(s) pod number exceeded" when ``Allocatable.MaxTaskNum``
(its allocatable ``pods``; 0 when the node declares none) is <= the number of pods on it. The
pods counted are those of the plugin's Kubernetes view (``PodView.count``): every task on the
node at session open, plus tasks allocated or pipelined there in this session, minus those
evicted or rolled back. The check does not stop the filters that follow.
"""

from __future__ import annotations

import numpy as np
from fumarole.framework.api.fit_errors import NODE_POD_NUMBER_EXCEEDED

REASON = NODE_POD_NUMBER_EXCEEDED


def pod_number_exceeded(max_pods: np.ndarray, pod_count: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Mask over ``rows``: True where the node has no room for one more pod."""
    result: np.ndarray = max_pods[rows] <= pod_count[rows]
    return result
