"""The simulated cluster: Kubernetes objects in a ``ClusterCache``, and a record of every pod's life.

Controllers create pods and PodGroups here; the kubelets and the scheduler's decisions change them.
Every change bumps ``version`` so the scheduling loop can skip cycles in which nothing changed.
``has_work()`` tells whether a cycle could act at all (a pending pod, a PodGroup not yet Running or
Completed, a PodGroup that lost or finished a pod since the last cycle): it keeps the pods and
PodGroups created since they were last seen settled, so it costs what changed, not the cluster's size.
``phase_flips()`` tells whether all a cycle would do is turn the PodGroups the cycle before bound
from Inqueue to Running, and with which statuses.

GPUs are counted in milli-GPUs: whole GPUs (``gpus`` / ``gpus_per_pod``) plus the GPU-sharing scalar
``alibabacloud.com/gpu-milli`` of openb traces (node ``resources``, pod ``extra_resources``), so the
GPU allocation ratio covers trace replays too.

NPU node groups get what the Ascend plugin reads on a real node: labels ``accelerator`` and
``accelerator-type``, the annotation ``baseDeviceInfos`` listing every chip, and the device-plugin
annotations ``<resource>`` (free chips), ``<resource>-Unhealthy``, ``<resource>-NetworkUnhealthy``
and ``<resource>-Recovering``. Groups with ``super_pod_size`` / ``rack_size`` also get their
super-pod and rack IDs in ClusterD's device-info ConfigMap (``super_pods``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fumarole.framework.api.job_info import POD_GROUP_INQUEUE
from fumarole.framework.api.quantity import parse_quantity
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import (
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from fumarole.framework.cache.objects import Node, OwnerReference, Pod, PodGroup, PodGroupCondition
from fumarole.framework.decisions import PodGroupPhase
from fumarole.framework.job_updater import UNSCHEDULABLE_CONDITION, pod_group_phase
from fumarole.framework.session import session_uid
from fumarole.framework.settings import Settings

from .image_cache import ImageCache
from .super_pods import device_info_config_map
from .trace import GPU_MILLI
from .workload import FaultSpec, NodeGroup, PodShape, StartupSpec, Workload, accelerator_resource

if TYPE_CHECKING:
    from fumarole.framework.decisions import CycleDecisions

RANK_ANNOTATION = "hccl/rankIndex"
SETTLED_PHASES = ("Running", "Completed")
GB = 1e9


def _milli(quantity: str | int | float) -> int:
    """A ``gpu-milli`` quantity (milli-GPUs, e.g. ``"460"``) as an int."""
    return int(parse_quantity(quantity))


@dataclass
class PodRecord:
    """One pod's life, for the metrics."""

    key: str
    uid: str
    owner: str
    owner_kind: str
    rank: int
    image: str
    npus: int
    gpu_milli: int
    created: float
    recreated: bool = False
    previous_node: str = ""
    node: str = ""
    bound: float | None = None
    running: float | None = None
    ended: float | None = None
    end_reason: str = ""
    pulled: bool = False
    accelerators_released: bool = False
    startup: StartupSpec | None = None
    """Start-up phases after the image is on the node (None: none, the pod starts at once)."""
    started: float | None = None
    """When the framework finished starting (after ``running``); the pod's controller is told then."""
    image_held: bool = False
    """The pod's container holds its image's layers (they cannot be evicted) until it ends."""
    image_on_node: bool | None = None
    """Whether the node held the pod's image when the pod was bound (``outcomes.assess_bind``)."""
    return_possible: bool | None = None
    """For a re-created pod: whether its previous node could take it when it was bound."""


@dataclass
class NodeState:
    name: str
    group: NodeGroup
    cache: ImageCache
    npus: int
    gpu_milli: int
    faults: list[FaultSpec] = field(default_factory=list)
    """The node's active faults, in the order they started."""
    down: bool = False
    """The machine is down (a ``hard`` fault detected the Kubernetes way): its kubelet does nothing."""
    not_ready: bool = False
    """The node lifecycle controller has marked the node NotReady (``simulator/node_lifecycle.py``)."""


