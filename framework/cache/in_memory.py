"""The in-memory cluster of ``fumarole schedule``: decisions take effect between cycles.

After a cycle, a bind makes its pod Running on the node (with the annotations plugins wrote at
allocation), and an eviction deletes the pod, as if the kubelet and the controllers had acted at
once. The simulator replaces this with timed kubelets, controllers and grace periods.
"""

from __future__ import annotations

from ..decisions import CycleDecisions
from .cluster_cache import ClusterCache


def apply_decisions(cache: ClusterCache, decisions: CycleDecisions) -> None:
    for bind in decisions.binds:
        pod = cache.pods.get(bind.pod)
        if pod is None:
            continue
        metadata = pod.metadata
        if bind.annotations:
            metadata = metadata.model_copy(update={"annotations": {**metadata.annotations, **bind.annotations}})
        spec = pod.spec.model_copy(update={"node_name": bind.node})
        status = pod.status.model_copy(update={"phase": "Running"})
        cache.put(pod.model_copy(update={"metadata": metadata, "spec": spec, "status": status}))
    for eviction in decisions.evictions:
        cache.delete("Pod", eviction.pod)
