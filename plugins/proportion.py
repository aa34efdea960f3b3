"""proportion: share the cluster between queues by weight (water-filling), capped by request,
capability and guarantee, and keep each queue within what it deserves.

Spec: ``pkg/scheduler/plugins/proportion/proportion.go`` (tests: ``proportion_test.go``).

At session open, for every queue that has at least one job: ``capability`` (cpu or memory <= 0
means unlimited), ``guarantee``, ``realCapability = (total - Σ guarantees)⁺ + guarantee`` capped
by the capability, ``allocated`` (tasks in an allocated status), ``request`` (allocated + Pending
tasks), ``inqueue`` (minResources not yet allocated of Inqueue jobs, and of Running jobs that
reached minMember), ``elastic`` (Σ allocated beyond minResources). Then the deserved loop: every
round, each unmet queue gets ``remaining × weight / Σ unmet weights``, capped by realCapability
and request, raised to its guarantee; a queue is met when its request fits its deserved or its
deserved stopped changing; the loop ends when nothing (cpu, memory, scalars but pods) remains or
``remaining`` stopped changing. ``share`` = max over deserved's dimensions of allocated/deserved.

Extension points (flag):

* ``queue_order`` (``enableQueueOrder``): higher ``spec.priority`` first, then lower share;
* ``reclaimable`` (``enableReclaimable``): a reclaimee is a victim while its queue's running
  allocation is not within deserved (then its request is taken off that allocation); Permit;
* ``overused`` (``enabledOverused``): deserved <= allocated;
* ``allocatable`` (``enabledAllocatable``): queue Open and allocated + request <= deserved on the
  requested dimensions (``pods`` ignored, no tolerance);
* ``preemptive`` (``enablePreemptive``): the same check for the candidates' total request;
* ``job_enqueueable`` / ``job_enqueued`` (``enableJobEnqueued``): Reject when the queue is not
  Open; Permit without minResources; else Permit iff minResources + allocated + inqueue - elastic
  <= realCapability on minResources' dimensions. Enqueued jobs add their minResources to inqueue;
* ``pre_predicate`` (``enablePredicate``): writes a copy of every queue's attributes into the
  task's cycle state (``ssn.get_cycle_state(task.uid)["proportionState"]``), which
  ``simulate_add_task`` / ``simulate_remove_task`` (``enablePreemptable`` or
  ``enabledAllocatable``) and ``simulate_allocatable`` (``enabledAllocatable``) read and update;
* event handlers: allocate/pipeline add the task's request to its queue, evict/undo subtract it.

A job refused for lack of quota gets a ``Normal`` / ``Unschedulable`` event on its PodGroup
("queue resource quota insufficient: insufficient cpu"), also logged at INFO. The per-job usage,
``GetInqueueResource``, the gated-task deduction and ``helpers.Max`` are shared with capacity and
overcommit (``fumarole.plugins.util``).

The per-queue sums of the jobs' usage (allocated, request, inqueue, elastic) are kept between
sessions by the scheduler and brought up to date from the jobs whose usage changed
(``fumarole.plugins.util.running_sums``: exact integer sums, equal to the bit to adding job by job
in session order; a queue whose sums are not exact integers is summed job by job). Everything else
(capability, guarantee, real capability, deserved, share) is computed afresh every session.

Differences from Volcano: no metrics; a queue without attributes (no job) answers share 0 in
``queue_order``, False in ``overused``/``allocatable``/``preemptive`` and Permit in
``job_enqueueable`` where Volcano would dereference nil; a job whose queue is missing is skipped;
the attributes stay readable after ``on_session_close``. A queue whose state is empty counts as
Open (``QueueInfo.is_open``); Volcano requires the state ``Open``. No scalar resource is ignored as
a shared device in ``inqueue`` (fumarole has no device-share plugins).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import partial
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from fumarole.framework.api.resource import ZERO, DimensionDefault, Resource, exceeded_part, share
from fumarole.framework.api.types import PERMIT, REJECT
from fumarole.framework.interface import Event, EventHandler, NoArguments
from fumarole.framework.job_values import JobValues
from fumarole.plugins.util import (
    JobUsage,
    collect_usages,
    deduct_sch_gated_resources,
    format_resource_names,
    job_usage,
    record_unschedulable,
    refusals,
    resource_max,
    usage_and_queue,
    usage_fields,
    usage_sums,
)
from loguru import logger

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "proportion"
STATE_KEY = "proportionState"
"""Key of the plugin's data in a task's cycle state (``proportionStateKey``)."""

MAX_FLOAT64 = sys.float_info.max
"""``math.MaxFloat64``: an unlimited cpu or memory capability."""

USAGE_SUMS = "proportion.usage_sums"
"""Key of the per-queue sums of the jobs' usage the scheduler keeps between sessions
(``ssn.persistent``)."""
USAGE_BY_JOB = "proportion.usage_by_job"
"""``ssn.persistent`` key of each job's usage and queue at session open (``JobValues``)."""


