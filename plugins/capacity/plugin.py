"""The capacity plugin's extension points (plugins/capacity/capacity.go ``OnSessionOpen``).

==========================  ======================  ==================================================
point                       flag                    answer
==========================  ======================  ==================================================
queue_order                 enableQueueOrder        higher ``spec.priority`` first, then
                                                    ``compare_share_with_deserved``; hierarchical: leaf
                                                    queues first, leaves compared through their
                                                    ancestors just below the deepest common one
victim_queue_order          (none; hierarchical)    queues closer to the preemptor's (deeper common
                                                    ancestor) give victims first
reclaimable                 enableReclaimable       ``victims.py``; Permit (Reject when not ready)
unified_evictable           (none)                  GangPreempt: every candidate; else gang-reclaim rules
preemptive                  enablePreemptive        queue open, ``allocated + Σreq <= real capability``
                                                    on requested dims, and some requested dim still
                                                    ``<= deserved`` (or, hierarchical with
                                                    ``ancestorReclaimLevel``, in a non-root ancestor)
allocatable                 enabledAllocatable      queue open, leaf (hierarchical), and
                                                    ``allocated + req <= real capability`` on requested
                                                    dims for the queue and every ancestor
job_enqueueable             enableJobEnqueued       Reject when not ready / not leaf / queue not open;
                                                    Permit without ``minResources``; else
                                                    ``min + allocated + inqueue - elastic <= real
                                                    capability`` for the queue and every ancestor
job_enqueued                enableJobEnqueued       inqueue += minResources (minus gated tasks), also
                                                    for every ancestor (hierarchical)
pre_predicate               enablePredicate         copy of every queue's attributes into the task's
                                                    cycle state under ``"capacity"``
simulate_add/remove_task    enablePreemptable or    allocated ± request in that copy (+ ancestors)
                            enabledAllocatable
simulate_allocatable        enabledAllocatable      ``allocatable`` against that copy (no open check)
event handlers              (none)                  allocated ± request, share of the task's queue
==========================  ======================  ==================================================

A quota refusal in job_enqueueable records a ``Normal`` / ``Unschedulable`` event on the job's PodGroup
(``queue resource quota insufficient: insufficient <dims>``), also logged at INFO. The per-job
usage, ``GetInqueueResource``, the gated-task deduction and ``helpers.Max`` are shared with
proportion and overcommit (``fumarole.plugins.util``).

"Not ready" means the hierarchical build failed (``hierarchy.py``): then every point above refuses
and queue_order / victim_queue_order are not registered, exactly as upstream.

Upstream quirks kept: the event handlers and simulate functions refresh the share of the task's
own queue only (ancestors' shares stay as computed at session open); ``simulate_allocatable`` does
not check that the queue is open; ``preemptive`` checks only the queue's own real capability.

Deliberate differences:

* DRA (dynamic resource allocation) quotas are not implemented: fumarole has no DRA. The DRA
  arguments are accepted and ignored (``arguments.py``).
* Volcano's ``SchedulingGatesQueueAdmission`` feature gate (alpha, off by default) is off: no
  task reserves queue capacity through the queue-allocation gate.
* Where upstream subtracts with its asserting ``Sub`` (which panics on a negative result),
  fumarole computes the same value without aborting the cycle.
* Flat mode only has attributes for queues holding a job; asked about another queue (upstream
  would dereference nil) queue_order answers 0, allocatable / preemptive answer False and
  job_enqueueable Reject.
* Metrics are not exported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fumarole.framework.api.resource import Resource
from fumarole.framework.api.types import PERMIT, REJECT, EvictionContext, EvictionKind
from fumarole.framework.interface import Event, EventHandler
from fumarole.plugins.util import (
    deduct_sch_gated_resources,
    format_resource_names,
    record_unschedulable,
    refusals,
    usage_sums,
)
from loguru import logger

from .arguments import (
    ANCESTOR_RECLAIM_LEVEL_KEY,
    DRA_CONSUMABLE_CAPACITY_KEY,
    DRA_ENABLE_KEY,
    CapacityArguments,
)
from .hierarchy import ROOT_QUEUE, ancestor_at_depth, build_hierarchical_queue_attrs, queue_level
from .queue_attrs import (
    QueueAttr,
    build_flat_queue_attrs,
    clone_all,
    compare_share_with_deserved,
    update_share,
)
from .victims import ReclaimVictimSelector

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session
    from fumarole.framework.util.priority_queue import PriorityQueue

STATE_KEY = "capacity"
"""Key of the plugin's queue-attribute copy in a task's cycle state."""
FLAT_SUMS = "capacity.usage_sums.flat"
HIERARCHY_SUMS = "capacity.usage_sums.hierarchy"
"""Keys of the per-queue sums of the jobs' usage the scheduler keeps between sessions
(``ssn.persistent``; ``usage_sums``), one per mode (a hierarchy adds a job to its ancestors too)."""


class CapacityState:
    """What ``pre_predicate`` stores in a task's cycle state (upstream ``capacityState``)."""

    __slots__ = ("queue_attrs",)

    def __init__(self, queue_attrs: dict[str, QueueAttr]) -> None:
        self.queue_attrs = queue_attrs

    def clone(self) -> CapacityState:
        return CapacityState(clone_all(self.queue_attrs))

    def __deepcopy__(self, memo: dict[int, Any]) -> CapacityState:
        return self.clone()


