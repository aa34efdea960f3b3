"""A cycle's decision log, applied to the cluster's objects as the API server applies it.

* a bind sets ``spec.nodeName`` (the pod is Bound: Pending with a node) with the annotations plugins
  wrote at allocation, and clears ``status.nominatedNodeName``;
* an eviction sets ``metadata.deletionTimestamp`` (the pod is Releasing until it is deleted);
* a nomination sets ``status.nominatedNodeName`` of a pod that has no node yet;
* a PodGroup status (phase, conditions, counts) is written when it changed, ignoring transition IDs
  and times (``isPodGroupStatusUpdated``);
* a job's allocated hypernodes (network topology) are kept for the next snapshots, as Volcano's cache
  keeps them in its JobInfo.

Decisions about objects that are gone are skipped. What happens next (the kubelet starting the pod,
the pod going away after its grace period) is the world's business: the in-memory cluster of
``schedule`` does it at once (``in_memory``), the simulator over simulated time.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..decisions import CycleDecisions, PodGroupPhase, SameStatuses, UntouchedStatuses
    from .cluster_cache import ClusterCache
    from .objects import PodGroup, PodGroupStatusModel


_condition_key = operator.attrgetter("type", "status", "reason", "message")
"""What ``isPodGroupStatusUpdated`` compares of a condition (not its transition ID nor time)."""


def _status_changed(pg: PodGroup, state: PodGroupPhase) -> bool:
    status = pg.status
    if (
        status.phase != state.phase
        or status.running != state.running
        or status.succeeded != state.succeeded
        or status.failed != state.failed
    ):
        return True
    old, new = status.conditions, state.conditions
    return len(old) != len(new) or list(map(_condition_key, old)) != list(map(_condition_key, new))


def apply_decisions(cache: ClusterCache, decisions: CycleDecisions, now: float = 0.0) -> None:
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
        status = pod.status.model_copy(update={"nominated_node_name": ""})
        cache.put(pod.model_copy(update={"metadata": metadata, "spec": spec, "status": status}))
    for eviction in decisions.evictions:
        pod = cache.pods.get(eviction.pod)
        if pod is None or pod.metadata.deletion_timestamp is not None:
            continue
        cache.put(
            pod.model_copy(update={"metadata": pod.metadata.model_copy(update={"deletion_timestamp": now})})
        )
    for nomination in decisions.nominations:
        pod = cache.pods.get(nomination.pod)
        if pod is None or pod.spec.node_name:
            continue
        cache.put(
            pod.model_copy(
                update={"status": pod.status.model_copy(update={"nominated_node_name": nomination.node})}
            )
        )
    renominated = {nomination.pod for nomination in decisions.nominations}
    for key in decisions.dropped_nominations:
        pod = cache.pods.get(key)
        if pod is None or key in renominated or not pod.status.nominated_node_name:
            continue
        cache.put(
            pod.model_copy(update={"status": pod.status.model_copy(update={"nominated_node_name": ""})})
        )
    for uid, nominated in decisions.nominated_hyper_nodes.items():
        if nominated:
            cache.nominated_hyper_nodes[uid] = dict(nominated)
        else:
            cache.nominated_hyper_nodes.pop(uid, None)
    for uid, allocated in decisions.allocated_hyper_nodes.items():
        if allocated[0] or allocated[1]:
            cache.allocated_hyper_nodes[uid] = allocated
        else:
            cache.allocated_hyper_nodes.pop(uid, None)
    for state in statuses_to_write(decisions, cache.pod_groups, cache.same_statuses):
        pg = cache.pod_groups[state.podgroup]
        pg_status = pg.status.model_copy(
            update={
                "phase": state.phase,
                "conditions": list(state.conditions),
                "running": state.running,
                "succeeded": state.succeeded,
                "failed": state.failed,
            }
        )
        cache.pod_groups[state.podgroup] = pg.model_copy(update={"status": pg_status})


def statuses_to_write(
    decisions: CycleDecisions, pod_groups: Mapping[str, PodGroup], same: SameStatuses | None = None
) -> list[PodGroupPhase]:
    """The log's PodGroup statuses that differ from their PodGroup's in ``pod_groups`` (those not
    there left out), as ``isPodGroupStatusUpdated`` compares them, in the log's order; the entries of
    untouched jobs (``decisions.UntouchedStatuses``) are made only for those that differ, and ``same``
    (the cache's ``same_statuses``) spares comparing again those found equal before."""

    def changed(state: PodGroupPhase) -> bool:
        pg = pod_groups.get(state.podgroup)
        return pg is not None and _status_changed(pg, state)

    def status_of(uid: str) -> PodGroupStatusModel | None:
        pg = pod_groups.get(uid)
        return None if pg is None else pg.status

    def untouched_changed(statuses: UntouchedStatuses) -> list[str]:
        return statuses.differing(status_of, same)

    return decisions.podgroups.where(changed, untouched_changed)


def podgroup_status_changed(pg: PodGroup, state: PodGroupPhase) -> bool:
    """Whether a PodGroup's written status differs from what a cycle computed (phase, counts,
    conditions; not the transition IDs nor times): when ``isPodGroupStatusUpdated`` would write it."""
    return _status_changed(pg, state)
