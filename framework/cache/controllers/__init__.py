"""The Kubernetes and Volcano controllers that turn workloads into pods and PodGroups.

``fumarole schedule`` reads the files users have: a Volcano Job, a Deployment, a StatefulSet, pods
without a PodGroup. In a cluster, controllers turn those into the objects the scheduler reads; here
each controller is one module, a stateless ``reconcile(ctx)`` that creates what is missing
(``base.py``), run in this order whenever the cluster's objects change:

1. ``deployment`` — a Deployment's ReplicaSet;
2. ``replicaset`` — a ReplicaSet's pods;
3. ``statefulset`` — a StatefulSet's pods;
4. ``volcano_job`` — a Volcano Job's PodGroup and pods (after ``job_webhook``'s defaults);
5. ``podgroup`` — a PodGroup for each of our pods that has none.

A workload whose objects are already in the snapshot (a ``kubectl get all -o yaml`` dump holds the
ReplicaSet and the pods) gets nothing new. ``garbage_collector`` deletes what a deleted object
controlled. Names and UIDs are deterministic (``naming.py``); pod requests count as Volcano's
controllers count them (``usage.py``).
"""

from __future__ import annotations

from . import deployment, podgroup, replicaset, statefulset, volcano_job
from .base import ControllerContext
from .garbage_collector import ControlledIndex, collect

CONTROLLERS = (deployment, replicaset, statefulset, volcano_job, podgroup)
"""The controllers, in the order they run."""


def run_controllers(ctx: ControllerContext) -> None:
    """Run every controller once over the staged objects (each sees what the previous ones made)."""
    for controller in CONTROLLERS:
        controller.reconcile(ctx)


__all__ = ["CONTROLLERS", "ControlledIndex", "ControllerContext", "collect", "run_controllers"]
