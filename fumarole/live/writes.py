"""A cycle's decisions as the Kubernetes API requests that carry them out, in decision order.

What Volcano's binder and status updater send (``pkg/scheduler/cache/cache.go``: ``defaultBinder.Bind``
posts a ``v1`` Binding with the pod's UID and the annotations plugins wrote at allocation;
``pkg/scheduler/framework/job_updater.go`` writes a PodGroup's status only when it changed,
``isPodGroupStatusUpdated``), with one deliberate difference (docs/differences.md): an eviction is a
``policy/v1`` Eviction, which honours PodDisruptionBudgets, where Volcano's ``defaultEvictor`` marks the
pod's conditions and deletes it.

* ``bind``: ``POST /api/v1/namespaces/NS/pods/NAME/binding``, a ``v1`` Binding (metadata: the pod's
  name, namespace, UID when the input gave one, the annotations written at allocation; target: the Node);
* ``evict``: ``POST /api/v1/namespaces/NS/pods/NAME/eviction``, a ``policy/v1`` Eviction;
* ``nominate``: ``PATCH /api/v1/namespaces/NS/pods/NAME/status`` (merge patch) setting
  ``status.nominatedNodeName``; a nomination allocate dropped is cleared with ``null``;
* ``podgroup``: ``PATCH /apis/scheduling.volcano.sh/v1beta1/namespaces/NS/podgroups/NAME/status``
  (merge patch) with the whole new status (phase, every condition, running/succeeded/failed), for the
  PodGroups whose status changed (a merge patch replaces the conditions list whole).

Decision order: the binds and evictions action by action, in the conf's action order (within an
action the evictions first: the victims make the room); then the nominations and the dropped
nominations (written at session close, by pod); then the PodGroup statuses (by PodGroup), as the job
updater writes them last. Every body is a complete object of its kind (the patches carry
``apiVersion``, ``kind`` and ``metadata``, which a merge patch leaves as they are), so that
``yaml_stream`` prints a stream a user can read and replay (docs/running-against-a-cluster.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import yaml

from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.apply import statuses_to_write
from fumarole.framework.cache.objects import PodGroupCondition
from fumarole.framework.decisions import CycleDecisions, PodGroupPhase

BIND = "bind"
EVICT = "evict"
NOMINATE = "nominate"
PODGROUP = "podgroup"

PODGROUP_API = "scheduling.volcano.sh/v1beta1"


@dataclass(frozen=True)
class Write:
    """One request: what it is for (``verb``: bind, evict, nominate, podgroup), the object it is
    about (``namespace``/``name``; a pod or a PodGroup), the HTTP method and path, and its body."""

    verb: str
    namespace: str
    name: str
    method: str
    path: str
    body: dict[str, Any]
    action: str = ""
    """The action that decided a bind or an eviction ("" for the writes of session close)."""
    node: str = ""
    """The node of a bind, an eviction (the victim's) or a nomination."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def describe(self) -> str:
        return f"{self.method} {self.path}"


def _split(key: str) -> tuple[str, str]:
    namespace, _, name = key.partition("/")
    return namespace, name


def _pod_path(namespace: str, name: str, sub: str) -> str:
    return f"/api/v1/namespaces/{namespace}/pods/{name}/{sub}"


def rfc3339(seconds: float) -> str:
    """A timestamp as Kubernetes writes it (UTC, whole seconds)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def bind_write(
    cache: ClusterCache | None, key: str, node: str, annotations: dict[str, str], action: str
) -> Write:
    namespace, name = _split(key)
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    pod = cache.pods.get(key) if cache is not None else None
    if pod is not None and pod.metadata.uid != pod.default_uid():
        metadata["uid"] = pod.metadata.uid
    if annotations:
        metadata["annotations"] = dict(sorted(annotations.items()))
    body = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": metadata,
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }
    return Write(BIND, namespace, name, "POST", _pod_path(namespace, name, "binding"), body, action, node)


def evict_write(key: str, action: str, node: str = "") -> Write:
    namespace, name = _split(key)
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}}
    return Write(EVICT, namespace, name, "POST", _pod_path(namespace, name, "eviction"), body, action, node)


def nominate_write(key: str, node: str | None) -> Write:
    namespace, name = _split(key)
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "status": {"nominatedNodeName": node},
    }
    return Write(
        NOMINATE, namespace, name, "PATCH", _pod_path(namespace, name, "status"), body, "", node or ""
    )


def _condition(condition: PodGroupCondition) -> dict[str, Any]:
    out: dict[str, Any] = {"type": condition.type, "status": condition.status}
    if condition.transition_id:
        out["transitionID"] = condition.transition_id
    if condition.last_transition_time is not None:
        out["lastTransitionTime"] = rfc3339(condition.last_transition_time)
    if condition.reason:
        out["reason"] = condition.reason
    if condition.message:
        out["message"] = condition.message
    return out


def podgroup_write(state: PodGroupPhase) -> Write:
    namespace, name = _split(state.podgroup)
    status: dict[str, Any] = {
        "phase": state.phase,
        "conditions": [_condition(condition) for condition in state.conditions],
        "running": state.running,
        "succeeded": state.succeeded,
        "failed": state.failed,
    }
    body = {
        "apiVersion": PODGROUP_API,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "status": status,
    }
    path = f"/apis/{PODGROUP_API}/namespaces/{namespace}/podgroups/{name}/status"
    return Write(PODGROUP, namespace, name, "PATCH", path, body)


def _action_rank(action_order: Sequence[str]) -> dict[str, int]:
    return {name: rank for rank, name in enumerate(dict.fromkeys(action_order))}


def decision_writes(
    decisions: CycleDecisions, cache: ClusterCache | None, action_order: Sequence[str] = ()
) -> list[Write]:
    """The requests that carry out ``decisions``, in decision order (module docstring). ``cache`` is
    the cluster before the decisions are applied: it tells the pods' UIDs, which PodGroup statuses
    changed and which dropped nominations are set; without it every PodGroup status is written."""
    rank = _action_rank(action_order)
    actions = list(rank)
    decided = [e.action for e in decisions.evictions] + [b.action for b in decisions.binds]
    for action in decided:
        if action not in rank:
            rank[action] = len(rank)
            actions.append(action)
    writes: list[Write] = []
    for action in actions:
        writes.extend(evict_write(e.pod, e.action, e.node) for e in decisions.evictions if e.action == action)
        writes.extend(
            bind_write(cache, b.pod, b.node, b.annotations, b.action)
            for b in decisions.binds
            if b.action == action
        )
    nominated = {nomination.pod: nomination.node for nomination in decisions.nominations}
    for key in decisions.dropped_nominations:
        if key in nominated:
            continue
        pod = cache.pods.get(key) if cache is not None else None
        if cache is None or (pod is not None and pod.status.nominated_node_name):
            nominated[key] = ""
    for key in sorted(nominated):
        writes.append(nominate_write(key, nominated[key] or None))
    for state in (
        decisions.podgroups
        if cache is None
        else statuses_to_write(decisions, cache.pod_groups, cache.same_statuses)
    ):
        writes.append(podgroup_write(state))
    return writes


def yaml_stream(writes: Iterable[Write], *, cycle: int | None = None) -> str:
    """The writes as YAML documents, each headed by a comment naming its request (and cycle)."""
    parts: list[str] = []
    for write in writes:
        where = f"cycle {cycle}: " if cycle is not None else ""
        header = f"---\n# {where}{write.describe()}\n"
        parts.append(header + yaml.safe_dump(write.body, sort_keys=False, allow_unicode=True))
    return "".join(parts)
