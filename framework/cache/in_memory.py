"""The in-memory cluster of ``fumarole schedule``: decisions take effect between cycles, at once.

The decision log is applied as the API server applies it (``ClusterCache.apply``); then the kubelets
and controllers act instantly: a pod just bound is Running on its node, a pod just evicted is deleted,
and the controllers (``ClusterCache.reconcile``) create what is now missing or now allowed — a
workload's pod re-created after an eviction, the next ordinal of an OrderedReady StatefulSet, the
pods of a Volcano Job task whose ``dependsOn`` tasks now run. The simulator replaces this with timed
kubelets, controllers and grace periods.
"""

from __future__ import annotations

from ..decisions import CycleDecisions
from .cluster_cache import ClusterCache


def apply_decisions(cache: ClusterCache, decisions: CycleDecisions) -> None:
    cache.apply(decisions)
    for bind in decisions.binds:
        pod = cache.pods.get(bind.pod)
        if pod is not None and pod.spec.node_name == bind.node:
            cache.put(pod.model_copy(update={"status": pod.status.model_copy(update={"phase": "Running"})}))
    for eviction in decisions.evictions:
        cache.delete("Pod", eviction.pod)
    cache.reconcile()
