"""Kubernetes objects in one line, with Volcano's defaults (the counterpart of Volcano's ``uthelper``
builders ``BuildNode``, ``BuildPod``, ``BuildPodGroup``, ``BuildQueue`` …).

Every builder returns a validated object of ``objects`` (what a snapshot file holds), filled as the
API server and Volcano's controllers would fill it: a pod of a PodGroup carries the
``scheduling.k8s.io/group-name`` annotation, a PodGroup is ``Inqueue`` in queue ``default`` with
``minMember`` 1, a queue is ``Open`` with weight 1, a node's capacity equals its allocatable. Tests,
the simulator and ``fumarole.testing`` build their clusters with them::

    build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"}, labels={"zone": "a"})
    build_pod_group("ns", "pg1", min_member=2)
    build_pod("ns", "p1", group="pg1", requests={"cpu": "1"})
    build_queue("default")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..api.task_info import GROUP_NAME_ANNOTATION
from .objects import HyperNode, Node, Pod, PodGroup, PriorityClass, Queue

__all__ = [
    "GROUP_NAME",
    "build_hyper_node",
    "build_node",
    "build_pod",
    "build_pod_group",
    "build_priority_class",
    "build_queue",
]

GROUP_NAME = GROUP_NAME_ANNOTATION
"""The annotation naming a pod's PodGroup (``build_pod(group=...)`` sets it)."""


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
