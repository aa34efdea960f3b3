"""Every extension point of a session, declared once (``pkg/scheduler/framework/session_plugins.go``).

Each declaration is the contract of one point, in the manner of pytest's ``hookspec.py`` and
Kubernetes' ``framework/interface.go``: the method's signature is the type of the function a plugin
registers, its docstring what the function decides; the decorator names Volcano's function, the
enable flag that gates the point, the voting rule (``framework.voting``) that combines several
plugins' answers and the fallback that answers when no plugin decides. ``Session`` inherits these
declarations; on a session each is a bound point (``point.py``)::

    ssn.job_ready.register(fn)     # a plugin, in on_session_open (registered under its conf name)
    ssn.job_ready(job)             # an action: the combined answer

Plugins are consulted tier by tier, in conf order inside a tier, and only when they registered the
point and its flag is on (points without a flag: always). docs/extension-points.md is generated from
this module (``python -m fumarole.framework.extension_points.docs``).
"""

# The declarations are signatures and contracts; they have no bodies.
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import voting as v
from . import flags as F
from . import variants
from .fallbacks import (
    by_creation_then_uid,
    by_match_index_then_uid,
    by_name,
    by_task_index,
    deny,
    no_key,
    no_score,
    no_victims,
    permit,
    reverse_queue_order,
    undecided_victims,
)
from .point import point
from .variants import Rows, gradient_of

if TYPE_CHECKING:
    import numpy as np

    from ..api.batch_fit import BatchFit
    from ..api.fit_errors import FitError
    from ..api.hypernode_info import HyperNodeInfo
    from ..api.job_info import JobInfo
    from ..api.node_info import NodeInfo
    from ..api.queue_info import QueueInfo
    from ..api.sub_job_info import SubJobInfo
    from ..api.task_info import TaskInfo
    from ..api.types import EvictionContext, SearchPurpose, ValidateResult
    from ..interface import Event

Victims = tuple["list[TaskInfo]", int]
"""An evictable answer: the victims a plugin allows, and its vote (0 abstains)."""

ALLOCATION = (F.PREEMPTABLE, F.ALLOCATABLE)