class CapacityPlugin:
    """Elastic queue quota: capability (hard), deserved (reclaimable above), guarantee (kept)."""

    name = "capacity"
    idle_noop = True
    arguments_model = CapacityArguments

    def __init__(self, arguments: CapacityArguments) -> None:
        self.arguments = arguments
        self.ancestor_reclaim_level = 0
        self.total_resource = Resource()
        self.queue_opts: dict[str, QueueAttr] = {}
        self.hierarchy_enabled = False
        self.ready_to_schedule = True
        self._ssn: Session | None = None
        self._victims: ReclaimVictimSelector | None = None
        for key, value in (
            (DRA_ENABLE_KEY, arguments.dynamic_resource_allocation_enable),
            (DRA_CONSUMABLE_CAPACITY_KEY, arguments.dra_consumable_capacity_enable),
        ):
            if value:
                logger.warning("[capacity] {} is set but fumarole has no DRA: the argument is ignored", key)

    # ------------------------------------------------------------------ session
    def _parse_arguments(self) -> None:
        level = self.arguments.ancestor_reclaim_level
        if level < 0:
            logger.warning(
                "[capacity] {} should be non-negative, got {}. Falling back to 0.",
                ANCESTOR_RECLAIM_LEVEL_KEY,
                level,
            )
            level = 0
        self.ancestor_reclaim_level = level

    @property
    def ssn(self) -> Session:
        if self._ssn is None:
            raise RuntimeError("capacity plugin used outside a session")
        return self._ssn

    def on_session_open(self, ssn: Session) -> None:
        self._ssn = ssn
        self._parse_arguments()
        self.total_resource.add(ssn.total_resource)
        self.hierarchy_enabled = ssn.hierarchy_enabled(self.name)
        if self.hierarchy_enabled:
            self.queue_opts, self.ready_to_schedule = build_hierarchical_queue_attrs(
                ssn.queues, ssn.jobs.values(), self.total_resource, ssn.persistent(HIERARCHY_SUMS, usage_sums)
            )
        else:
            self.queue_opts = build_flat_queue_attrs(
                ssn.queues, ssn.jobs.values(), self.total_resource, ssn.persistent(FLAT_SUMS, usage_sums)
            )
            self.ready_to_schedule = True
        for attr in self.queue_opts.values():
            logger.debug(
                "[capacity] queue <{}>: deserved <{}>, realCapability <{}>, allocated <{}>, request <{}>, "
                "inqueue <{}>, elastic <{}>, share <{:.2f}>",
                attr.name,
                attr.deserved,
                attr.real_capability,
                attr.allocated,
                attr.request,
                attr.inqueue,
                attr.elastic,
                attr.share,
            )
        self._victims = ReclaimVictimSelector(
            ssn.jobs,
            self.queue_opts,
            hierarchy_enabled=self.hierarchy_enabled,
            ancestor_reclaim_level=self.ancestor_reclaim_level,
            victim_order=lambda victims, preemptor: _drain(
                ssn.build_victims_priority_queue(victims, preemptor)
            ),
        )

        ssn.reclaimable.register(self.reclaimable)
        ssn.unified_evictable.register(self.unified_evictable)
        ssn.preemptive.register(self.preemptive)
        ssn.allocatable.register(self.allocatable)
        ssn.job_enqueueable.register(self.job_enqueueable)
        ssn.job_enqueued.register(self.job_enqueued)
        ssn.pre_predicate.register(self.pre_predicate)
        ssn.simulate_add_task.register(self.simulate_add_task)
        ssn.simulate_remove_task.register(self.simulate_remove_task)
        ssn.simulate_allocatable.register(self.simulate_allocatable)
        ssn.add_event_handler(
            EventHandler(allocate_func=self.on_allocate, deallocate_func=self.on_deallocate)
        )
        if not self.hierarchy_enabled:
            ssn.queue_order.register(self.queue_order)
        elif self.ready_to_schedule:
            ssn.queue_order.register(self.hierarchical_queue_order)
            ssn.victim_queue_order.register(self.victim_queue_order)

    def on_session_close(self, ssn: Session) -> None:
        self.total_resource = Resource()
        self.queue_opts = {}
        self._victims = None
        self._ssn = None

    # ------------------------------------------------------------------ helpers
    def _not_ready(self) -> bool:
        if not self.ready_to_schedule:
            logger.debug("[capacity] the queue hierarchy is invalid: refusing")
            return True
        return False

    def is_leaf_queue(self, queue_id: str) -> bool:
        attr = self.queue_opts.get(queue_id)
        return attr is not None and attr.is_leaf()

    def _chain(self, attrs: dict[str, QueueAttr], queue_id: str) -> list[QueueAttr] | None:
        """The queue and its ancestors, leaf first (only the queue in flat mode)."""
        attr = attrs.get(queue_id)
        if attr is None:
            return None
        chain = [attr]
        chain.extend(attrs[ancestor] for ancestor in reversed(attr.ancestors))
        return chain

    @staticmethod
    def queue_allocatable(attr: QueueAttr, candidate: TaskInfo) -> bool:
        """``queueAllocatableWithReserved`` without gate reservations: ``allocated + req <= real
        capability`` on the dimensions the candidate requests (``pods`` ignored)."""
        return not CapacityPlugin.queue_refusal(attr, candidate)

    @staticmethod
    def queue_refusal(attr: QueueAttr, candidate: TaskInfo) -> str:
        """Why ``queue_allocatable`` is False (naming the queue and the resources), or ""."""
        future_used = attr.allocated.clone().add(candidate.resreq)
        allocatable, names = future_used.less_equal_with_dimension_and_resources_name(
            attr.real_capability, candidate.resreq
        )
        if allocatable:
            return ""
        logger.debug(
            "[capacity] queue <{}>: realCapability <{}>, allocated <{}>; candidate <{}> request <{}> "
            "exceeds on {}",
            attr.name,
            attr.real_capability,
            attr.allocated,
            candidate.name,
            candidate.resreq,
            names,
        )
        return refusals.over_limit(
            attr.name,
            "is at its capability",
            "realCapability",
            attr.allocated,
            candidate.resreq,
            attr.real_capability,
            names,
        )

    def _refusal_in(self, attrs: dict[str, QueueAttr], queue: QueueInfo, candidate: TaskInfo) -> str:
        """The first queue of the chain (the queue, then its ancestors) that cannot take the candidate."""
        chain = self._chain(attrs, queue.uid)
        if chain is None:
            return f"queue {queue.name} has no job known to capacity"
        for attr in chain:
            why = self.queue_refusal(attr, candidate)
            if why:
                return why
        return ""

    def _allocatable_in(self, attrs: dict[str, QueueAttr], queue: QueueInfo, candidate: TaskInfo) -> bool:
        return not self._refusal_in(attrs, queue, candidate)

    # ------------------------------------------------------------------ queue order
    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        if left.priority != right.priority:
            return right.priority - left.priority
        left_attr = self.queue_opts.get(left.uid)
        right_attr = self.queue_opts.get(right.uid)
        if left_attr is None or right_attr is None:
            return 0
        return compare_share_with_deserved(left_attr, right_attr)

    def hierarchical_queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        if left.priority != right.priority:
            return right.priority - left.priority
        left_attr = self.queue_opts[left.uid]
        right_attr = self.queue_opts[right.uid]
        left_leaf = left_attr.is_leaf()
        right_leaf = right_attr.is_leaf()
        if left_leaf != right_leaf:
            return -1 if left_leaf else 1
        if not left_leaf:
            return compare_share_with_deserved(left_attr, right_attr)
        level = queue_level(left_attr, right_attr)
        left_id = (
            left_attr.ancestors[level + 1] if level + 1 < len(left_attr.ancestors) else left_attr.queue_id
        )
        right_id = (
            right_attr.ancestors[level + 1] if level + 1 < len(right_attr.ancestors) else right_attr.queue_id
        )
        return compare_share_with_deserved(self.queue_opts[left_id], self.queue_opts[right_id])

    def victim_queue_order(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> int:
        preemptor_attr = self.queue_opts[preemptor.uid]
        left_level = queue_level(self.queue_opts[left.uid], preemptor_attr)
        right_level = queue_level(self.queue_opts[right.uid], preemptor_attr)
        if left_level == right_level:
            return 0
        return -1 if left_level > right_level else 1

    # ------------------------------------------------------------------ eviction
    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        if self._not_ready():
            return [], REJECT
        assert self._victims is not None
        victims = self._victims.reclaim(reclaimer, reclaimees)
        if victims is None:
            return [], REJECT
        logger.debug("[capacity] victims {} for reclaimer {}", [v.key for v in victims], reclaimer.key)
        return victims, PERMIT

    def unified_evictable(
        self, ctx: EvictionContext, candidates: list[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        if ctx.kind == EvictionKind.GANG_PREEMPT:
            return list(candidates), PERMIT
        if self._not_ready():
            return [], REJECT
        assert self._victims is not None
        return self._victims.gang_reclaim(candidates), PERMIT

    def preemptive(self, queue: QueueInfo, candidates: list[TaskInfo]) -> bool:
        if self._not_ready():
            return False
        if not queue.is_open():
            logger.debug("[capacity] queue <{}> is {}, it cannot reclaim", queue.name, queue.state)
            return False
        attr = self.queue_opts.get(queue.uid)
        if attr is None:
            return False
        total = Resource()
        for task in candidates:
            if task is not None:
                total.add(task.resreq)
        future_used = attr.allocated.clone().add(total)
        within, _ = future_used.less_equal_with_dimension_and_resources_name(attr.real_capability, total)
        if not within:
            logger.debug(
                "[capacity] queue <{}> cannot reclaim: futureUsed <{}> exceeds realCapability <{}>",
                queue.name,
                future_used,
                attr.real_capability,
            )
            return False
        preemptive, _ = future_used.less_equal_partly_with_dimension_zero_filtered(attr.deserved, total)
        if preemptive or not self.hierarchy_enabled:
            return preemptive
        for level in range(1, self.ancestor_reclaim_level + 1):
            ancestor_id = ancestor_at_depth(attr, level)
            if ancestor_id is None or ancestor_id == ROOT_QUEUE:
                continue
            ancestor = self.queue_opts.get(ancestor_id)
            if ancestor is None:
                continue
            future_ancestor = ancestor.allocated.clone().add(total)
            preemptive, _ = future_ancestor.less_equal_partly_with_dimension_zero_filtered(
                ancestor.deserved, total
            )
            if preemptive:
                return True
        return False

    # ------------------------------------------------------------------ allocation
    def allocatable(self, queue: QueueInfo, candidate: TaskInfo) -> bool:
        why = self.allocatable_refusal(queue, candidate)
        if why:
            self.ssn.decisions.refusals.task(candidate.uid, why)
        return not why

    def allocatable_refusal(self, queue: QueueInfo, candidate: TaskInfo) -> str:
        """Why ``allocatable`` refuses the candidate, or ""."""
        if not queue.is_open():
            logger.debug(
                "[capacity] queue <{}> is {}, cannot allocate <{}>", queue.name, queue.state, candidate.name
            )
            return refusals.closed(queue.name, queue.state, "pods")
        if self._not_ready():
            return "the queue hierarchy is invalid (capacity plugin): no queue takes pods"
        if self.hierarchy_enabled and not self.is_leaf_queue(queue.uid):
            logger.debug(
                "[capacity] queue <{}> is not a leaf queue, cannot allocate <{}>", queue.name, candidate.name
            )
            return f"queue {queue.name} is not a leaf queue: only leaf queues take pods"
        return self._refusal_in(self.queue_opts, queue, candidate)

    # ------------------------------------------------------------------ enqueue
    def _job_enqueueable_in(self, attr: QueueAttr, job: JobInfo) -> tuple[bool, list[str]]:
        """``jobEnqueueable``: ``min + allocated + inqueue - elastic <= real capability`` on the
        dimensions of ``minResources``."""
        minimum = job.min_resources()
        future = minimum.clone().add(attr.allocated).add(attr.inqueue).sub_without_assert(attr.elastic)
        return future.less_equal_with_dimension_and_resources_name(attr.real_capability, minimum)

    def job_enqueueable(self, job: JobInfo) -> int:
        if self._not_ready():
            return REJECT
        if self.hierarchy_enabled and not self.is_leaf_queue(job.queue):
            return REJECT
        queue = self.ssn.queues.get(job.queue)
        attr = self.queue_opts.get(job.queue)
        if queue is None or attr is None:
            return REJECT
        if not queue.is_open():
            logger.debug("[capacity] queue <{}> is {}, reject job <{}>", queue.name, queue.state, job.uid)
            self.ssn.decisions.refusals.job(job.uid, refusals.closed(queue.name, queue.state, "PodGroups"))
            return REJECT
        if not job.has_min_resources():
            return PERMIT
        chain = self._chain(self.queue_opts, job.queue)
        assert chain is not None
        for node in chain:
            enqueueable, names = self._job_enqueueable_in(node, job)
            if not enqueueable:
                message = format_resource_names("queue resource quota insufficient", "insufficient", names)
                logger.info("[capacity] PodGroup {} Unschedulable: {}", job.uid, message)
                record_unschedulable(self.ssn, job, message)
                return REJECT
        return PERMIT

    def job_enqueued(self, job: JobInfo) -> None:
        if job is None or job.pod_group is None:
            return
        attr = self.queue_opts.get(job.queue)
        if attr is None or not job.has_min_resources():
            return
        deducted = deduct_sch_gated_resources(job, job.min_resources())
        attr.inqueue.add(deducted)
        if self.hierarchy_enabled:
            for ancestor in attr.ancestors:
                self.queue_opts[ancestor].inqueue.add(deducted)

    # ------------------------------------------------------------------ simulation
    def pre_predicate(self, task: TaskInfo) -> BaseException | None:
        self.ssn.get_cycle_state(task.uid)[STATE_KEY] = CapacityState(clone_all(self.queue_opts))
        return None

    def _simulated_attr(
        self, state: dict[str, Any], task: TaskInfo
    ) -> tuple[CapacityState, QueueAttr] | Exception:
        found = state.get(STATE_KEY) if state is not None else None
        if not isinstance(found, CapacityState):
            return RuntimeError(f"failed to get capacity state: error reading {STATE_KEY!r} from cycle state")
        job = self.ssn.jobs.get(task.job)
        if job is None:
            return RuntimeError(f"[capacity] job {task.job} not found in session")
        attr = found.queue_attrs.get(job.queue)
        if attr is None:
            return RuntimeError(f"[capacity] queue {job.queue} not found")
        return found, attr

    def simulate_add_task(
        self, state: dict[str, Any], task_to_schedule: TaskInfo, task_to_add: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        found = self._simulated_attr(state, task_to_add)
        if isinstance(found, Exception):
            return found
        capacity_state, attr = found
        attr.allocated.add(task_to_add.resreq)
        update_share(attr)
        if self.hierarchy_enabled:
            for ancestor in attr.ancestors:
                capacity_state.queue_attrs[ancestor].allocated.add(task_to_add.resreq)
        return None

    def simulate_remove_task(
        self, state: dict[str, Any], task_to_schedule: TaskInfo, task_to_remove: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        found = self._simulated_attr(state, task_to_remove)
        if isinstance(found, Exception):
            return found
        capacity_state, attr = found
        attr.allocated.sub_without_assert(task_to_remove.resreq)
        update_share(attr)
        if self.hierarchy_enabled:
            for ancestor in attr.ancestors:
                capacity_state.queue_attrs[ancestor].allocated.sub_without_assert(task_to_remove.resreq)
        return None

    def simulate_allocatable(self, state: dict[str, Any], queue: QueueInfo, candidate: TaskInfo) -> bool:
        found = state.get(STATE_KEY) if state is not None else None
        if not isinstance(found, CapacityState):
            return False
        if self._not_ready():
            return False
        if self.hierarchy_enabled and not self.is_leaf_queue(queue.uid):
            return False
        return self._allocatable_in(found.queue_attrs, queue, candidate)

    # ------------------------------------------------------------------ events
    def _event_attr(self, task: TaskInfo) -> QueueAttr | None:
        job = self.ssn.jobs.get(task.job)
        if job is None:
            logger.warning(
                "[capacity] skip event for <{}>: job <{}> not found in session", task.key, task.job
            )
            return None
        attr = self.queue_opts.get(job.queue)
        if attr is None:
            logger.warning(
                "[capacity] skip event for <{}>: queue <{}> has no attributes", task.key, job.queue
            )
        return attr

    def on_allocate(self, event: Event) -> None:
        attr = self._event_attr(event.task)
        if attr is None:
            return
        attr.allocated.add(event.task.resreq)
        update_share(attr)
        if self.hierarchy_enabled:
            for ancestor in attr.ancestors:
                self.queue_opts[ancestor].allocated.add(event.task.resreq)

    def on_deallocate(self, event: Event) -> None:
        attr = self._event_attr(event.task)
        if attr is None:
            return
        attr.allocated.sub_without_assert(event.task.resreq)
        update_share(attr)
        if self.hierarchy_enabled:
            for ancestor in attr.ancestors:
                self.queue_opts[ancestor].allocated.sub_without_assert(event.task.resreq)


def _drain(queue: PriorityQueue[TaskInfo]) -> Iterator[TaskInfo]:
    """Pop lazily, as upstream's ``for !reclaimeesQueue.Empty()`` loop does."""
    while not queue.empty():
        yield queue.pop()