class QueueAttr:
    """What the plugin knows of a queue in this session (``queueAttr``)."""

    __slots__ = (
        "allocated",
        "capability",
        "deserved",
        "elastic",
        "guarantee",
        "inqueue",
        "name",
        "queue_id",
        "real_capability",
        "request",
        "share",
        "weight",
    )

    def __init__(self, queue_id: str, name: str, weight: int) -> None:
        self.queue_id = queue_id
        self.name = name
        self.weight = weight
        self.share = 0.0
        self.deserved = Resource()
        self.allocated = Resource()
        self.request = Resource()
        self.elastic = Resource()
        self.inqueue = Resource()
        self.capability = Resource()
        self.real_capability = Resource()
        self.guarantee = Resource()

    def clone(self) -> QueueAttr:
        twin = self.for_cycle_state()
        twin.deserved = self.deserved.clone()
        twin.request = self.request.clone()
        twin.elastic = self.elastic.clone()
        twin.inqueue = self.inqueue.clone()
        twin.capability = self.capability.clone()
        twin.real_capability = self.real_capability.clone()
        twin.guarantee = self.guarantee.clone()
        return twin

    def for_cycle_state(self) -> QueueAttr:
        """The copy ``pre_predicate`` writes into a task's cycle state (once per task): its own
        ``allocated`` (the simulations add and subtract tasks there) and ``share``; its other
        resources are this attribute's objects, which the simulations never read and nothing changes
        after the session opened but ``inqueue`` (enqueue adds to it). ``clone`` copies everything."""
        twin = QueueAttr.__new__(QueueAttr)  # every field set below: no empty resources made first
        twin.queue_id = self.queue_id
        twin.name = self.name
        twin.weight = self.weight
        twin.share = self.share
        twin.allocated = self.allocated.clone()
        twin.deserved = self.deserved
        twin.request = self.request
        twin.elastic = self.elastic
        twin.inqueue = self.inqueue
        twin.capability = self.capability
        twin.real_capability = self.real_capability
        twin.guarantee = self.guarantee
        return twin

    def update_share(self) -> None:
        """max over deserved's dimensions of allocated / deserved (``updateQueueAttrShare``)."""
        result = 0.0
        for name in self.deserved.resource_names():
            ratio = share(self.allocated.get(name), self.deserved.get(name))
            if ratio > result:
                result = ratio
        self.share = result

    def __repr__(self) -> str:
        return (
            f"QueueAttr({self.name} weight={self.weight} share={self.share:.4f} deserved=<{self.deserved}> "
            f"allocated=<{self.allocated}> request=<{self.request}> real_capability=<{self.real_capability}>)"
        )


class ProportionState:
    """Queue attributes copied into a task's cycle state for preemption simulation."""

    __slots__ = ("queue_attrs",)

    def __init__(self, queue_attrs: dict[str, QueueAttr]) -> None:
        self.queue_attrs = queue_attrs

    def clone(self) -> ProportionState:
        """``CycleState.Clone`` of this entry: each attribute copied as ``pre_predicate`` copies it
        (``QueueAttr.for_cycle_state``: its own ``allocated`` and ``share``, the only fields the
        simulations change)."""
        return ProportionState({uid: attr.for_cycle_state() for uid, attr in self.queue_attrs.items()})

    def __repr__(self) -> str:
        return f"ProportionState({list(self.queue_attrs.values())})"


# ---------------------------------------------------------------------------------------- helpers
def semantic_equal(left: Resource, right: Resource) -> bool:
    """``equality.Semantic.DeepEqual`` of two resources: exact values, same scalar names (an absent
    map equals an empty one), same max_task_num."""
    return (
        left.milli_cpu == right.milli_cpu
        and left.memory == right.memory
        and left.max_task_num == right.max_task_num
        and (left.scalars or {}) == (right.scalars or {})
    )


def _total_request(candidates: Iterable[TaskInfo | None]) -> Resource:
    total = Resource()
    for task in candidates:
        if task is not None:
            total.add(task.resreq)
    return total