class ExtensionPointSpecs:
    """The declarations; ``Session`` inherits them (see the module docstring)."""

    # ============================================================== ordering (< 0: left first)
    @point("JobOrderFn", F.JOB_ORDER, v.FIRST_NONZERO, by_creation_then_uid)
    def job_order(self, left: JobInfo, right: JobInfo, /) -> int:
        """Which of two jobs is scheduled first; 0 for no preference. ``vote`` is the plugins' answer
        alone (``JobOrderCompareFn``, used to order victims)."""

    @point("(none: fumarole)", F.JOB_ORDER, v.KEY_TUPLE, no_key)
    def job_order_key(self, job: JobInfo, /) -> float:
        """The plugin's ``job_order`` as a number, optional: for any two jobs, ``job_order(a, b)`` is the
        sign of ``key(a) - key(b)`` (never NaN), and a job's key changes only when the job's own tasks
        change (status, node; what a statement does). The combined answer is the tuple of the keys in
        tier order. A consumer that orders many jobs (gangpreempt's bundle order, allocate's and
        enqueue's job queues) uses the keys only when every plugin ``job_order`` consults registered
        one, and the comparisons otherwise."""

    @point("QueueOrderFn", F.QUEUE_ORDER, v.FIRST_NONZERO, by_creation_then_uid)
    def queue_order(self, left: QueueInfo, right: QueueInfo, /) -> int:
        """Which of two queues is served first; 0 for no preference."""

    @point("VictimQueueOrderFn", None, v.FIRST_NONZERO, reverse_queue_order)
    def victim_queue_order(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo, /) -> int:
        """Which of two queues gives up victims first to a preemptor of queue ``preemptor``."""

    @point("ClusterOrderFn", F.CLUSTER_ORDER, v.FIRST_NONZERO, by_name)
    def cluster_order(self, left: object, right: object, /) -> int:
        """Which of two clusters is tried first (multi-cluster)."""

    @point("TaskOrderFn", F.TASK_ORDER, v.FIRST_NONZERO, by_task_index)
    def task_order(self, left: TaskInfo, right: TaskInfo, /) -> int:
        """Which of two tasks of a job is placed first (and evicted last)."""

    @point("(none: fumarole)", F.TASK_ORDER, v.KEY_TUPLE, no_key)
    def task_order_key(self, task: TaskInfo, /) -> float:
        """The plugin's ``task_order`` as a number, optional: for any two tasks, ``task_order(a, b)`` is
        the sign of ``key(a) - key(b)`` (never NaN). The combined answer is the tuple of the keys in
        tier order. The victim queues of topology-aware preemption's dry runs sort by the keys
        (``framework/victim_order.py``) when every plugin ``task_order`` and ``job_order`` consult
        registered one, and compare otherwise."""

    @point("SubJobOrderFn", F.SUB_JOB_ORDER, v.FIRST_NONZERO, by_match_index_then_uid)
    def sub_job_order(self, left: SubJobInfo, right: SubJobInfo, /) -> int:
        """Which of two sub-jobs of a job is placed first."""

    # ============================================================== eviction
    @point("Preemptable", F.PREEMPTABLE, v.TIER_INTERSECTION, undecided_victims)
    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo], /) -> Victims:
        """Which of ``preemptees`` (tasks of other jobs, or lower tasks of the preemptor's own job) the
        preemptor may evict, and the plugin's vote. None when no tier decided. A query: the preemptees
        may be the session's own task objects (topology-aware preemption's dry runs pass them
        uncopied), so it must not change them."""

    @point("Reclaimable", F.RECLAIMABLE, v.TIER_INTERSECTION, undecided_victims)
    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo], /) -> Victims:
        """Which of ``reclaimees`` (tasks of other queues) the reclaimer may evict, and the vote."""

    @point("UnifiedEvictable", None, v.TIER_INTERSECTION, undecided_victims)
    def unified_evictable(self, ctx: EvictionContext, candidates: list[TaskInfo], /) -> Victims:
        """Which candidates a gang-aware eviction (``ctx.kind``, for ``ctx.job``) may evict, and the vote."""

    @point("VictimTasks", F.VICTIM, v.TIER_UNION, no_victims)
    def victim_tasks(self, tasks: list[TaskInfo], /) -> list[TaskInfo]:
        """Which running tasks must be evicted whatever happens."""

    # ============================================================== queues
    @point("Overused", F.OVERUSED, v.ANY_TRUE, deny)
    def overused(self, queue: QueueInfo, /) -> bool:
        """Whether the queue uses more than it deserves (allocate and reclaim then skip it)."""

    @point("Preemptive", F.PREEMPTIVE, v.ALL_TRUE, permit)
    def preemptive(self, queue: QueueInfo, candidates: list[TaskInfo], /) -> bool:
        """Whether the queue may reclaim for ``candidates``."""

    @point("Allocatable", F.ALLOCATABLE, v.ALL_TRUE, permit)
    def allocatable(self, queue: QueueInfo, candidate: TaskInfo, /) -> bool:
        """Whether the candidate may be allocated within the queue's quota."""

    # ============================================================== jobs
    @point("JobReady", F.JOB_READY, v.ALL_TRUE, permit)
    def job_ready(self, job: JobInfo, /) -> bool:
        """Whether the job has enough tasks allocated to dispatch (bind) them."""

    @point("SubJobReady", F.SUB_JOB_READY, v.ALL_TRUE, permit)
    def sub_job_ready(self, sub_job: SubJobInfo, /) -> bool:
        """Whether a sub-job has enough tasks allocated. Asked only for a job with a sub-group policy;
        for any other job actions ask ``job_ready``."""

    @point("JobPipelined", F.JOB_PIPELINED, v.TIER_VOTE, permit)
    def job_pipelined(self, job: JobInfo, /) -> int:
        """Whether the job's placements may be kept, waiting for resources being released: permit (> 0),
        abstain (0) or reject (< 0)."""

    @point("SubJobPipelined", F.SUB_JOB_PIPELINED, v.TIER_VOTE, permit)
    def sub_job_pipelined(self, sub_job: SubJobInfo, /) -> int:
        """``job_pipelined`` for a sub-job of a job with a sub-group policy."""

    @point("JobEnqueueable", F.JOB_ENQUEUED, v.TIER_VOTE, permit)
    def job_enqueueable(self, job: JobInfo, /) -> int:
        """Whether a Pending job may become Inqueue (its queue can hold its minimum resources)."""

    @point("JobEnqueued", F.JOB_ENQUEUED, v.BROADCAST)
    def job_enqueued(self, job: JobInfo, /) -> None:
        """Told that the job was admitted to its queue (plugins reserve its minimum resources)."""

    @point("JobStarving", F.JOB_STARVING, v.FIRST_TIER_DECIDES, deny)
    def job_starving(self, job: JobInfo, /) -> bool:
        """Whether the job still wants resources, so preempt and reclaim may evict for it."""

    @point("JobValid", None, v.FIRST_FAILURE)
    def job_valid(self, job: JobInfo, /) -> ValidateResult | None:
        """Whether the job may be scheduled at all this session (None or a passing result: valid).
        A question, not an action: it must not change the session, because allocate and backfill do
        not ask it about a job that has no task for them (no pending task; for backfill, no pending
        or pipelined one), which they would pass over whatever the answer."""

    @point("TargetJob", F.TARGET_JOB, v.WINNER_TAKES_ALL)
    def target_job(self, jobs: list[JobInfo], /) -> JobInfo | None:
        """The job to reserve resources for, among ``jobs``."""

    @point("ReservedNodes", F.RESERVED_NODES, v.BROADCAST)
    def reserved_nodes(self) -> None:
        """Told to (re)compute the nodes reserved for the target job."""

    # ============================================================== predicates
    @point("PredicateFn", F.PREDICATE, v.ALL_MUST_PASS)
    def predicate(self, task: TaskInfo, node: NodeInfo, /) -> BaseException | None:
        """Whether the task may run on the node: None, or the error (a ``FitError`` with its statuses)."""

    @predicate.batch(variants.combine_predicates, variants.predicate_to_batch, variants.predicate_to_scalar)
    def batch_predicate(self, task: TaskInfo, rows: Rows, /) -> BatchFit:
        """The predicate over many rows of ``ssn.node_table``: a mask and the failures' statuses.
        Combined: the rows that pass every plugin, and a ``FitError`` per failed row."""

    @point("PrePredicateFn", F.PREDICATE, v.ALL_MUST_PASS)
    def pre_predicate(self, task: TaskInfo, /) -> BaseException | None:
        """Whether the task can run anywhere, before any node is looked at: None or the error."""

    @point("SimulatePredicateFn", F.PREDICATE, v.ALL_MUST_PASS)
    def simulate_predicate(self, state: object, task: TaskInfo, node: NodeInfo, /) -> BaseException | None:
        """The predicate on a simulated node state (topology-aware preemption). A query: it must not
        change the state or anything else, since the dry run asks it only when the node's resources
        fit and does not ask again while the state is unchanged."""

    @point("SimulateAddTaskFn", ALLOCATION, v.ALL_MUST_PASS)
    def simulate_add_task(
        self, state: object, pending: TaskInfo, added: TaskInfo, node: NodeInfo, /
    ) -> BaseException | None:
        """Update the simulated state as if ``added`` ran on the node (for placing ``pending``). The inverse
        of ``simulate_remove_task``: adding back a task just removed succeeds and leaves the state as it
        was before the removal (topology-aware preemption's reprieve relies on it and does not add back
        the last victim its greedy loop removed when the state before that removal did not fit)."""

    @point("SimulateRemoveTaskFn", ALLOCATION, v.ALL_MUST_PASS)
    def simulate_remove_task(
        self, state: object, pending: TaskInfo, removed: TaskInfo, node: NodeInfo, /
    ) -> BaseException | None:
        """Update the simulated state as if ``removed`` left the node (for placing ``pending``); undone
        by ``simulate_add_task`` of the same task."""

    @point("SimulateAllocatableFn", F.ALLOCATABLE, v.ALL_TRUE, permit)
    def simulate_allocatable(self, state: object, queue: QueueInfo, task: TaskInfo, /) -> bool:
        """``allocatable`` on a simulated state. A query, like ``simulate_predicate``: it must not
        change the state or record anything, since the dry run asks it only when the node's resources
        fit and does not ask again while the state is unchanged."""

    # ============================================================== scoring (higher is better)
    @point("BestNodeFn", F.BEST_NODE, v.FIRST_NOT_NONE)
    def best_node(self, task: TaskInfo, node_scores: dict[float, list[NodeInfo]], /) -> NodeInfo | None:
        """The node to place the task on, given every candidate by score; None leaves it to the score."""

    @point("NodeOrderFn", F.NODE_ORDER, v.SUM_OF_SCORES, no_score)
    def node_order(self, task: TaskInfo, node: NodeInfo, /) -> float:
        """How good the node is for the task."""

    @node_order.batch(
        variants.combine_node_orders, variants.node_order_to_batch, variants.node_order_to_scalar
    )
    def batch_node_order(self, task: TaskInfo, rows: Rows, /) -> np.ndarray:
        """The node order over many rows: one score per row (or a ``{node: score}`` map,
        ``BatchNodeOrderFn``'s shape). Combined: per-row sums."""

    @point("NodeMapFn", F.NODE_ORDER, v.SUM_OF_SCORES, no_score)
    def node_map(self, task: TaskInfo, node: NodeInfo, /) -> float:
        """A raw score, normalised by the same plugin's ``node_reduce``: only the map scores of plugins
        that also registered ``node_reduce`` count (``NodeOrderReduceFn``; see ``node_map_reduce``)."""

    @point("NodeReduceFn", F.NODE_ORDER, v.BROADCAST)
    def node_reduce(self, task: TaskInfo, scores: dict[str, float], /) -> None:
        """Normalise the plugin's own map scores (floored, by node name) in place."""

    @point("HyperNodeOrderMapFn", F.HYPER_NODE_ORDER, v.SUM_OF_SCORES, no_score)
    def hyper_node_order(self, sub_job: SubJobInfo, hyper_node: str, nodes: list[NodeInfo], /) -> float:
        """How good a hypernode (its nodes given) is for the sub-job."""

    @hyper_node_order.batch(
        variants.combine_hyper_node_orders,
        variants.hyper_node_order_to_batch,
        variants.hyper_node_order_to_scalar,
    )
    def batch_hyper_node_order(
        self, sub_job: SubJobInfo, hyper_nodes: dict[str, list[NodeInfo]], /
    ) -> dict[str, float]:
        """Many hypernodes at once (``HyperNodeOrderFn``'s shape). Combined: per-hypernode sums."""

    @point("HyperNodeGradientForJobFn", F.HYPER_NODE_GRADIENT, v.WINNER_TAKES_ALL, gradient_of)
    def hyper_node_gradient_for_job(
        self, job: JobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose, /
    ) -> list[list[HyperNodeInfo]]:
        """The hypernodes under ``hyper_node`` to try for the job, in groups tried in order, to allocate
        or to find where to evict. Fallback: ``[[hyper_node]]``."""

    @point("HyperNodeGradientForSubJobFn", F.HYPER_NODE_GRADIENT, v.WINNER_TAKES_ALL, gradient_of)
    def hyper_node_gradient_for_sub_job(
        self, sub_job: SubJobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose, /
    ) -> list[list[HyperNodeInfo]]:
        """``hyper_node_gradient_for_job`` for a sub-job."""

    # ============================================================== events
    @point("EventHandler.AllocateFunc", None, v.BROADCAST, accumulates=True)
    def allocate_event(self, event: Event, /) -> None:
        """Told that ``event.task`` was allocated or pipelined (also when an eviction is undone); setting
        ``event.err`` refuses and the allocation is rolled back. A plugin may register several."""

    @point("EventHandler.DeallocateFunc", None, v.BROADCAST, accumulates=True)
    def deallocate_event(self, event: Event, /) -> None:
        """Told that ``event.task`` was evicted, or that its allocation or pipelining was undone."""

    # ============================================================== derived answers
    def predicate_errors(self, task: TaskInfo, rows: Rows) -> dict[int, FitError]:
        """Every predicate plugin's verdict on every row, no short-circuit (the batch forms, tier order):
        per failed row, all the statuses. What an eviction asks: can any plugin rule the node out for
        good, whatever plugin failed it first?"""
        return variants.every_predicate_error(self, task, rows)

    def node_map_reduce(self, task: TaskInfo, nodes: list[NodeInfo]) -> dict[str, float]:
        """The reduced map scores of every node, summed over plugins (``NodeOrderMapFn`` +
        ``NodeOrderReduceFn``); empty when no plugin registered ``node_reduce``."""
        return variants.map_reduce(self, task, nodes)
