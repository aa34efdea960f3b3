"""Per-queue attributes of the capacity plugin and how a job contributes to them.

A ``QueueAttr`` is upstream's ``queueAttr`` (plugins/capacity/capacity.go) without its DRA fields:
``deserved`` (soft quota, reclaimable above it), ``capability`` (hard limit as configured),
``real_capability`` (the limit actually enforced), ``guarantee`` (never reclaimed below it),
``allocated`` / ``request`` / ``inqueue`` / ``elastic`` (what the queue's jobs use, ask for, have
reserved at enqueue, and hold beyond their ``minResources``) and ``share`` (max over deserved's
dimensions of allocated / deserved; **1 when deserved is empty**, so best-effort queues go after
every queue still under its deserved).

Flat mode (``build_flat_queue_attrs``, upstream ``buildQueueAttrs``) only builds attributes for
queues that hold at least one job. Hierarchical mode lives in ``hierarchy.py``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fumarole.framework.api.job_info import POD_GROUP_INQUEUE, POD_GROUP_RUNNING
from fumarole.framework.api.queue_info import QueueInfo
from fumarole.framework.api.resource import (
    CPU,
    INFINITY,
    MEMORY,
    PODS,
    Resource,
    exceeded_part,
    is_scalar_resource_name,
    share,
)
from fumarole.framework.api.task_status import TaskStatus, allocated_status

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.cache.objects import Pod

QUEUE_ALLOCATION_GATE = "scheduling.volcano.sh/queue-allocation-gate"
"""The scheduling gate (and opt-in annotation) of Volcano's queue-admission gating."""


@dataclass(eq=False)
class QueueAttr:
    """What the capacity plugin knows about one queue during a session."""

    queue_id: str
    name: str
    deserved: Resource
    capability: Resource
    real_capability: Resource
    guarantee: Resource
    allocated: Resource = field(default_factory=Resource)
    request: Resource = field(default_factory=Resource)
    elastic: Resource = field(default_factory=Resource)
    inqueue: Resource = field(default_factory=Resource)
    share: float = 0.0
    ancestors: list[str] = field(default_factory=list)
    children: dict[str, QueueAttr] = field(default_factory=dict)

    def is_leaf(self) -> bool:
        return not self.children

    def clone(self) -> QueueAttr:
        """A copy with its own resources; ``children`` still point at the original child objects
        (``clone_all`` re-links them to the copies)."""
        return QueueAttr(
            queue_id=self.queue_id,
            name=self.name,
            deserved=self.deserved.clone(),
            capability=self.capability.clone(),
            real_capability=self.real_capability.clone(),
            guarantee=self.guarantee.clone(),
            allocated=self.allocated.clone(),
            request=self.request.clone(),
            elastic=self.elastic.clone(),
            inqueue=self.inqueue.clone(),
            share=self.share,
            ancestors=list(self.ancestors),
            children=dict(self.children),
        )

    def add_usage(self, usage: JobUsage) -> None:
        self.allocated.add(usage.allocated)
        self.request.add(usage.request)
        self.inqueue.add(usage.inqueue)
        self.elastic.add(usage.elastic)


def clone_all(attrs: dict[str, QueueAttr]) -> dict[str, QueueAttr]:
    """Copy every attribute, keeping the tree shape among the copies (upstream ``capacityState.Clone``,
    which deep-copies each subtree separately; nothing reads a copy's children, so one copy each
    is enough)."""
    copies = {queue_id: attr.clone() for queue_id, attr in attrs.items()}
    for attr in copies.values():
        attr.children = {child: copies.get(child, node) for child, node in attr.children.items()}
    return copies


def update_share(attr: QueueAttr) -> None:
    """``updateQueueAttrShare``: 1 for a best-effort queue (empty deserved), else the dominant
    allocated / deserved ratio over deserved's dimensions."""
    if attr.deserved.is_empty():
        attr.share = 1.0
        return
    attr.share = max(
        (share(attr.allocated.get(name), attr.deserved.get(name)) for name in attr.deserved.resource_names()),
        default=0.0,
    )


def compare_share_with_deserved(left: QueueAttr, right: QueueAttr) -> int:
    """Lower share first; on equal shares a queue with a deserved goes before a best-effort one."""
    if left.share == right.share:
        left_has = not left.deserved.is_empty()
        right_has = not right.deserved.is_empty()
        if left_has == right_has:
            return 0
        return -1 if left_has else 1
    return -1 if left.share < right.share else 1


def resource_max(left: Resource, right: Resource) -> Resource:
    """``helpers.Max``: per-dimension maximum; negative scalars are dropped."""
    out = Resource(max(left.milli_cpu, right.milli_cpu), max(left.memory, right.memory))
    if left.scalars is None and right.scalars is None:
        return out
    scalars: dict[str, float] = {name: amount for name, amount in (left.scalars or {}).items() if amount >= 0}
    for name, amount in (right.scalars or {}).items():
        if amount >= 0:
            scalars[name] = max(amount, scalars.get(name, 0.0))
    out.scalars = scalars
    return out


def format_resource_names(prefix: str, verb: str, names: Iterable[str]) -> str:
    """``util.FormatResourceNames``: ``"<prefix>: <verb> a, <verb> b"`` (just the prefix if none)."""
    parts = [f"{verb} {name}" for name in names]
    if not parts:
        return prefix
    return f"{prefix}: {', '.join(parts)}"


# ---------------------------------------------------------------------------------------- job usage
def has_only_volcano_scheduling_gate(pod: Pod | None) -> bool:
    """``HasOnlyVolcanoSchedulingGate``: the pod's only gate is the queue-allocation gate."""
    if pod is None:
        return False
    gates = pod.spec.scheduling_gates
    return len(gates) == 1 and gates[0].name == QUEUE_ALLOCATION_GATE


