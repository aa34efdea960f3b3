"""Volcano's PodGroup controller: a PodGroup for each of our pods that names none.

Upstream: ``pkg/controllers/podgroup/pg_controller.go`` (``processNextReq``: which pods) and
``pg_controller_handler.go`` (``createNormalPodPGIfNotExist``, ``buildPodGroupFromPod``,
``getAnnotationsFromUpperRes``, ``getMinMemberFromUpperRes``, ``inheritUpperAnnotations``,
``parseNetworkTopologyFromPod``, ``newPGOwnerReferences``, ``updatePodAnnotations``); the name from
``staging/src/volcano.sh/apis/pkg/apis/helpers/helpers.go`` ``GeneratePodgroupName``;
issue11-reference §2.

A pod is handled when its ``schedulerName`` is ours (``Settings.owns``) and it has no
``scheduling.k8s.io/group-name`` annotation. Its PodGroup:

* name ``podgroup-<UID of its controlling owner>``, else ``podgroup-<pod UID>``: the pods of one
  controller share one PodGroup; namespace: the pod's;
* built from the first such pod (by creation time, then name) only when no PodGroup of that name
  exists — one that exists (in the snapshot, or made for an earlier pod) is used as it is;
* ``minMember`` 1, or the owner's annotation ``scheduling.volcano.sh/group-min-member`` (a
  ReplicaSet or StatefulSet owner in the snapshot; an unparsable or negative value gives 1);
* ``minResources`` = the pod's quota usage × ``minMember`` (``usage.task_requests``);
* ``queue`` from the pod's annotation ``scheduling.volcano.sh/queue-name``, else ``default`` (the
  PodGroup CRD default and the scheduler's ``--default-queue``);
* ``priorityClassName`` = the pod's (after admission: the global default's name when it named none);
* ``ownerReferences``: the pod's whole list when one is a controller, else a controller reference to
  the pod;
* annotations: the owner's ``volcano.sh/*`` annotations, then from the pod ``volcano.sh/preemptable``,
  ``volcano.sh/cooldown-time``, ``volcano.sh/revocable-zone`` and ``volcano.sh/jdb-min-available``
  (else ``volcano.sh/jdb-max-unavailable``); labels ``volcano.sh/preemptable`` and
  ``volcano.sh/cooldown-time`` from the pod's labels;
* ``networkTopology`` from the pod's annotations ``volcano.sh/network-topology-mode`` (``hard`` /
  ``soft``, any case; another value is ``hard``) and ``volcano.sh/network-topology-highest-tier`` (an
  integer; another value is left out): present when either annotation is;
* phase Pending.

Then the pod gets the annotation ``scheduling.k8s.io/group-name`` (``updatePodAnnotations``).
Each PodGroup made here is a ``Code.DEFAULTED`` diagnostic.

Owners of kind DaemonSet and (batch/v1) Job are read upstream too; fumarole does not read those
kinds, so their annotations are not inherited.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from ...api.task_info import GROUP_NAME_ANNOTATION
from ...diagnostics import Code
from ..journal import Journal
from ..objects import KubeObject, Pod, PodGroup, ReplicaSet, StatefulSet
from .base import ControllerContext, controller_ref
from .naming import object_uid
from .usage import render, task_requests

PODGROUP_PREFIX = "podgroup-"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
MIN_MEMBER_ANNOTATION = "scheduling.volcano.sh/group-min-member"
ANNOTATION_PREFIX = "volcano.sh/"
TOPOLOGY_MODE_ANNOTATION = "volcano.sh/network-topology-mode"
TOPOLOGY_TIER_ANNOTATION = "volcano.sh/network-topology-highest-tier"
DEFAULT_QUEUE = "default"
_COPIED_ANNOTATIONS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time", "volcano.sh/revocable-zone")
_COPIED_LABELS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time")
_INT32 = re.compile(r"^[+-]?[0-9]+$")
_OWNER_KINDS: dict[str, type[KubeObject]] = {"ReplicaSet": ReplicaSet, "StatefulSet": StatefulSet}


def podgroup_name(pod: Pod) -> str:
    """``GeneratePodgroupName``."""
    ref = pod.metadata.controller_owner()
    return PODGROUP_PREFIX + (ref.uid if ref is not None else pod.metadata.uid)


def owner_annotations(ctx: ControllerContext, pod: Pod) -> dict[str, str]:
    """``getAnnotationsFromUpperRes``: the annotations of the pod's owners found in the snapshot, the
    first owner winning per key."""
    merged: dict[str, str] = {}
    for ref in pod.metadata.owner_references:
        cls = _OWNER_KINDS.get(ref.kind)
        if cls is None or not ref.name:
            continue
        owner = ctx.get(cls, f"{pod.metadata.namespace}/{ref.name}")
        if owner is None:
            continue
        for key, value in owner.metadata.annotations.items():
            merged.setdefault(key, value)
    return merged


def min_member(annotations: dict[str, str]) -> int:
    """``getMinMemberFromUpperRes``: the owner's ``group-min-member`` (``strconv.ParseInt(s, 10, 32)``);
    1 when absent, unparsable or negative."""
    raw = annotations.get(MIN_MEMBER_ANNOTATION)
    if raw is None or _INT32.match(raw) is None:
        return 1
    value = int(raw)
    return value if 0 <= value < 2**31 else 1


def network_topology(pod: Pod) -> dict[str, object] | None:
    """``parseNetworkTopologyFromPod``."""
    annotations = pod.metadata.annotations
    if TOPOLOGY_MODE_ANNOTATION not in annotations and TOPOLOGY_TIER_ANNOTATION not in annotations:
        return None
    topology: dict[str, object] = {"mode": "hard"}
    mode = annotations.get(TOPOLOGY_MODE_ANNOTATION, "").lower()
    if mode in ("hard", "soft"):
        topology["mode"] = mode
    tier = annotations.get(TOPOLOGY_TIER_ANNOTATION)
    if tier is not None and _INT32.match(tier) is not None:
        topology["highestTierAllowed"] = int(tier)
    return topology


def build_pod_group(ctx: ControllerContext, pod: Pod, name: str) -> PodGroup:
    """``buildPodGroupFromPod``."""
    upper = owner_annotations(ctx, pod)
    members = min_member(upper)
    annotations = {key: value for key, value in upper.items() if key.startswith(ANNOTATION_PREFIX)}
    pod_annotations = pod.metadata.annotations
    for key in _COPIED_ANNOTATIONS:
        if key in pod_annotations:
            annotations[key] = pod_annotations[key]
    for key in ("volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable"):
        if key in pod_annotations:
            annotations[key] = pod_annotations[key]
            break
    labels = {key: pod.metadata.labels[key] for key in _COPIED_LABELS if key in pod.metadata.labels}
    owners = pod.metadata.owner_references
    if not any(ref.controller for ref in owners):
        owners = [controller_ref(pod)]
    spec: dict[str, object] = {
        "minMember": members,
        "minResources": render(task_requests(pod.spec, members, pod.status.phase)),
        "queue": pod_annotations.get(QUEUE_ANNOTATION, DEFAULT_QUEUE) or DEFAULT_QUEUE,
        "priorityClassName": pod.spec.priority_class_name,
    }
    topology = network_topology(pod)
    if topology is not None:
        spec["networkTopology"] = topology
    return PodGroup.model_validate(
        {
            "apiVersion": PodGroup.API_VERSION,
            "kind": "PodGroup",
            "metadata": {
                "name": name,
                "namespace": pod.metadata.namespace,
                "uid": object_uid(f"{pod.metadata.namespace}/{name}", 0),
                "creationTimestamp": pod.metadata.creation_timestamp,
                "ownerReferences": [ref.model_dump(by_alias=True) for ref in owners],
                "annotations": annotations,
                "labels": labels,
            },
            "spec": spec,
            "status": {"phase": "Pending"},
        }
    )


def reconcile(ctx: ControllerContext) -> None:
    settled = ctx.settled_pods
    owns = ctx.settings.owns
    pods: list[Pod] = []
    for key, pod in _unsettled_candidates(ctx):
        if settled.get(key) is pod:
            continue
        if needs_pod_group(pod, owns):
            pods.append(pod)
        else:
            settled[key] = pod
    pods.sort(key=lambda pod: (pod.metadata.creation, pod.metadata.namespace, pod.metadata.name))
    for pod in pods:
        name = podgroup_name(pod)
        key = f"{pod.metadata.namespace}/{name}"
        if ctx.get(PodGroup, key) is None:
            pod_group = build_pod_group(ctx, pod, name)
            ctx.put(pod_group)
            ctx.created.append(pod_group)
            owner = pod.metadata.controller_owner()
            whose = (
                f"{owner.kind} {pod.metadata.namespace}/{owner.name}"
                if owner is not None
                else f"Pod {pod.key}"
            )
            ctx.diagnostics.add(
                Code.DEFAULTED,
                f"PodGroup {key}",
                f"PodGroup {key} created for {whose} (schedulerName {pod.spec.scheduler_name or '<empty>'}, "
                f"no {GROUP_NAME_ANNOTATION} annotation), as Volcano's PodGroup controller does: minMember "
                f"{pod_group.spec.min_member}, queue {pod_group.spec.queue}",
            )
        annotations = {**pod.metadata.annotations, GROUP_NAME_ANNOTATION: name}
        ctx.put(
            pod.model_copy(update={"metadata": pod.metadata.model_copy(update={"annotations": annotations})})
        )


def needs_pod_group(pod: Pod, owns: Callable[[str], bool]) -> bool:
    """A pod of ours (``owns`` its scheduler name) without a group annotation."""
    return owns(pod.spec.scheduler_name) and not pod.metadata.annotations.get(GROUP_NAME_ANNOTATION)


def settle_if_none_needs_one(
    pods: Mapping[str, Pod], keys: Iterable[str], settled: dict[str, Pod], owns: Callable[[str], bool]
) -> bool:
    """What ``reconcile`` does when it looks at the pods of ``keys`` (those ``pods`` holds) and none
    needs a PodGroup: settle them, and say so; if one needs a PodGroup, settle nothing and say so."""
    found = []
    for key in keys:
        pod = pods.get(key)
        if pod is None or settled.get(key) is pod:
            continue
        if needs_pod_group(pod, owns):
            return False
        found.append((key, pod))
    settled.update(found)
    return True


def _unsettled_candidates(ctx: ControllerContext) -> Iterable[tuple[str, Pod]]:
    """The pods that may need a PodGroup: every pod, or when the cache knows which pods were written
    since the controllers last ran (``ctx.unseen_pods``), those and the ones staged since."""
    store = ctx.stores[Pod.KIND]
    staged = store.recent() if isinstance(store, Journal) else None
    if ctx.unseen_pods is None or staged is None:
        return store.items()
    keys = dict.fromkeys(ctx.unseen_pods)
    keys.update(staged)
    return [(key, store[key]) for key in keys if key in store]
