"""Per-queue attributes of the capacity plugin and how a job contributes to them.

A ``QueueAttr`` is upstream's ``queueAttr`` (plugins/capacity/capacity.go) without its DRA fields:
``deserved`` (soft quota, reclaimable above it), ``capability`` (hard limit as configured),
``real_capability`` (the limit actually enforced), ``guarantee`` (never reclaimed below it),
``allocated`` / ``request`` / ``inqueue`` / ``elastic`` (what the queue's jobs use, ask for, have
reserved at enqueue, and hold beyond their ``minResources``) and ``share`` (max over deserved's
dimensions of allocated / deserved; **1 when deserved is empty**, so best-effort queues go after
every queue still under its deserved).

Flat mode (``build_flat_queue_attrs``, upstream ``buildQueueAttrs``) only builds attributes for
queues that hold at least one job. Hierarchical mode lives in ``hierarchy.py``. What one job
contributes (``job_usage``) is shared with proportion (``fumarole.plugins.util``). In both modes the
per-queue sums of the jobs' usage are kept between sessions (``running_sums``: updated from the
jobs that changed, equal to the bit to adding job by job); the rest is built afresh every session.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fumarole.framework.api.queue_info import QueueInfo
from fumarole.framework.api.resource import INFINITY, Resource, exceeded_part, share
from fumarole.plugins.util import JobUsage, RunningSums, collect_usage, job_usage, resource_max

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo


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


# ---------------------------------------------------------------------------------------- flat mode
def guarantee_of(queue: QueueInfo) -> Resource:
    return queue.guarantee() if queue.queue.spec.guarantee.resource else Resource()


def build_flat_queue_attrs(
    queues: dict[str, QueueInfo],
    jobs: Iterable[JobInfo],
    total_resource: Resource,
    sums: RunningSums | None = None,
) -> dict[str, QueueAttr]:
    """``buildQueueAttrs``: attributes for every queue holding a job.

    ``real_capability = ExceededPart(total, Σ guarantees of all queues) + own guarantee``, capped
    by ``capability`` when one is set (its missing cpu / memory count as unlimited);
    ``deserved = max(min(deserved, real_capability), guarantee)``.

    With ``sums`` (kept between sessions by the plugin, ``usage_sums``) the queues' usage is
    brought up to date from the jobs whose usage changed (equal to the bit to adding every job's
    usage in job order; an inexact queue is summed that way); the rest is built afresh.
    """
    total_guarantee = Resource()
    for queue in queues.values():
        if queue.queue.spec.guarantee.resource:
            total_guarantee.add(queue.guarantee())
    attrs: dict[str, QueueAttr] = {}
    if sums is None:
        for job in jobs:
            attr = attrs.get(job.queue)
            if attr is None:
                attr = attrs[job.queue] = _flat_attr(queues[job.queue], total_resource, total_guarantee)
            attr.add_usage(job_usage(job))
    else:
        listed = list(jobs)
        totals = collect_usage(sums, listed)
        inexact: set[str] = set()
        for queue_uid in totals.groups:
            assert isinstance(queue_uid, str)
            attr = attrs[queue_uid] = _flat_attr(queues[queue_uid], total_resource, total_guarantee)
            found = totals.resources(queue_uid)
            if found is None:
                inexact.add(queue_uid)
            else:
                attr.allocated, attr.request, attr.inqueue, attr.elastic = found
        if inexact:
            for job in listed:
                if job.queue in inexact:
                    attrs[job.queue].add_usage(job_usage(job))
    for attr in attrs.values():
        attr.deserved.min_dimension_resource(attr.real_capability, INFINITY)
        attr.deserved = resource_max(attr.deserved, attr.guarantee)
        update_share(attr)
    return attrs


def _flat_attr(queue: QueueInfo, total_resource: Resource, total_guarantee: Resource) -> QueueAttr:
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
    return QueueAttr(
        queue_id=queue.uid,
        name=queue.name,
        deserved=queue.deserved(),
        capability=capability,
        real_capability=real_capability,
        guarantee=guarantee,
    )