def deduct_sch_gated_resources(job: JobInfo, resources: Resource) -> Resource:
    """``JobInfo.DeductSchGatedResources``: remove what gated tasks (except those held only by the
    queue-allocation gate) request, never below zero; scalars the gated tasks lack are kept."""
    gated = Resource()
    for task in job.tasks.values():
        if task.sch_gated and not has_only_volcano_scheduling_gate(task.pod):
            gated.add(task.resreq)
    if gated.is_empty():
        return resources
    result = resources.clone()
    result.milli_cpu = max(result.milli_cpu - gated.milli_cpu, 0.0)
    result.memory = max(result.memory - gated.memory, 0.0)
    if result.scalars is not None and gated.scalars is not None:
        for name, amount in (resources.scalars or {}).items():
            if name in gated.scalars:
                result.scalars[name] = max(amount - gated.scalars[name], 0.0)
    return result


def inqueue_resource(job: JobInfo, allocated: Resource) -> Resource:
    """``util.GetInqueueResource``: the part of ``minResources`` not yet covered by ``allocated``,
    over the dimensions ``minResources`` names (cpu, memory, pods, extended scalars)."""
    assert job.pod_group is not None and job.pod_group.spec.min_resources is not None
    names = job.pod_group.spec.min_resources
    minimum = job.min_resources()
    out = Resource()
    for name in names:
        if name == CPU:
            reserved = minimum.milli_cpu - allocated.milli_cpu
            if reserved > 0:
                out.milli_cpu = reserved
        elif name == MEMORY:
            reserved = minimum.memory - allocated.memory
            if reserved > 0:
                out.memory = reserved
        elif name == PODS:
            reserved = minimum.get(PODS) - allocated.get(PODS)
            if reserved > 0:
                out.set_scalar(PODS, reserved)
        else:
            if name.startswith("count/") or not is_scalar_resource_name(name):
                continue
            if out.scalars is None:
                out.scalars = {}
            if not allocated.has_scalar(name):
                out.scalars[name] = minimum.get(name)
            else:
                reserved = minimum.get(name) - allocated.get(name)
                if reserved > 0:
                    out.scalars[name] = reserved
    return out


@dataclass
class JobUsage:
    """One job's contribution to its queue (and, in hierarchical mode, to every ancestor)."""

    allocated: Resource
    request: Resource
    inqueue: Resource
    elastic: Resource


def job_usage(job: JobInfo) -> JobUsage:
    """What ``buildQueueAttrs`` adds per job: allocated-status tasks to allocated and request,
    pending tasks to request; the unallocated part of ``minResources`` to inqueue for an Inqueue
    job, and for a Running job that has at least ``minMember`` allocated tasks; the part of
    allocated beyond ``minResources`` to elastic."""
    allocated = Resource()
    request = Resource()
    for status, tasks in job.task_status_index.items():
        if allocated_status(status):
            for task in tasks.values():
                allocated.add(task.resreq)
                request.add(task.resreq)
        elif status == TaskStatus.PENDING:
            for task in tasks.values():
                request.add(task.resreq)
    inqueue = Resource()
    if job.has_min_resources():
        assert job.pod_group is not None
        if job.phase == POD_GROUP_INQUEUE:
            inqueue.add(deduct_sch_gated_resources(job, inqueue_resource(job, job.allocated)))
        if job.phase == POD_GROUP_RUNNING and job.allocated_task_num() >= job.pod_group.spec.min_member:
            inqueue.add(deduct_sch_gated_resources(job, inqueue_resource(job, job.allocated)))
    return JobUsage(allocated, request, inqueue, job.elastic_resources())


# ---------------------------------------------------------------------------------------- flat mode
def guarantee_of(queue: QueueInfo) -> Resource:
    return queue.guarantee() if queue.queue.spec.guarantee.resource else Resource()


def build_flat_queue_attrs(
    queues: dict[str, QueueInfo], jobs: Iterable[JobInfo], total_resource: Resource
) -> dict[str, QueueAttr]:
    """``buildQueueAttrs``: attributes for every queue holding a job.

    ``real_capability = ExceededPart(total, Σ guarantees of all queues) + own guarantee``, capped
    by ``capability`` when one is set (its missing cpu / memory count as unlimited);
    ``deserved = max(min(deserved, real_capability), guarantee)``.
    """
    total_guarantee = Resource()
    for queue in queues.values():
        if queue.queue.spec.guarantee.resource:
            total_guarantee.add(queue.guarantee())
    attrs: dict[str, QueueAttr] = {}
    for job in jobs:
        attr = attrs.get(job.queue)
        if attr is None:
            queue = queues[job.queue]
            guarantee = guarantee_of(queue)
            real_capability = exceeded_part(total_resource, total_guarantee).add(guarantee)
            capability = Resource()
            if queue.queue.spec.capability:
                capability = queue.capability()
                if capability.milli_cpu <= 0:
                    capability.milli_cpu = math.inf
                if capability.memory <= 0:
                    capability.memory = math.inf
                real_capability.min_dimension_resource(capability, INFINITY)
            attr = attrs[job.queue] = QueueAttr(
                queue_id=queue.uid,
                name=queue.name,
                deserved=queue.deserved(),
                capability=capability,
                real_capability=real_capability,
                guarantee=guarantee,
            )
        attr.add_usage(job_usage(job))
    for attr in attrs.values():
        attr.deserved.min_dimension_resource(attr.real_capability, INFINITY)
        attr.deserved = resource_max(attr.deserved, attr.guarantee)
        update_share(attr)
    return attrs