# ---------------------------------------------------------------------------------------- plugin
class ProportionPlugin:
    """Weighted queue shares (``proportionPlugin``)."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments | None = None) -> None:
        self.arguments = arguments if arguments is not None else NoArguments()
        self.total_resource = Resource()
        self.total_guarantee = Resource()
        self.queue_opts: dict[str, QueueAttr] = {}

    # ------------------------------------------------------------------ session open
    def on_session_open(self, ssn: Session) -> None:
        self.total_resource.add(ssn.total_resource)
        for queue in ssn.queues.values():
            if not queue.queue.spec.guarantee.resource:
                continue
            self.total_guarantee.add(queue.guarantee())
        self._build_queue_attrs(ssn)
        self._compute_deserved()
        self._register(ssn)

    def _build_queue_attrs(self, ssn: Session) -> None:
        """Every queue holding a job, in order of its first job, with the Σ of its jobs' usage
        (``job_usage``): kept between sessions (``USAGE_SUMS``, ``RunningSums``), equal to the bit
        to adding every job's usage in ``ssn.jobs`` order; an inexact queue is summed that way."""
        queues = ssn.queues
        sums = ssn.persistent(USAGE_SUMS, usage_sums)
        changes = ssn.job_changes_since(sums.generation)
        sums.generation = ssn.snapshot_generation
        # each job's usage and queue, handed on for the jobs lent as they were (``JobValues``)
        by_job = ssn.persistent(USAGE_BY_JOB, JobValues[tuple[JobUsage, str]]).at_open(
            ssn, None, usage_and_queue
        )
        # the lists built in C (a pass in Python over every job costs its memory reads)
        members = list(by_job)
        values = list(by_job.values())
        usages: list[JobUsage] = list(map(itemgetter(0), values))
        where: list[str] = list(map(itemgetter(1), values))
        if not queues.keys() >= set(where):  # jobs of no queue of the session: left out
            kept = [queue_uid in queues for queue_uid in where]
            members = list(compress(members, kept))
            usages = list(compress(usages, kept))
            where = list(compress(where, kept))
            changes = None
        if changes is None:
            totals = collect_usages(sums, members, usages, where)
        else:
            # only the changed jobs' terms can differ from the last session's (``framework.job_changes``)
            paths = {queue: sums.interned((queue,)) for queue in set(where)}
            changed = [(uid, *by_job[uid]) for uid in changes.changed]  # (uid, usage, queue)
            totals = sums.collect_changes(
                members,
                usages,
                list(map(paths.__getitem__, where)),
                usage_fields,
                [(uid, usage, paths[queue]) for uid, usage, queue in changed],
                changes.dropped,
            )
        inexact: set[str] = set()
        for queue_uid in totals.groups:
            assert isinstance(queue_uid, str)
            attr = self._new_queue_attr(queues[queue_uid])
            found = totals.resources(queue_uid)
            if found is None:
                inexact.add(queue_uid)
            else:
                attr.allocated, attr.request, attr.inqueue, attr.elastic = found
            self.queue_opts[queue_uid] = attr
        if inexact:
            for job in ssn.jobs.values():
                if job.queue not in inexact:
                    continue
                attr = self.queue_opts[job.queue]
                usage = job_usage(job)
                attr.allocated.add(usage.allocated)
                attr.request.add(usage.request)
                attr.inqueue.add(usage.inqueue)
                attr.elastic.add(usage.elastic)
        for attr in self.queue_opts.values():
            logger.trace("proportion: {}", attr)

    def _new_queue_attr(self, queue: QueueInfo) -> QueueAttr:
        attr = QueueAttr(queue.uid, queue.name, queue.weight)
        capability: Resource | None = None
        if queue.queue.spec.capability:
            capability = queue.capability()
            if capability.milli_cpu <= 0:
                capability.milli_cpu = MAX_FLOAT64
            if capability.memory <= 0:
                capability.memory = MAX_FLOAT64
        if queue.queue.spec.guarantee.resource:
            attr.guarantee = queue.guarantee()
        real_capability = exceeded_part(self.total_resource, self.total_guarantee).add(attr.guarantee)
        if capability is None:
            attr.capability = Resource()
        else:
            real_capability.min_dimension_resource(capability, DimensionDefault.INFINITY)
            attr.capability = capability
        attr.real_capability = real_capability
        return attr

    def _compute_deserved(self) -> None:
        """The water-filling loop of deserved resources."""
        remaining = self.total_resource.clone()
        met: set[str] = set()
        while True:
            total_weight = sum(attr.weight for attr in self.queue_opts.values() if attr.queue_id not in met)
            if total_weight == 0:
                break
            old_remaining = remaining.clone()
            increased_total = Resource()
            decreased_total = Resource()
            for attr in self.queue_opts.values():
                if attr.queue_id in met:
                    continue
                old_deserved = attr.deserved.clone()
                attr.deserved.add(remaining.clone().multi(float(attr.weight) / float(total_weight)))
                attr.deserved.min_dimension_resource(attr.real_capability, DimensionDefault.INFINITY)
                attr.deserved.min_dimension_resource(attr.request, ZERO)
                attr.deserved = resource_max(attr.deserved, attr.guarantee)
                attr.update_share()
                fits = attr.request.less_equal(attr.deserved, ZERO)
                if fits or semantic_equal(attr.deserved, old_deserved):
                    met.add(attr.queue_id)
                increased, decreased = attr.deserved.diff(old_deserved, ZERO)
                increased_total.add(increased)
                decreased_total.add(decreased)
                logger.trace("proportion: deserved of {}: {}", attr.name, attr.deserved)
            remaining = exceeded_part(remaining.clone().add(decreased_total), increased_total)
            if remaining.is_empty() or semantic_equal(remaining, old_remaining):
                break

    # ------------------------------------------------------------------ registration
    def _register(self, ssn: Session) -> None:
        ssn.queue_order.register(self._queue_order)
        ssn.reclaimable.register(lambda reclaimer, reclaimees: self._reclaimable(ssn, reclaimees))
        ssn.overused.register(partial(self._overused, ssn))
        ssn.allocatable.register(partial(self._allocatable, ssn))
        ssn.simulate_allocatable.register(self._simulate_allocatable)
        ssn.preemptive.register(self.queue_allocatable)
        ssn.pre_predicate.register(lambda task: self._pre_predicate(ssn, task))
        ssn.job_enqueueable.register(lambda job: self._job_enqueueable(ssn, job))
        ssn.job_enqueued.register(self._job_enqueued)
        ssn.simulate_add_task.register(partial(self._simulate_change, ssn, +1))
        ssn.simulate_remove_task.register(partial(self._simulate_change, ssn, -1))
        ssn.add_event_handler(
            EventHandler(
                allocate_func=lambda event: self._on_event(ssn, event, +1),
                deallocate_func=lambda event: self._on_event(ssn, event, -1),
            )
        )

    def on_session_close(self, ssn: Session) -> None:
        return None

    # ------------------------------------------------------------------ extension points
    def queue_share(self, queue_uid: str) -> float:
        attr = self.queue_opts.get(queue_uid)
        return attr.share if attr is not None else 0.0

    def _queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        if left.priority != right.priority:
            return right.priority - left.priority
        lshare = self.queue_share(left.uid)
        rshare = self.queue_share(right.uid)
        if lshare == rshare:
            return 0
        return -1 if lshare < rshare else 1

    def _reclaimable(self, ssn: Session, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        victims: list[TaskInfo] = []
        allocations: dict[str, Resource] = {}
        for reclaimee in reclaimees:
            job = ssn.jobs.get(reclaimee.job)
            if job is None:
                logger.warning("proportion: skip reclaimee {}: its job is not in the session", reclaimee.key)
                continue
            attr = self.queue_opts.get(job.queue)
            if attr is None:
                logger.warning("proportion: skip reclaimee {}: queue {} unknown", reclaimee.key, job.queue)
                continue
            allocated = allocations.get(job.queue)
            if allocated is None:
                allocated = attr.allocated.clone()
                allocations[job.queue] = allocated
            if not allocated.less_equal(attr.deserved, ZERO):
                allocated.sub(reclaimee.resreq)
                victims.append(reclaimee)
        return victims, PERMIT

    def _overused(self, ssn: Session, queue: QueueInfo) -> bool:
        attr = self.queue_opts.get(queue.uid)
        if attr is None:
            return False
        overused = attr.deserved.less_equal(attr.allocated, ZERO)
        if overused:
            logger.debug("proportion: queue {} is overused: {}", queue.name, attr)
            why = refusals.overused(queue.name, attr.allocated, attr.deserved)
            ssn.decisions.refusals.queue(queue.uid, why)
        return overused

    def _allocatable(self, ssn: Session, queue: QueueInfo, candidate: TaskInfo) -> bool:
        why = self.queue_refusal(queue, [candidate])
        if why:
            ssn.decisions.refusals.task(candidate.uid, why)
        return not why

    def queue_allocatable(self, queue: QueueInfo, candidates: Iterable[TaskInfo | None]) -> bool:
        """Queue Open and allocated + candidates' request <= deserved on the requested dimensions."""
        return not self.queue_refusal(queue, candidates)

    def queue_refusal(self, queue: QueueInfo, candidates: Iterable[TaskInfo | None]) -> str:
        """Why the queue cannot take the candidates (``queue_allocatable`` is False), or ""."""
        if not queue.is_open():
            logger.debug("proportion: queue {} is {}, cannot allocate", queue.name, queue.state)
            return refusals.closed(queue.name, queue.state, "pods")
        attr = self.queue_opts.get(queue.uid)
        if attr is None:
            return f"queue {queue.name} has no job known to proportion"
        total = _total_request(candidates)
        future_used = attr.allocated.clone().add(total)
        allocatable, names = future_used.less_equal_with_dimension_and_resources_name(attr.deserved, total)
        if allocatable:
            return ""
        logger.debug(
            "proportion: queue {}: deserved <{}>, allocated <{}>, request <{}>",
            queue.name,
            attr.deserved,
            attr.allocated,
            total,
        )
        return refusals.over_limit(
            queue.name, "is at its deserved share", "deserved", attr.allocated, total, attr.deserved, names
        )

    def _simulate_allocatable(self, state: dict[str, Any], queue: QueueInfo, candidate: TaskInfo) -> bool:
        found = state.get(STATE_KEY)
        if not isinstance(found, ProportionState):
            logger.error("proportion: no {} in the cycle state", STATE_KEY)
            return False
        attr = found.queue_attrs.get(queue.uid)
        if attr is None:
            logger.error("proportion: queue {} not found", queue.name)
            return False
        request = candidate.resreq
        future_used = attr.allocated.clone().add(request)
        allocatable, _ = future_used.less_equal_with_dimension_and_resources_name(attr.deserved, request)
        return allocatable

    def _pre_predicate(self, ssn: Session, task: TaskInfo) -> None:
        state = ProportionState({attr.queue_id: attr.for_cycle_state() for attr in self.queue_opts.values()})
        ssn.get_cycle_state(task.uid)[STATE_KEY] = state
        return None

    def _job_enqueueable(self, ssn: Session, job: JobInfo) -> int:
        queue = ssn.queues.get(job.queue)
        if queue is None or not queue.is_open():
            logger.debug("proportion: queue {} is not open, reject job {}", job.queue, job.uid)
            state = queue.state if queue is not None else "missing"
            ssn.decisions.refusals.job(job.uid, refusals.closed(job.queue, state, "PodGroups"))
            return REJECT
        attr = self.queue_opts.get(job.queue)
        if attr is None:
            return PERMIT
        if not job.has_min_resources():
            return PERMIT
        min_req = job.min_resources()
        total = min_req.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
        fits, names = total.less_equal_with_dimension_and_resources_name(attr.real_capability, min_req)
        if fits:
            return PERMIT
        message = format_resource_names("queue resource quota insufficient", "insufficient", names)
        logger.info("reject job <{}> to be inqueue: {}", job.uid, message)
        record_unschedulable(ssn, job, message)
        return REJECT

    def _job_enqueued(self, job: JobInfo) -> None:
        if not job.has_min_resources():
            return
        attr = self.queue_opts.get(job.queue)
        if attr is None:
            return
        attr.inqueue.add(deduct_sch_gated_resources(job, job.min_resources()))

    def _simulate_change(
        self,
        ssn: Session,
        sign: int,
        state: dict[str, Any],
        task_to_schedule: TaskInfo,
        task: TaskInfo,
        node: NodeInfo,
    ) -> Exception | None:
        """Add (sign +1) or remove (-1) ``task`` in the simulated queue attributes of ``state``."""
        found = state.get(STATE_KEY)
        if not isinstance(found, ProportionState):
            return RuntimeError(
                f'failed to get capacity state: error reading "{STATE_KEY}" from cycleState: not found'
            )
        job = ssn.jobs.get(task.job)
        if job is None:
            return RuntimeError(
                f"[proportion] job {task.job} not found in session (orphaned task from deleted PodGroup)"
            )
        attr = found.queue_attrs.get(job.queue)
        if attr is None:
            return RuntimeError(f"[proportion] queue {job.queue} not found")
        if sign > 0:
            attr.allocated.add(task.resreq)
        else:
            attr.allocated.sub(task.resreq)
        attr.update_share()
        return None

    def _on_event(self, ssn: Session, event: Event, sign: int) -> None:
        task = event.task
        job = ssn.jobs.get(task.job)
        if job is None:
            logger.warning("proportion: skip event for task {}: its job is not in the session", task.key)
            return
        attr = self.queue_opts.get(job.queue)
        if attr is None:
            logger.warning("proportion: skip event for task {}: queue {} unknown", task.key, job.queue)
            return
        if sign > 0:
            attr.allocated.add(task.resreq)
        else:
            attr.allocated.sub(task.resreq)
        attr.update_share()
