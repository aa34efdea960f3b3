"""Every extension point of a session, declared once (``pkg/scheduler/framework/session_plugins.go``).

Each declaration below is the contract of one point, in the manner of pytest's ``hookspec.py`` and
Kubernetes' ``framework/interface.go``: the method's signature is the type of the function a plugin
registers, its docstring says what the function decides, and the decorator says which enable flag
gates it, which voting rule (``framework.voting``) combines several plugins' answers and what answers
when no plugin decides. ``Session`` inherits these declarations; on a session each is a bound point::

    ssn.job_ready.register(fn)     # a plugin, in on_session_open (registered under its conf name)
    ssn.job_ready(job)             # an action: the combined answer

Plugins are consulted tier by tier, in conf order inside a tier, and only when they registered the
point and its flag is on (points without a flag: always). docs/extension-points.md is generated from
this module (``python -m fumarole.framework.extension_points.docs``).
"""

# The declarations have no bodies: they are signatures and contracts, not implementations.
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import voting
from . import flags as F
from .fallbacks import (
    by_creation_then_uid,
    by_match_index_then_uid,
    by_name,
    by_pod_index_then_creation,
    reverse_queue_order,
)
from .point import constant, extension_point
from .variants import (
    Rows,
    combine_hyper_node_orders,
    combine_node_orders,
    combine_predicates,
    gradient_of,
    hyper_node_order_to_batch,
    hyper_node_order_to_scalar,
    map_reduce,
    node_order_to_batch,
    node_order_to_scalar,
    predicate_to_batch,
    predicate_to_scalar,
)

if TYPE_CHECKING:
    import numpy as np

    from ..api.batch_fit import BatchFit
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


