"""Helpers to test plugins and actions in isolation (the counterpart of Volcano's ``uthelper``).

Build Kubernetes objects in one line, put them in a cache, and open a session with exactly the
plugins and flags you want::

    objects = [
        build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "pg1", min_member=2),
        build_pod("ns", "p1", group="pg1", requests={"cpu": "1"}),
    ]
    harness = Harness(objects, conf=SchedulerConf(actions="allocate", tiers=[Tier(plugins=[
        PluginOption(name="gang", enabled_job_ready=True)])]))
    ssn = harness.open_session()

A conf built in code keeps unset flags disabled, exactly as Volcano's unit tests do; pass YAML text
(``conf="actions: ..."``) to get Volcano's defaulting instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .cache.cluster_cache import ClusterCache
from .cache.objects import HyperNode, KubeObject, Node, Pod, PodGroup, PriorityClass, Queue
from .conf import SchedulerConf, parse_conf
from .decisions import CycleDecisions
from .interface import Action, PluginBuilder
from .registry import Registry
from .scheduler import Scheduler
from .session import Session
from .settings import Settings

GROUP_NAME = "scheduling.k8s.io/group-name"


def build_node(
    name: str,
    allocatable: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    taints: Sequence[Mapping[str, str]] = (),
    unschedulable: bool = False,
    ready: bool | None = None,
    capacity: Mapping[str, Any] | None = None,
) -> Node:
    status: dict[str, Any] = {"allocatable": dict(allocatable), "capacity": dict(capacity or allocatable)}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
    return Node.model_validate(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": dict(labels or {}), "annotations": dict(annotations or {})},
            "spec": {"unschedulable": unschedulable, "taints": [dict(t) for t in taints]},
            "status": status,
        }
    )


def build_pod(
    namespace: str,
    name: str,
    *,
    requests: Mapping[str, Any] | None = None,
    node: str = "",
    phase: str = "Pending",
    group: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    priority: int | None = None,
    priority_class: str = "",
    scheduler_name: str = "",
    uid: str | None = None,
    creation: str | float | None = None,
    deleting: bool = False,
    node_selector: Mapping[str, str] | None = None,
    tolerations: Sequence[Mapping[str, Any]] = (),
    affinity: Mapping[str, Any] | None = None,
    preemption_policy: str = "",
    nominated_node: str = "",
    image: str = "",
    owner: Mapping[str, Any] | None = None,
    extra_spec: Mapping[str, Any] | None = None,
) -> Pod:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": dict(labels or {}),
        "annotations": dict(annotations or {}),
    }
    if group:
        meta["annotations"][GROUP_NAME] = group
    if uid:
        meta["uid"] = uid
    if creation is not None:
        meta["creationTimestamp"] = creation
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if owner is not None:
        meta["ownerReferences"] = [dict(owner)]
    spec: dict[str, Any] = {
        "nodeName": node,
        "schedulerName": scheduler_name,
        "containers": [{"name": "main", "image": image, "resources": {"requests": dict(requests or {})}}],
        "priorityClassName": priority_class,
        "nodeSelector": dict(node_selector or {}),
        "tolerations": [dict(t) for t in tolerations],
        "preemptionPolicy": preemption_policy,
    }
    if priority is not None:
        spec["priority"] = priority
    if affinity is not None:
        spec["affinity"] = dict(affinity)
    spec.update(extra_spec or {})
    status: dict[str, Any] = {"phase": phase}
    if nominated_node:
        status["nominatedNodeName"] = nominated_node
    return Pod.model_validate(
        {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
    )


def build_pod_group(
    namespace: str,
    name: str,
    *,
    min_member: int = 1,
    queue: str = "default",
    phase: str = "Inqueue",
    min_resources: Mapping[str, Any] | None = None,
    min_task_member: Mapping[str, int] | None = None,
    priority_class: str = "",
    network_topology: Mapping[str, Any] | None = None,
    sub_group_policy: Sequence[Mapping[str, Any]] = (),
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    owner_uid: str | None = None,
    uid: str | None = None,
    creation: str | float | None = None,
) -> PodGroup:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "annotations": dict(annotations or {}),
        "labels": dict(labels or {}),
    }
    if owner_uid:
        meta["ownerReferences"] = [
            {
                "apiVersion": "batch.volcano.sh/v1alpha1",
                "kind": "Job",
                "name": name,
                "uid": owner_uid,
                "controller": True,
            }
        ]
    if uid:
        meta["uid"] = uid
    if creation is not None:
        meta["creationTimestamp"] = creation
    spec: dict[str, Any] = {"minMember": min_member, "queue": queue, "priorityClassName": priority_class}
    if min_resources is not None:
        spec["minResources"] = dict(min_resources)
    if min_task_member:
        spec["minTaskMember"] = dict(min_task_member)
    if network_topology is not None:
        spec["networkTopology"] = dict(network_topology)
    if sub_group_policy:
        spec["subGroupPolicy"] = [dict(p) for p in sub_group_policy]
    return PodGroup.model_validate(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": meta,
            "spec": spec,
            "status": {"phase": phase},
        }
    )


def build_queue(
    name: str,
    *,
    weight: int = 1,
    capability: Mapping[str, Any] | None = None,
    deserved: Mapping[str, Any] | None = None,
    guarantee: Mapping[str, Any] | None = None,
    reclaimable: bool | None = None,
    state: str = "Open",
    priority: int = 0,
    parent: str = "",
    annotations: Mapping[str, str] | None = None,
    creation: str | float | None = None,
) -> Queue:
    spec: dict[str, Any] = {"weight": weight, "priority": priority, "parent": parent}
    if capability is not None:
        spec["capability"] = dict(capability)
    if deserved is not None:
        spec["deserved"] = dict(deserved)
    if guarantee is not None:
        spec["guarantee"] = {"resource": dict(guarantee)}
    if reclaimable is not None:
        spec["reclaimable"] = reclaimable
    meta: dict[str, Any] = {"name": name, "annotations": dict(annotations or {})}
    if creation is not None:
        meta["creationTimestamp"] = creation
    return Queue.model_validate(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": meta,
            "spec": spec,
            "status": {"state": state},
        }
    )


def build_priority_class(name: str, value: int, *, global_default: bool = False) -> PriorityClass:
    return PriorityClass.model_validate(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "globalDefault": global_default,
        }
    )


def build_hyper_node(
    name: str,
    tier: int,
    *,
    nodes: Iterable[str] = (),
    hyper_nodes: Iterable[str] = (),
    node_regex: str | None = None,
    node_labels: Mapping[str, str] | None = None,
    tier_name: str = "",
) -> HyperNode:
    members: list[dict[str, Any]] = [{"type": "Node", "selector": {"exactMatch": {"name": n}}} for n in nodes]
    members += [{"type": "HyperNode", "selector": {"exactMatch": {"name": h}}} for h in hyper_nodes]
    if node_regex is not None:
        members.append({"type": "Node", "selector": {"regexMatch": {"pattern": node_regex}}})
    if node_labels is not None:
        members.append({"type": "Node", "selector": {"labelMatch": {"matchLabels": dict(node_labels)}}})
    return HyperNode.model_validate(
        {
            "apiVersion": "topology.volcano.sh/v1alpha1",
            "kind": "HyperNode",
            "metadata": {"name": name},
            "spec": {"tier": tier, "tierName": tier_name, "members": members},
        }
    )


class Harness:
    """A cache with the given objects and a scheduler with the given conf, plugins and actions.

    ``plugins`` / ``actions`` register in-process extensions on top of the installed entry points
    (set ``entry_points=False`` to use only those given).
    """

    def __init__(
        self,
        objects: Iterable[KubeObject],
        conf: SchedulerConf | str,
        *,
        plugins: Mapping[str, PluginBuilder] | None = None,
        actions: Mapping[str, type[Action] | Any] | None = None,
        entry_points: bool = True,
        settings: Settings | None = None,
    ) -> None:
        self.registry = Registry(entry_points=entry_points)
        for name, builder in (plugins or {}).items():
            self.registry.register_plugin(name, builder)
        for name, factory in (actions or {}).items():
            self.registry.register_action(name, factory)
        self.conf = parse_conf(conf, "<test conf>", self.registry) if isinstance(conf, str) else conf
        self.cache = ClusterCache(settings)
        self.cache.apply_objects(list(objects), source="<test objects>")
        self.scheduler = Scheduler(self.conf, self.cache, registry=self.registry, settings=settings)

    def open_session(self, now: float = 0.0) -> Session:
        return self.scheduler.open_session(now)

    def run(self, cycles: int = 1, now: float = 0.0) -> list[CycleDecisions]:
        from .cache.in_memory import apply_decisions

        results = []
        for cycle in range(cycles):
            decisions = self.scheduler.run_once(now)
            results.append(decisions)
            if cycle < cycles - 1:
                apply_decisions(self.cache, decisions)
        return results
