"""The in-memory cluster of ``fumarole schedule``: decisions take effect between cycles.

After a cycle, a bind makes its pod Running on the node (with the annotations plugins wrote at
allocation), an eviction deletes the pod, as if the kubelet and the controllers had acted at once,
and a preemptor pipelined where victims were evicted gets ``status.nominatedNodeName`` (as the
scheduler's job updater writes it). The simulator replaces this with timed kubelets, controllers and
grace periods.
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
            metadata = metadata.model_copy(
                update={"annotations": {**metadata.annotations, **bind.annotations}}
            )
        spec = pod.spec.model_copy(update={"node_name": bind.node})
        status = pod.status.model_copy(update={"phase": "Running", "nominated_node_name": ""})
        cache.put(pod.model_copy(update={"metadata": metadata, "spec": spec, "status": status}))
    for eviction in decisions.evictions:
        cache.delete("Pod", eviction.pod)
    for nomination in decisions.nominations:
        pod = cache.pods.get(nomination.pod)
        if pod is None or pod.spec.node_name:
            continue
        status = pod.status.model_copy(update={"nominated_node_name": nomination.node})
        cache.put(pod.model_copy(update={"status": status}))
