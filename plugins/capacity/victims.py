"""Which running tasks the capacity plugin lets a reclaimer take (upstream ``AddReclaimableFn`` and
the GangReclaim branch of ``AddUnifiedEvictableFn`` in plugins/capacity/capacity.go).

A reclaimee, taken in ``BuildVictimsPriorityQueue`` order (task-level reclaim) or in the given
order (gang reclaim), is a victim when

1. (task-level only) it requests some dimension the reclaimer asks for (``pods`` ignored);
2. its queue keeps its guarantee without it (``guarantee <= allocated - request``);
3. it is an *immediate victim* (it requests nothing its queue's deserved names) or its queue's
   allocated is above deserved on some dimension it requests that deserved names
   (``GreaterPartlyWithRelevantDimensions``);
4. (hierarchical, ``ancestorReclaimLevel > 0``) an immediate victim whose queue shares a non-root
   ancestor with the reclaimer's within that many levels is spared when the reclaimer's own
   deserved names nothing it requests (no real contention); and for each level 1..N, the
   reclaimee's ancestor at that level, unless it is ``root`` or also the reclaimer's ancestor at
   that level, must itself be an immediate victim or above its deserved.

Every victim's request is taken off a running copy of its queue's (and checked ancestors')
allocated, so later reclaimees of the same queue see what is left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import ZERO, Resource, intersection, is_ignored_scalar
from loguru import logger

from .hierarchy import reclaimee_ancestor_to_check, shares_non_root_ancestor_within_level

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo

    from .queue_attrs import QueueAttr


def has_intersecting_dimensions(reclaimee: TaskInfo, reclaimer: TaskInfo) -> bool:
    """``IntersectionWithIgnoredScalarResources(reclaimee.Resreq, reclaimer.InitResreq)`` is not empty."""
    return any(not is_ignored_scalar(name) for name in intersection(reclaimee.resreq, reclaimer.init_resreq))


def keeps_guarantee(allocated: Resource, reclaimee: TaskInfo, guarantee: Resource) -> bool:
    """``checkGuaranteeConstraint``: the queue still has its guarantee without the reclaimee."""
    return guarantee.less_equal(allocated.clone().sub_without_assert(reclaimee.resreq), ZERO)


def has_relevant_deserved(task: TaskInfo, deserved: Resource | None) -> bool:
    """``hasRelevantDeserved``: the task requests a dimension the deserved names."""
    if deserved is None:
        return False
    return bool(intersection(task.resreq, deserved))


def exceeds_deserved(allocated: Resource, deserved: Resource, reclaimee: TaskInfo) -> bool:
    """``checkDeservedExceedance``: allocated > deserved on a dimension relevant to the reclaimee."""
    exceeds, _ = allocated.greater_partly_with_relevant_dimensions(deserved, reclaimee.resreq)
    return exceeds


class ReclaimVictimSelector:
    """The reclaim victim rules over one session's queue attributes."""

    def __init__(
        self,
        jobs: dict[str, JobInfo],
        attrs: dict[str, QueueAttr],
        *,
        hierarchy_enabled: bool,
        ancestor_reclaim_level: int,
        victim_order: Callable[[list[TaskInfo], TaskInfo], Iterable[TaskInfo]],
    ) -> None:
        self.jobs = jobs
        self.attrs = attrs
        self.hierarchy_enabled = hierarchy_enabled
        self.ancestor_reclaim_level = ancestor_reclaim_level
        self.victim_order = victim_order

    def _attr_of(self, task: TaskInfo) -> QueueAttr | None:
        job = self.jobs.get(task.job)
        if job is None:
            logger.warning(
                "[capacity] skip <{}/{}>: job <{}> not found in session", task.namespace, task.name, task.job
            )
            return None
        attr = self.attrs.get(job.queue)
        if attr is None:
            logger.warning(
                "[capacity] skip <{}/{}>: queue <{}> not found in queue attributes",
                task.namespace,
                task.name,
                job.queue,
            )
        return attr

    def reclaim(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo] | None:
        """Task-level reclaim victims; None when the reclaimer's job or queue is unknown (Reject)."""
        reclaimer_attr = self._attr_of(reclaimer)
        if reclaimer_attr is None:
            return None
        levels = self.ancestor_reclaim_level if self.hierarchy_enabled else 0
        allocations: dict[str, Resource] = {}
        victims: list[TaskInfo] = []
        for reclaimee in self.victim_order(reclaimees, reclaimer):
            attr = self._attr_of(reclaimee)
            if attr is None:
                continue
            if not has_intersecting_dimensions(reclaimee, reclaimer):
                continue
            allocated = allocations.setdefault(attr.queue_id, attr.allocated.clone())
            if not keeps_guarantee(allocated, reclaimee, attr.guarantee):
                continue
            if not has_relevant_deserved(reclaimee, attr.deserved):
                if (
                    levels > 0
                    and shares_non_root_ancestor_within_level(reclaimer_attr, attr, levels)
                    and not has_relevant_deserved(reclaimer, reclaimer_attr.deserved)
                ):
                    continue
            elif not exceeds_deserved(allocated, attr.deserved, reclaimee):
                continue
            checked = self._ancestors_allow(reclaimer_attr, attr, reclaimee, allocations, levels)
            if checked is None:
                continue
            allocated.sub_without_assert(reclaimee.resreq)
            for ancestor_allocated in checked:
                ancestor_allocated.sub_without_assert(reclaimee.resreq)
            victims.append(reclaimee)
        return victims

    def _ancestors_allow(
        self,
        reclaimer_attr: QueueAttr,
        attr: QueueAttr,
        reclaimee: TaskInfo,
        allocations: dict[str, Resource],
        levels: int,
    ) -> list[Resource] | None:
        """The running allocations of the ancestors checked, or None when one of them refuses."""
        checked: dict[str, Resource] = {}
        for level in range(1, levels + 1):
            ancestor, need_check = reclaimee_ancestor_to_check(self.attrs, reclaimer_attr, attr, level)
            if not need_check:
                continue
            if ancestor is None:
                logger.warning(
                    "[capacity] skip reclaimee <{}/{}>: ancestor at level {} has no attributes",
                    reclaimee.namespace,
                    reclaimee.name,
                    level,
                )
                return None
            allocated = allocations.setdefault(ancestor.queue_id, ancestor.allocated.clone())
            checked[ancestor.queue_id] = allocated
            if not has_relevant_deserved(reclaimee, ancestor.deserved):
                continue
            if not exceeds_deserved(allocated, ancestor.deserved, reclaimee):
                return None
        return list(checked.values())

    def gang_reclaim(self, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """GangReclaim victims: guarantee and deserved checks per victim queue, candidates in the
        given order, no dimension filter and no ancestor levels."""
        allocations: dict[str, Resource] = {}
        victims: list[TaskInfo] = []
        for reclaimee in candidates:
            attr = self._attr_of(reclaimee)
            if attr is None:
                continue
            allocated = allocations.setdefault(attr.queue_id, attr.allocated.clone())
            if not keeps_guarantee(allocated, reclaimee, attr.guarantee):
                continue
            if has_relevant_deserved(reclaimee, attr.deserved) and not exceeds_deserved(
                allocated, attr.deserved, reclaimee
            ):
                continue
            allocated.sub_without_assert(reclaimee.resreq)
            victims.append(reclaimee)
        return victims
