"""NodeUnschedulable filter: nodes marked ``spec.unschedulable`` (k8s ``nodeunschedulable``).

Spec: ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``. Always on in
Volcano (no argument disables it). A pod that tolerates the taint
``node.kubernetes.io/unschedulable:NoSchedule`` tolerates the flag too; otherwise the node fails
with UnschedulableAndUnresolvable "node(s) were unschedulable".
"""

from __future__ import annotations

import numpy as np

from .node_columns import NodeColumns, TaintKey
from .taint_toleration import TolerationKey, tolerates

NAME = "NodeUnschedulable"
REASON = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT: TaintKey = ("node.kubernetes.io/unschedulable", "", "NoSchedule")


def tolerates_unschedulable(tolerations: tuple[TolerationKey, ...]) -> bool:
    return any(tolerates(toleration, UNSCHEDULABLE_TAINT) for toleration in tolerations)


def unschedulable_failures(columns: NodeColumns, tolerations: tuple[TolerationKey, ...]) -> np.ndarray:
    """Mask over all rows: True where the node is unschedulable for a pod with these tolerations."""
    if tolerates_unschedulable(tolerations):
        return np.zeros(columns.size, dtype=bool)
    return columns.unschedulable