class ExtensionPointSpecs:
    """The declarations; ``Session`` inherits them (see the module docstring)."""

    # ============================================================== ordering
    @extension_point(
        go="JobOrderFn", flag=F.JOB_ORDER, rule=voting.FIRST_NONZERO, fallback=by_creation_then_uid
    )
    def job_order(self, left: JobInfo, right: JobInfo, /) -> int:
        """Which of two jobs is scheduled first: < 0 left, > 0 right, 0 no preference.

        Fallback: the earlier creation time, then the smaller UID. ``vote`` gives the plugins' answer
        alone (``JobOrderCompareFn``, used to order victims)."""

    @extension_point(
        go="QueueOrderFn", flag=F.QUEUE_ORDER, rule=voting.FIRST_NONZERO, fallback=by_creation_then_uid
    )
    def queue_order(self, left: QueueInfo, right: QueueInfo, /) -> int:
        """Which of two queues is served first: < 0 left, > 0 right, 0 no preference.

        Fallback: the earlier creation time, then the smaller UID."""

    @extension_point(
        go="VictimQueueOrderFn", flag=None, rule=voting.FIRST_NONZERO, fallback=reverse_queue_order
    )
    def victim_queue_order(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo, /) -> int:
        """Which of two queues gives up victims first to a preemptor of ``preemptor``: < 0 left.

        Fallback: the reverse of the queue order (the queue served last gives first)."""

    @extension_point(go="ClusterOrderFn", flag=F.CLUSTER_ORDER, rule=voting.FIRST_NONZERO, fallback=by_name)
    def cluster_order(self, left: object, right: object, /) -> int:
        """Which of two clusters is tried first (multi-cluster): < 0 left. Fallback: by name."""

    @extension_point(
        go="TaskOrderFn", flag=F.TASK_ORDER, rule=voting.FIRST_NONZERO, fallback=by_pod_index_then_creation
    )
    def task_order(self, left: TaskInfo, right: TaskInfo, /) -> int:
        """Which of two tasks of a job is placed first (and evicted last): < 0 left.

        Fallback: ``helpers.CompareTask``: the pod-name index, then creation time, then UID."""

    @extension_point(
        go="SubJobOrderFn", flag=F.SUB_JOB_ORDER, rule=voting.FIRST_NONZERO, fallback=by_match_index_then_uid
    )
    def sub_job_order(self, left: SubJobInfo, right: SubJobInfo, /) -> int:
        """Which of two sub-jobs of a job is placed first: < 0 left. Fallback: match index, then UID."""

    # ============================================================== eviction
    @extension_point(
        go="Preemptable", flag=F.PREEMPTABLE, rule=voting.TIER_INTERSECTION, fallback=constant(None)
    )
    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo], /) -> Victims:
        """Which of ``preemptees`` (tasks of other jobs, or lower tasks of the same job) the preemptor
        may evict, and the plugin's vote. None when no tier decided."""

    @extension_point(
        go="Reclaimable", flag=F.RECLAIMABLE, rule=voting.TIER_INTERSECTION, fallback=constant(None)
    )
    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo], /) -> Victims:
        """Which of ``reclaimees`` (tasks of other queues) the reclaimer may evict, and the vote."""

    @extension_point(go="UnifiedEvictable", flag=None, rule=voting.TIER_INTERSECTION, fallback=constant(None))
    def unified_evictable(self, ctx: EvictionContext, candidates: list[TaskInfo], /) -> Victims:
        """Which candidates a gang-aware eviction (``ctx.kind``: gang preempt or gang reclaim, for
        ``ctx.job``) may evict, and the vote."""

    @extension_point(go="VictimTasks", flag=F.VICTIM, rule=voting.TIER_UNION, fallback=constant([]))
    def victim_tasks(self, tasks: list[TaskInfo], /) -> list[TaskInfo]:
        """Which running tasks must be evicted whatever happens (e.g. a node's pods over a limit)."""

    # ============================================================== queues
    @extension_point(go="Overused", flag=F.OVERUSED, rule=voting.ANY_TRUE, fallback=constant(False))
    def overused(self, queue: QueueInfo, /) -> bool:
        """Whether ``queue`` uses more than it deserves (allocate and reclaim then skip it)."""

    @extension_point(go="Preemptive", flag=F.PREEMPTIVE, rule=voting.ALL_TRUE, fallback=constant(True))
    def preemptive(self, queue: QueueInfo, candidates: list[TaskInfo], /) -> bool:
        """Whether ``queue`` may reclaim for ``candidates``."""

    @extension_point(go="Allocatable", flag=F.ALLOCATABLE, rule=voting.ALL_TRUE, fallback=constant(True))
    def allocatable(self, queue: QueueInfo, candidate: TaskInfo, /) -> bool:
        """Whether ``candidate`` may be allocated within ``queue``'s quota."""

    # ============================================================== jobs
    @extension_point(go="JobReady", flag=F.JOB_READY, rule=voting.ALL_TRUE, fallback=constant(True))
    def job_ready(self, job: JobInfo, /) -> bool:
        """Whether the job has enough tasks allocated to dispatch (bind) them."""

    @extension_point(go="SubJobReady", flag=F.SUB_JOB_READY, rule=voting.ALL_TRUE, fallback=constant(True))
    def sub_job_ready(self, sub_job: SubJobInfo, /) -> bool:
        """Whether a sub-job (sub-group policy) has enough tasks allocated. Asked only for a job with a
        sub-group policy; for any other job actions ask ``job_ready``."""

    @extension_point(go="JobPipelined", flag=F.JOB_PIPELINED, rule=voting.TIER_VOTE, fallback=constant(True))
    def job_pipelined(self, job: JobInfo, /) -> int:
        """Whether the job's placements may be kept, waiting for resources being released: permit
        (> 0), abstain (0) or reject (< 0)."""

    @extension_point(
        go="SubJobPipelined", flag=F.SUB_JOB_PIPELINED, rule=voting.TIER_VOTE, fallback=constant(True)
    )
    def sub_job_pipelined(self, sub_job: SubJobInfo, /) -> int:
        """``job_pipelined`` for a sub-job of a job with a sub-group policy."""

    @extension_point(go="JobEnqueueable", flag=F.JOB_ENQUEUED, rule=voting.TIER_VOTE, fallback=constant(True))
    def job_enqueueable(self, job: JobInfo, /) -> int:
        """Whether a Pending job may move to Inqueue (its queue can hold its minimum resources): permit,
        abstain or reject."""

    @extension_point(go="JobEnqueued", flag=F.JOB_ENQUEUED, rule=voting.BROADCAST, fallback=constant(None))
    def job_enqueued(self, job: JobInfo, /) -> None:
        """Told that the job was admitted to its queue (plugins reserve its minimum resources)."""

    @extension_point(
        go="JobStarving", flag=F.JOB_STARVING, rule=voting.FIRST_TIER_DECIDES, fallback=constant(False)
    )
    def job_starving(self, job: JobInfo, /) -> bool:
        """Whether the job still wants resources, so preempt and reclaim may evict for it."""

    @extension_point(go="JobValid", flag=None, rule=voting.FIRST_FAILURE, fallback=constant(None))
    def job_valid(self, job: JobInfo, /) -> ValidateResult | None:
        """Whether the job may be scheduled at all this session (None or a passing result: valid)."""

    @extension_point(go="TargetJob", flag=F.TARGET_JOB, rule=voting.WINNER_TAKES_ALL, fallback=constant(None))
    def target_job(self, jobs: list[JobInfo], /) -> JobInfo | None:
        """The job to reserve resources for (elect), among ``jobs``."""

    @extension_point(
        go="ReservedNodes", flag=F.RESERVED_NODES, rule=voting.BROADCAST, fallback=constant(None)
    )
    def reserved_nodes(self) -> None:
        """Told to (re)compute the nodes reserved for the target job."""

    # ============================================================== predicates
    @extension_point(go="PredicateFn", flag=F.PREDICATE, rule=voting.ALL_MUST_PASS, fallback=constant(None))
    def predicate(self, task: TaskInfo, node: NodeInfo, /) -> BaseException | None:
        """Whether the task may run on the node: None, or the error (a ``FitError`` with its statuses)."""

    @predicate.batch(combine=combine_predicates, to_batch=predicate_to_batch, to_scalar=predicate_to_scalar)
    def batch_predicate(self, task: TaskInfo, rows: Rows, /) -> BatchFit:
        """The predicate over many rows of ``ssn.node_table`` at once: a mask and the failures' statuses.
        Combined: the rows that pass every plugin and a ``FitError`` per failed row."""

    @extension_point(
        go="PrePredicateFn", flag=F.PREDICATE, rule=voting.ALL_MUST_PASS, fallback=constant(None)
    )
    def pre_predicate(self, task: TaskInfo, /) -> BaseException | None:
        """Whether the task can run anywhere, before any node is looked at: None or the error."""

    @extension_point(
        go="SimulatePredicateFn", flag=F.PREDICATE, rule=voting.ALL_MUST_PASS, fallback=constant(None)
    )
    def simulate_predicate(self, state: object, task: TaskInfo, node: NodeInfo, /) -> BaseException | None:
        """The predicate on a simulated node state (topology-aware preemption)."""

    @extension_point(
        go="SimulateAddTaskFn",
        flag=(F.PREEMPTABLE, F.ALLOCATABLE),
        rule=voting.ALL_MUST_PASS,
        fallback=constant(None),
    )
    def simulate_add_task(
        self, state: object, task_to_schedule: TaskInfo, task_to_add: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        """Update the simulated state as if ``task_to_add`` ran on the node."""

    @extension_point(
        go="SimulateRemoveTaskFn",
        flag=(F.PREEMPTABLE, F.ALLOCATABLE),
        rule=voting.ALL_MUST_PASS,
        fallback=constant(None),
    )
    def simulate_remove_task(
        self, state: object, task_to_schedule: TaskInfo, task_to_remove: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        """Update the simulated state as if ``task_to_remove`` left the node."""

    @extension_point(
        go="SimulateAllocatableFn", flag=F.ALLOCATABLE, rule=voting.ALL_TRUE, fallback=constant(True)
    )
    def simulate_allocatable(self, state: object, queue: QueueInfo, task: TaskInfo, /) -> bool:
        """``allocatable`` on a simulated state."""

    # ============================================================== scoring
    @extension_point(go="BestNodeFn", flag=F.BEST_NODE, rule=voting.FIRST_NOT_NONE, fallback=constant(None))
    def best_node(self, task: TaskInfo, node_scores: dict[float, list[NodeInfo]], /) -> NodeInfo | None:
        """The node to place the task on, given every candidate by score; None leaves it to the score."""

    @extension_point(go="NodeOrderFn", flag=F.NODE_ORDER, rule=voting.SUM_OF_SCORES, fallback=constant(0.0))
    def node_order(self, task: TaskInfo, node: NodeInfo, /) -> float:
        """How good the node is for the task; higher is better."""

    @node_order.batch(
        combine=combine_node_orders, to_batch=node_order_to_batch, to_scalar=node_order_to_scalar
    )
    def batch_node_order(self, task: TaskInfo, rows: Rows, /) -> np.ndarray:
        """The node order over many rows at once: one score per row (or a ``{node: score}`` map,
        ``BatchNodeOrderFn``'s shape). Combined: per-row sums."""

    @extension_point(go="NodeMapFn", flag=F.NODE_ORDER, rule=voting.SUM_OF_SCORES, fallback=constant(0.0))
    def node_map(self, task: TaskInfo, node: NodeInfo, /) -> float:
        """A raw score of the node, normalised later by the same plugin's ``node_reduce``. Only the
        map scores of plugins that also registered ``node_reduce`` count (``NodeOrderReduceFn``)."""

    @extension_point(go="NodeReduceFn", flag=F.NODE_ORDER, rule=voting.BROADCAST, fallback=constant(None))
    def node_reduce(self, task: TaskInfo, scores: dict[str, float], /) -> None:
        """Normalise the plugin's own map scores (floored, by node name) in place."""

    @extension_point(
        go="HyperNodeOrderMapFn", flag=F.HYPER_NODE_ORDER, rule=voting.SUM_OF_SCORES, fallback=constant(0.0)
    )
    def hyper_node_order(self, sub_job: SubJobInfo, hyper_node: str, nodes: list[NodeInfo], /) -> float:
        """How good a hypernode (its nodes given) is for the sub-job; higher is better."""

    @hyper_node_order.batch(
        combine=combine_hyper_node_orders,
        to_batch=hyper_node_order_to_batch,
        to_scalar=hyper_node_order_to_scalar,
    )
    def batch_hyper_node_order(
        self, sub_job: SubJobInfo, hyper_nodes: dict[str, list[NodeInfo]]
    ) -> dict[str, float]:
        """The hypernode order of many hypernodes at once (``HyperNodeOrderFn``'s shape). Combined:
        per-hypernode sums."""

    @extension_point(
        go="HyperNodeGradientForJobFn",
        flag=F.HYPER_NODE_GRADIENT,
        rule=voting.WINNER_TAKES_ALL,
        fallback=gradient_of,
    )
    def hyper_node_gradient_for_job(
        self, job: JobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose
    ) -> list[list[HyperNodeInfo]]:
        """The hypernodes under ``hyper_node`` to try for the job, as gradients (groups tried in order),
        to allocate or to find where to evict. Fallback: ``[[hyper_node]]``."""

    @extension_point(
        go="HyperNodeGradientForSubJobFn",
        flag=F.HYPER_NODE_GRADIENT,
        rule=voting.WINNER_TAKES_ALL,
        fallback=gradient_of,
    )
    def hyper_node_gradient_for_sub_job(
        self, sub_job: SubJobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose
    ) -> list[list[HyperNodeInfo]]:
        """``hyper_node_gradient_for_job`` for a sub-job. Fallback: ``[[hyper_node]]``."""

    # ============================================================== events
    @extension_point(
        go="EventHandler.AllocateFunc",
        flag=None,
        rule=voting.BROADCAST,
        fallback=constant(None),
        accumulates=True,
    )
    def allocate_event(self, event: Event, /) -> None:
        """Told that ``event.task`` was allocated or pipelined (also when an eviction is undone); may set
        ``event.err`` to refuse, and the allocation is rolled back. A plugin may register several."""

    @extension_point(
        go="EventHandler.DeallocateFunc",
        flag=None,
        rule=voting.BROADCAST,
        fallback=constant(None),
        accumulates=True,
    )
    def deallocate_event(self, event: Event, /) -> None:
        """Told that ``event.task`` was evicted, or that its allocation or pipelining was undone."""

    # ============================================================== derived answers
    def node_map_reduce(self, task: TaskInfo, nodes: list[NodeInfo]) -> dict[str, float]:
        """The map scores of every node, floored, reduced by their plugin and summed over plugins
        (``NodeOrderMapFn`` + ``NodeOrderReduceFn``); empty when no plugin registered ``node_reduce``."""
        return map_reduce(self, task, nodes)