class SimCluster:
    """Objects, pod records and node states of one simulation run."""

    def __init__(self, workload: Workload, settings: Settings) -> None:
        self.workload = workload
        self.cache = ClusterCache(settings)
        self.version = 0
        self.records: dict[str, PodRecord] = {}
        self.history: dict[tuple[str, int], str] = {}
        self.nodes: dict[str, NodeState] = {}
        self.image_layers = {image.name: image.layer_sizes() for image in workload.images}
        """Each image's layers, (digest, bytes), base first."""
        self.images = {name: sum(size for _, size in layers) for name, layers in self.image_layers.items()}
        self._uid_counter = 0
        self._maybe_pending: dict[str, None] = {}
        """Pod keys created or re-applied that were not yet seen bound, deleting or gone (ordered)."""
        self._unsettled_groups: dict[str, None] = {}
        """PodGroup keys not yet seen Running or Completed since they were created or last written."""
        self._touched_groups: dict[str, None] = {}
        """PodGroup keys one of whose pods finished, failed, is being deleted or went away since the
        last cycle that ran (its status would change)."""
        self._last_session: tuple[int, str] | None = None
        """The cycle number and session UID of the last cycle, when it ran a session."""
        self._last_states: dict[str, PodGroupPhase] = {}
        """The statuses that session wrote on PodGroups it left neither Running nor Completed."""
        objects: list[Any] = []
        for group in workload.cluster.node_groups:
            for name in group.node_names():
                objects.append(self._node_object(group, name))
                self.nodes[name] = NodeState(
                    name,
                    group,
                    ImageCache(group.image_cache_gb * GB),
                    group.npu.chips if group.npu is not None else 0,
                    group.gpus * 1000 + _milli(group.resources.get(GPU_MILLI, 0)),
                )
        self.prepulled_bytes = 0.0
        """Bytes a pre-pull DaemonSet put on the nodes before the run (``images[].prepull``)."""
        for state in self.nodes.values():
            for image in workload.images:
                if image.prepull:
                    for digest, size in image.layer_sizes():
                        if size > 0 and digest not in state.cache:
                            state.cache.add(digest, size)
                            self.prepulled_bytes += size
                        if size > 0:
                            state.cache.acquire(digest)  # the DaemonSet's pod keeps running from it
        for queue in workload.cluster.queues:
            objects.append(
                build_queue(
                    queue.name,
                    weight=queue.weight,
                    capability=queue.capability,
                    deserved=queue.deserved,
                    guarantee=queue.guarantee,
                    reclaimable=queue.reclaimable,
                    priority=queue.priority,
                )
            )
        objects += [build_priority_class(pc.name, pc.value) for pc in workload.cluster.priority_classes]
        objects += [
            build_hyper_node(
                hn.name,
                hn.tier,
                nodes=hn.nodes,
                hyper_nodes=hn.hyper_nodes,
                node_regex=hn.node_regex,
                tier_name=hn.tier_name,
            )
            for hn in workload.cluster.hypernodes
        ]
        device_infos = device_info_config_map(workload.cluster.node_groups)
        if device_infos is not None:
            objects.append(device_infos)
        self.cache.apply_objects(objects, source="<workload>")
        self.total_npus = sum(state.npus for state in self.nodes.values())
        self.total_gpu_milli = sum(state.gpu_milli for state in self.nodes.values())
        self.allocated_npus = 0
        self.allocated_gpu_milli = 0

    # ------------------------------------------------------------------ nodes
    @staticmethod
    def _node_object(group: NodeGroup, name: str) -> Node:
        allocatable = dict(group.resources)
        labels = {"kubernetes.io/hostname": name, **group.labels}
        annotations: dict[str, str] = {}
        if group.gpus:
            allocatable[group.gpu_resource] = group.gpus
        npu = group.npu
        if npu is not None:
            allocatable[npu.resource] = npu.chips
            labels.setdefault("accelerator", npu.accelerator)
            labels.setdefault("accelerator-type", npu.accelerator_type)
            chips = [f"{npu.chip_prefix}{index}" for index in range(npu.chips)]
            annotations["baseDeviceInfos"] = json.dumps(
                {
                    chip: {"IP": f"192.168.{index}.1", "SuperDeviceID": index}
                    for index, chip in enumerate(chips)
                },
                separators=(",", ":"),
            )
            annotations[npu.resource] = ",".join(chips)
            for suffix in ("Unhealthy", "NetworkUnhealthy", "Recovering"):
                annotations[f"{npu.resource}-{suffix}"] = ""
        return build_node(name, allocatable, labels=labels, annotations=annotations)

    def update_node(
        self,
        name: str,
        *,
        annotations: dict[str, str] | None = None,
        taints: list[dict[str, str]] | None = None,
        ready: str | None = None,
    ) -> None:
        """Write the node's annotations (merged), taints (replaced) and, with ``ready`` (``"True"``,
        ``"False"``, ``"Unknown"``), its Ready condition."""
        node = self.cache.nodes[name]
        meta = node.metadata
        if annotations is not None:
            meta = meta.model_copy(update={"annotations": {**meta.annotations, **annotations}})
        spec = node.spec
        if taints is not None:
            spec = Node.model_validate({"metadata": {"name": name}, "spec": {"taints": taints}}).spec
        update: dict[str, Any] = {"metadata": meta, "spec": spec}
        if ready is not None:
            others = [c.model_dump(by_alias=True) for c in node.status.conditions if c.type != "Ready"]
            conditions = [*others, {"type": "Ready", "status": ready}] if ready != "True" or others else []
            status = node.status.model_copy(
                update={
                    "conditions": Node.model_validate(
                        {"metadata": {"name": name}, "status": {"conditions": conditions}}
                    ).status.conditions
                }
            )
            update["status"] = status
        self.cache.put(node.model_copy(update=update))
        self.version += 1

    # ------------------------------------------------------------------ pods
    def next_uid(self, prefix: str) -> str:
        self._uid_counter += 1
        return f"{prefix}-{self._uid_counter:06d}"

    def create_pod_group(
        self,
        namespace: str,
        name: str,
        *,
        min_member: int,
        shape: PodShape,
        owner_uid: str,
        min_resources: dict[str, Any],
        owner_ref: dict[str, Any] | None = None,
    ) -> PodGroup:
        """``owner_ref``: the PodGroup's controller reference (default: a Volcano Job of ``owner_uid``)."""
        pg = build_pod_group(
            namespace,
            name,
            min_member=min_member,
            queue=shape.queue,
            phase="Pending",
            priority_class=shape.priority_class,
            min_resources=min_resources,
            owner_uid=owner_uid,
            uid=self.next_uid("pg"),
        )
        if owner_ref is not None:
            meta = pg.metadata.model_copy(
                update={"owner_references": [OwnerReference.model_validate(owner_ref)]}
            )
            pg = pg.model_copy(update={"metadata": meta})
        self.cache.put(pg)
        self._unsettled_groups[pg.key] = None
        self.version += 1
        return pg

    def create_single_pod(
        self,
        namespace: str,
        name: str,
        group: str,
        *,
        shape: PodShape,
        owner_uid: str,
        owner_kind: str,
        rank: int,
        now: float,
    ) -> PodRecord:
        """A pod with its own one-pod PodGroup, as Volcano's PodGroup controller gives a plain pod."""
        self.create_pod_group(
            namespace,
            group,
            min_member=1,
            shape=shape,
            owner_uid=owner_uid,
            min_resources=self.requests_of(shape),
        )
        return self.create_pod(
            namespace,
            name,
            shape=shape,
            group=group,
            owner_uid=owner_uid,
            owner_kind=owner_kind,
            rank=rank,
            now=now,
        )

    def create_pod(
        self,
        namespace: str,
        name: str,
        *,
        shape: PodShape,
        group: str,
        owner_uid: str,
        owner_kind: str,
        rank: int,
        now: float,
        owner_name: str | None = None,
        annotate_rank: bool = True,
        extra_labels: dict[str, str] | None = None,
        extra_annotations: dict[str, str] | None = None,
    ) -> PodRecord:
        """``owner_name``: the owner reference's name (default: the PodGroup's); ``annotate_rank``:
        write ``hccl/rankIndex`` (a Deployment's pods get theirs from the Ascend plugin at allocation)."""
        requests = self.requests_of(shape)
        annotations = {**shape.annotations, **(extra_annotations or {})}
        if annotate_rank:
            annotations[RANK_ANNOTATION] = str(rank)
        labels = {**shape.labels, **(extra_labels or {})}
        if shape.preemptable is not None:
            labels["volcano.sh/preemptable"] = "true" if shape.preemptable else "false"
        uid = self.next_uid("pod")
        pod = build_pod(
            namespace,
            name,
            requests=requests,
            group=group,
            labels=labels,
            annotations=annotations,
            priority=shape.priority,
            priority_class=shape.priority_class,
            uid=uid,
            creation=now,
            node_selector=shape.node_selector or None,
            image=shape.image,
            tolerations=[toleration.as_object() for toleration in shape.tolerations],
            owner={
                "apiVersion": "v1",
                "kind": owner_kind,
                "name": owner_name if owner_name is not None else group,
                "uid": owner_uid,
                "controller": True,
            },
        )
        self.cache.put(pod)
        self.note_pod(pod)
        previous = self.history.get((owner_uid, rank), "")
        record = PodRecord(
            key=pod.key,
            uid=uid,
            owner=owner_uid,
            owner_kind=owner_kind,
            rank=rank,
            image=shape.image,
            npus=shape.npus_per_pod,
            gpu_milli=shape.gpus_per_pod * 1000 + _milli(shape.extra_resources.get(GPU_MILLI, 0)),
            created=now,
            recreated=bool(previous),
            previous_node=previous,
            startup=shape.startup,
        )
        self.records[uid] = record
        self.version += 1
        return record

    def register_pod(self, pod: Pod, *, owner: str, owner_kind: str, rank: int, now: float) -> PodRecord:
        """A record for a pod that is already in the cache (made by the controllers of a manifest)."""
        request = pod.request()
        groups = self.workload.cluster.node_groups
        npu_resources = {group.npu.resource for group in groups if group.npu}
        gpu_resources = {group.gpu_resource for group in groups} | {"nvidia.com/gpu"}
        npus = int(sum(request.get(name) for name in npu_resources) // 1000)
        gpus_milli = sum(request.get(name) for name in gpu_resources)
        gpu_milli = int(gpus_milli) + int(request.get(GPU_MILLI) // 1000)
        images = pod.images()
        previous = self.history.get((owner, rank), "")
        record = PodRecord(
            key=pod.key,
            uid=pod.metadata.uid,
            owner=owner,
            owner_kind=owner_kind,
            rank=rank,
            image=images[0] if images else "",
            npus=npus,
            gpu_milli=gpu_milli,
            created=now,
            recreated=bool(previous),
            previous_node=previous,
        )
        self.records[pod.metadata.uid] = record
        self.note_pod(pod)
        self.version += 1
        return record

    def requests_of(self, shape: PodShape) -> dict[str, Any]:
        requests: dict[str, Any] = {"cpu": shape.cpu, "memory": shape.memory, **shape.extra_resources}
        if shape.npus_per_pod:
            requests[accelerator_resource(self.workload.cluster, shape, "npu", "")] = shape.npus_per_pod
        if shape.gpus_per_pod:
            requests[accelerator_resource(self.workload.cluster, shape, "gpu", "")] = shape.gpus_per_pod
        return requests

    def pod(self, key: str) -> Pod | None:
        return self.cache.pods.get(key)

    def record_of(self, key: str) -> PodRecord | None:
        pod = self.cache.pods.get(key)
        return self.records.get(pod.metadata.uid) if pod is not None else None

    def apply(self, decisions: CycleDecisions, now: float) -> list[PodRecord]:
        """Apply a cycle's decision log as the API server does (``ClusterCache.apply``); the records of
        the pods it bound, in bind order."""
        bound = [self.cache.pods.get(bind.pod) for bind in decisions.binds]
        self.cache.apply(decisions, now)
        records = [self._bound(pod.metadata.uid, pod.key, now) for pod in bound if pod is not None]
        if (
            decisions.binds
            or decisions.evictions
            or decisions.nominations
            or decisions.dropped_nominations
            or decisions.nominated_hyper_nodes
        ):
            self.version += 1
        return records

    def _bound(self, uid: str, key: str, now: float) -> PodRecord:
        pod = self.cache.pods[key]
        node = pod.spec.node_name
        record = self.records[uid]
        record.node = node
        record.bound = now
        self.allocated_npus += record.npus
        self.allocated_gpu_milli += record.gpu_milli
        self.history[(record.owner, record.rank)] = node
        return record

    def set_phase(self, key: str, phase: str, now: float) -> None:
        pod = self.cache.pods.get(key)
        if pod is None:
            return
        if phase != "Running":
            self._touch(pod)
        start_time = now if phase == "Running" else pod.status.start_time
        status = pod.status.model_copy(update={"phase": phase, "start_time": start_time})
        self.cache.put(pod.model_copy(update={"status": status}))
        record = self.records[pod.metadata.uid]
        if phase == "Running" and record.running is None:
            record.running = now
        if phase in ("Succeeded", "Failed"):
            self._release_accelerators(record)
        self.version += 1

    def mark_deleting(self, key: str, now: float) -> None:
        pod = self.cache.pods.get(key)
        if pod is None or pod.metadata.deletion_timestamp is not None:
            return
        self._touch(pod)
        meta = pod.metadata.model_copy(update={"deletion_timestamp": now})
        self.cache.put(pod.model_copy(update={"metadata": meta}))
        self.version += 1

    def delete_pod(self, key: str, now: float, reason: str) -> PodRecord | None:
        pod = self.cache.pods.get(key)
        if pod is None:
            return None
        self._touch(pod)
        self.cache.delete("Pod", key)
        record = self.records[pod.metadata.uid]
        self._release_accelerators(record)
        if record.ended is None:
            record.ended = now
            record.end_reason = reason
        self.version += 1
        return record

    def delete_pod_group(self, key: str) -> None:
        if key in self.cache.pod_groups:
            self.cache.delete("PodGroup", key)
            self.version += 1

    def rerank(self, record: PodRecord, rank: int) -> None:
        """A pod's rank was given at its allocation (``hccl/rankIndex`` written by the Ascend plugin):
        it is re-created or not, and has a previous node or not, as that rank of its owner."""
        record.rank = rank
        record.previous_node = self.history.get((record.owner, rank), "")
        record.recreated = bool(record.previous_node)

    # ------------------------------------------------------------------ could a cycle act?
    @staticmethod
    def _group_of(pod: Pod) -> str:
        group = pod.metadata.annotations.get("scheduling.k8s.io/group-name", "")
        return f"{pod.metadata.namespace}/{group}" if group else ""

    def note_pod(self, pod: Pod) -> None:
        """A pod was created or re-applied outside the scheduler: it may be pending, and its PodGroup
        changes."""
        self._maybe_pending[pod.key] = None
        self._touch(pod)

    def note_objects(self, objects: Any) -> None:
        """Objects a controller or a manifest created or re-applied (pods and PodGroups)."""
        for obj in objects:
            kind = getattr(obj, "KIND", "")
            if kind == "Pod":
                self.note_pod(obj)
            elif kind == "PodGroup":
                self._unsettled_groups[obj.key] = None

    def _touch(self, pod: Pod) -> None:
        group = self._group_of(pod)
        if group:
            self._touched_groups[group] = None

    def cycle_ran(self, decisions: CycleDecisions) -> None:
        """A cycle ran: the PodGroup statuses it wrote are current; those not Running or Completed
        may be acted on again (and are kept, for ``phase_flips``)."""
        self._touched_groups.clear()
        self._last_session = (decisions.cycle, decisions.session_uid)
        self._last_states = {}
        # (an untouched job's entry is made only when its phase is not settled)
        unsettled = decisions.podgroups.where(
            lambda state: state.phase not in SETTLED_PHASES,
            lambda statuses: [
                uid
                for uid, entry in statuses.by_job.items()
                if entry is not None and entry[1][0] not in SETTLED_PHASES
            ],
        )
        for state in unsettled:
            self._unsettled_groups[state.podgroup] = None
            self._last_states[state.podgroup] = state

    def cycle_left_out(self) -> None:
        """A cycle was accounted without a session (elided, or its phase flips applied): the next
        cycle is not the one after a session."""
        self._touched_groups.clear()
        self._last_session = None
        self._last_states = {}

    def has_work(self) -> bool:
        """Whether a scheduling cycle could decide anything or change a PodGroup's status: a pod is
        pending (no node, not being deleted, phase Pending), a PodGroup is neither Running nor
        Completed, or a PodGroup that still exists lost or finished a pod since the last cycle. What
        is seen settled is forgotten (a bound pod never becomes pending again; a PodGroup leaves
        Running or Completed only through a cycle, which reports it in ``cycle_ran``)."""
        return self._pending_pod() or self._touched_group() or bool(self._unsettled())

    def _pending_pod(self) -> bool:
        pods = self.cache.pods
        pending = self._maybe_pending
        for key in list(pending):
            pod = pods.get(key)
            if (
                pod is not None
                and not pod.spec.node_name
                and pod.metadata.deletion_timestamp is None
                and pod.status.phase == "Pending"
            ):
                return True
            del pending[key]
        return False

    def _touched_group(self) -> bool:
        groups = self.cache.pod_groups
        for key in list(self._touched_groups):
            if key in groups:
                return True
            del self._touched_groups[key]
        return False

    def _unsettled(self) -> list[str]:
        """The PodGroups that exist and are neither Running nor Completed (the others are forgotten)."""
        groups = self.cache.pod_groups
        unsettled = self._unsettled_groups
        found: list[str] = []
        for key in list(unsettled):
            pg = groups.get(key)
            if pg is not None and pg.status.phase not in SETTLED_PHASES:
                found.append(key)
            else:
                del unsettled[key]
        return found

    def phase_flips(self, cycle: int, now: float) -> list[PodGroupPhase] | None:
        """The PodGroup statuses the session of ``cycle`` (at ``now``) would write, when that is all it
        would do; None when it may do more (or when this cannot be told without running it).

        The case: the cycle before (``cycle - 1``) ran a session that bound the pods of PodGroups
        and wrote them ``Inqueue`` (a Binding task is not yet scheduled, ``job_updater``); nothing
        happened since but those binds taking effect and the kubelets starting pods. No pod is
        pending, no PodGroup lost or finished a pod, and every PodGroup that is neither Running nor
        Completed is such a PodGroup: ``Inqueue``, written by that session, in a queue that exists,
        every pod of it bound or running. Under a conf whose plugins and actions all declare
        ``idle_noop``, the session of ``cycle`` decides nothing (no pod is pending), and at close
        the plugins write on these PodGroups the conditions they wrote in the session before (gang:
        ``Scheduled``, the job is ready), stamped with this session; the job updater then writes the
        phase of ``pod_group_phase`` (Running, or Completed), the conditions and the task counts.
        That status is computed here from the cache's own JobInfo, the one the session would copy.
        The other PodGroups' phases stay as they are; their task counts are brought up to date by
        the next session that runs, as after an elided cycle."""
        last = self._last_session
        if last is None or last[0] != cycle - 1 or self._pending_pod() or self._touched_group():
            return None
        unsettled = self._unsettled()
        if not unsettled:
            return None
        uid = session_uid(cycle)
        flips: list[PodGroupPhase] = []
        for key in unsettled:
            state = self._last_states.get(key)
            pg = self.cache.pod_groups[key]
            job = self.cache.job(key)
            if (
                state is None
                or state.phase != POD_GROUP_INQUEUE
                or pg.status.phase != POD_GROUP_INQUEUE
                or job is None
                or job.pod_group is None
                or job.queue not in self.cache.queues
            ):
                return None
            tasks = job.task_count()
            running = job.count_with(TaskStatus.RUNNING)
            if not tasks or tasks != running + job.count_with(TaskStatus.BOUND):
                return None
            conditions = [
                PodGroupCondition(
                    type=condition.type,
                    status=condition.status,
                    transition_id=uid,
                    reason=condition.reason,
                    message=condition.message,
                    last_transition_time=now,
                )
                if condition.transition_id == last[1]
                else condition
                for condition in state.conditions
            ]
            unschedulable = any(
                c.type == UNSCHEDULABLE_CONDITION and c.status == "True" and c.transition_id == uid
                for c in conditions
            )
            phase = pod_group_phase(job, unschedulable)
            if phase not in SETTLED_PHASES:
                return None
            flips.append(
                PodGroupPhase(
                    key,
                    phase,
                    pg.status.phase,
                    conditions,
                    running,
                    job.count_with(TaskStatus.SUCCEEDED),
                    job.count_with(TaskStatus.FAILED),
                )
            )
        return flips

    def pods_on(self, node: str) -> list[Pod]:
        return [pod for pod in self.cache.pods.values() if pod.spec.node_name == node]

    def _release_accelerators(self, record: PodRecord) -> None:
        """A bound pod stopped holding its accelerators (finished, failed or deleted); counted once."""
        if record.bound is not None and not record.accelerators_released:
            record.accelerators_released = True
            self.allocated_npus -= record.npus
            self.allocated_gpu_milli -= record.gpu_milli
