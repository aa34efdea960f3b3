"""The session's extension points: registration, and combination of the plugins' answers.

Mirrors ``pkg/scheduler/framework/session_plugins.go``. Each extension point has

* an adder, ``add_<point>_fn(plugin_name, fn)``, called by plugins in ``on_session_open`` (a second
  registration by the same plugin replaces the first, as Go's map assignment does);
* an enable flag of the plugin's conf entry (``None`` = always consulted);
* a combination rule from ``framework.voting`` and, where upstream has one, a fallback.

The table below is the contract. "tier order" means tiers in conf order, plugins in conf order
inside a tier; a plugin is consulted only when its flag is on and it registered the function.

=============================  ==============================  =====================================
point                          flag (YAML key)                 rule / default
=============================  ==============================  =====================================
job_order                      enableJobOrder                  first non-zero; creation time, UID
queue_order                    enableQueueOrder                first non-zero; creation time, UID
victim_queue_order             (none)                          first non-zero; not queue_order
cluster_order                  enabledClusterOrder             first non-zero; name
task_order                     enableTaskOrder                 first non-zero; pod index, creation, UID
sub_job_order                  enabledSubJobOrder              first non-zero; match index, UID
preemptable                    enablePreemptable               tier intersection; None
reclaimable                    enableReclaimable               tier intersection; None
unified_evictable              (none)                          tier intersection; None
overused                       enabledOverused                 any true; False
preemptive                     enablePreemptive                all true; True
allocatable                    enabledAllocatable              all true; True
job_ready                      enableJobReady                  all true; True
sub_job_ready                  enabledSubJobReady              all true; True (job_ready w/o policy)
job_pipelined                  enableJobPipelined              tier vote; True
sub_job_pipelined              enabledSubJobPipelined          tier vote; True (job_pipelined w/o policy)
job_enqueueable                enableJobEnqueued               tier vote; True
job_enqueued                   enableJobEnqueued               broadcast
job_starving                   enableJobStarving               first tier decides (AND); False
job_valid                      (none)                          first failure; None (valid)
target_job                     enableTargetJob                 winner takes all; None
reserved_nodes                 enableReservedNodes             broadcast
victim_tasks                   enabledVictim                   tier union; empty
predicate (+batch form)        enablePredicate                 all must pass, first error
pre_predicate                  enablePredicate                 all must pass, first error
simulate_predicate             enablePredicate                 all must pass, first error
simulate_add/remove_task       enablePreemptable OR            all must pass, first error
                               enabledAllocatable
simulate_allocatable           enabledAllocatable              all true; True
best_node                      enableBestNode                  first non-None; None
node_order (+batch form)       enableNodeOrder                 sum
node_map / node_reduce         enableNodeOrder                 per plugin, summed
hyper_node_order               enabledHyperNodeOrder           per plugin map
hyper_node_gradient_for_job    enabledHyperNodeGradient        winner takes all; [[hypernode]]
hyper_node_gradient_for_sub_job enabledHyperNodeGradient       winner takes all; [[hypernode]]
event handlers                 (none)                          broadcast
=============================  ==============================  =====================================

Batch forms (fumarole): ``add_batch_predicate_fn`` registers ``fn(task, rows) -> BatchFit`` and
``add_batch_node_order_fn`` registers ``fn(task, rows) -> scores`` over row indices of the session's
``NodeTable``; they take part in the same tier order as the scalar forms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import voting
from .api.fit_errors import Code, FitError, Status
from .api.hypernode_info import HyperNodeInfo
from .api.task_info import TaskInfo
from .interface import Event, EventHandler

if TYPE_CHECKING:
    from .api.job_info import JobInfo
    from .api.node_info import NodeInfo
    from .api.queue_info import QueueInfo
    from .api.sub_job_info import SubJobInfo
    from .api.types import EvictionContext, SearchPurpose, ValidateResult
    from .conf import Tier
    from .node_table import NodeTable

# point -> flag field(s) on PluginOption; None = always consulted; a tuple = any of them.
POINT_FLAGS: dict[str, str | tuple[str, ...] | None] = {
    "job_order": "enabled_job_order",
    "queue_order": "enabled_queue_order",
    "victim_queue_order": None,
    "cluster_order": "enabled_cluster_order",
    "task_order": "enabled_task_order",
    "sub_job_order": "enabled_sub_job_order",
    "preemptable": "enabled_preemptable",
    "reclaimable": "enabled_reclaimable",
    "unified_evictable": None,
    "overused": "enabled_overused",
    "preemptive": "enable_preemptive",
    "allocatable": "enabled_allocatable",
    "job_ready": "enabled_job_ready",
    "sub_job_ready": "enabled_sub_job_ready",
    "job_pipelined": "enabled_job_pipelined",
    "sub_job_pipelined": "enabled_sub_job_pipelined",
    "job_enqueueable": "enabled_job_enqueued",
    "job_enqueued": "enabled_job_enqueued",
    "job_starving": "enabled_job_starving",
    "job_valid": None,
    "target_job": "enabled_target_job",
    "reserved_nodes": "enabled_reserved_nodes",
    "victim_tasks": "enabled_victim",
    "predicate": "enabled_predicate",
    "batch_predicate": "enabled_predicate",
    "pre_predicate": "enabled_predicate",
    "simulate_predicate": "enabled_predicate",
    "simulate_add_task": ("enabled_preemptable", "enabled_allocatable"),
    "simulate_remove_task": ("enabled_preemptable", "enabled_allocatable"),
    "simulate_allocatable": "enabled_allocatable",
    "best_node": "enabled_best_node",
    "node_order": "enabled_node_order",
    "batch_node_order": "enabled_node_order",
    "node_map": "enabled_node_order",
    "node_reduce": "enabled_node_order",
    "hyper_node_order": "enabled_hyper_node_order",
    "hyper_node_gradient_for_job": "enabled_hyper_node_gradient",
    "hyper_node_gradient_for_sub_job": "enabled_hyper_node_gradient",
}


@dataclass
class BatchFit:
    """Answer of a batch predicate over candidate rows.

    ``passed`` is a boolean mask aligned with the rows asked about. ``failures`` explains the
    failed rows: each entry is ``(mask, code, reason)``, the first entry whose mask covers a failed
    row gives that row's status; rows failed by no entry get ``default_code`` / ``default_reason``.
    """

    passed: np.ndarray
    failures: list[tuple[np.ndarray, Code, str]] = field(default_factory=list)
    default_code: Code = Code.UNSCHEDULABLE
    default_reason: str = "node(s) didn't match the predicate"

    def reason_for(self, position: int) -> tuple[Code, str]:
        for mask, code, reason in self.failures:
            if mask[position]:
                return code, reason
        return self.default_code, self.default_reason

    def statuses_for(self, position: int) -> list[tuple[Code, str]]:
        """Every status of a failed row; one by default, several when a plugin reports more."""
        return [self.reason_for(position)]


class ExtensionPoints:
    """Mixin of ``Session``: one registry per extension point and the functions combining them."""

    tiers: list[Tier]
    node_table: NodeTable
    jobs: dict[str, JobInfo]
    queues: dict[str, QueueInfo]
    event_handlers: list[EventHandler]

    def _init_extension_points(self) -> None:
        self._fns: dict[str, dict[str, Any]] = {point: {} for point in POINT_FLAGS}
        self._resolved: dict[str, list[list[Any]]] = {}
        self.event_handlers = []

    # ------------------------------------------------------------------ registry mechanics
    def _register(self, point: str, plugin: str, fn: Any) -> None:
        self._fns[point][plugin] = fn
        self._resolved.pop(point, None)

    def enabled_fns(self, point: str) -> list[list[Any]]:
        """The registered functions of ``point`` whose plugin flag is on, grouped by tier."""
        found = self._resolved.get(point)
        if found is not None:
            return found
        flags = POINT_FLAGS[point]
        registered = self._fns[point]
        grouped: list[list[Any]] = []
        for tier in self.tiers:
            row = []
            for option in tier.plugins:
                fn = registered.get(option.name)
                if fn is None:
                    continue
                if flags is None:
                    enabled = True
                elif isinstance(flags, tuple):
                    enabled = any(option.is_enabled(flag) for flag in flags)
                else:
                    enabled = option.is_enabled(flags)
                if enabled:
                    row.append(fn)
            grouped.append(row)
        self._resolved[point] = grouped
        return grouped

    def has_fns(self, point: str) -> bool:
        return any(self.enabled_fns(point))

    # ------------------------------------------------------------------ adders
    def add_job_order_fn(self, name: str, fn: Callable[[Any, Any], int]) -> None:
        self._register("job_order", name, fn)

    def add_queue_order_fn(self, name: str, fn: Callable[[Any, Any], int]) -> None:
        self._register("queue_order", name, fn)

    def add_victim_queue_order_fn(self, name: str, fn: Callable[[Any, Any, Any], int]) -> None:
        self._register("victim_queue_order", name, fn)

    def add_cluster_order_fn(self, name: str, fn: Callable[[Any, Any], int]) -> None:
        self._register("cluster_order", name, fn)

    def add_task_order_fn(self, name: str, fn: Callable[[Any, Any], int]) -> None:
        self._register("task_order", name, fn)

    def add_sub_job_order_fn(self, name: str, fn: Callable[[Any, Any], int]) -> None:
        self._register("sub_job_order", name, fn)

    def add_preemptable_fn(
        self, name: str, fn: Callable[[TaskInfo, list[TaskInfo]], tuple[list[TaskInfo], int]]
    ) -> None:
        self._register("preemptable", name, fn)

    def add_reclaimable_fn(
        self, name: str, fn: Callable[[TaskInfo, list[TaskInfo]], tuple[list[TaskInfo], int]]
    ) -> None:
        self._register("reclaimable", name, fn)

    def add_unified_evictable_fn(
        self, name: str, fn: Callable[[EvictionContext, list[TaskInfo]], tuple[list[TaskInfo], int]]
    ) -> None:
        self._register("unified_evictable", name, fn)

    def add_overused_fn(self, name: str, fn: Callable[[QueueInfo], bool]) -> None:
        self._register("overused", name, fn)

    def add_preemptive_fn(self, name: str, fn: Callable[[QueueInfo, list[TaskInfo]], bool]) -> None:
        self._register("preemptive", name, fn)

    def add_allocatable_fn(self, name: str, fn: Callable[[QueueInfo, TaskInfo], bool]) -> None:
        self._register("allocatable", name, fn)

    def add_job_ready_fn(self, name: str, fn: Callable[[Any], bool]) -> None:
        self._register("job_ready", name, fn)

    def add_sub_job_ready_fn(self, name: str, fn: Callable[[Any], bool]) -> None:
        self._register("sub_job_ready", name, fn)

    def add_job_pipelined_fn(self, name: str, fn: Callable[[Any], int]) -> None:
        self._register("job_pipelined", name, fn)

    def add_sub_job_pipelined_fn(self, name: str, fn: Callable[[Any], int]) -> None:
        self._register("sub_job_pipelined", name, fn)

    def add_job_enqueueable_fn(self, name: str, fn: Callable[[Any], int]) -> None:
        self._register("job_enqueueable", name, fn)

    def add_job_enqueued_fn(self, name: str, fn: Callable[[Any], None]) -> None:
        self._register("job_enqueued", name, fn)

    def add_job_starving_fns(self, name: str, fn: Callable[[Any], bool]) -> None:
        self._register("job_starving", name, fn)

    def add_job_valid_fn(self, name: str, fn: Callable[[Any], ValidateResult | None]) -> None:
        self._register("job_valid", name, fn)

    def add_target_job_fn(self, name: str, fn: Callable[[list[JobInfo]], JobInfo | None]) -> None:
        self._register("target_job", name, fn)

    def add_reserved_nodes_fn(self, name: str, fn: Callable[[], None]) -> None:
        self._register("reserved_nodes", name, fn)

    def add_victim_tasks_fns(
        self, name: str, fns: Sequence[Callable[[list[TaskInfo]], list[TaskInfo]]]
    ) -> None:
        fns = list(fns)

        def combined(tasks: list[TaskInfo]) -> list[TaskInfo]:
            out: list[TaskInfo] = []
            for fn in fns:
                out.extend(fn(tasks))
            return out

        self._register("victim_tasks", name, combined)

    def add_predicate_fn(self, name: str, fn: Callable[[TaskInfo, NodeInfo], BaseException | None]) -> None:
        self._register("predicate", name, fn)

    def add_batch_predicate_fn(self, name: str, fn: Callable[[TaskInfo, np.ndarray], BatchFit]) -> None:
        self._register("batch_predicate", name, fn)

    def add_pre_predicate_fn(self, name: str, fn: Callable[[TaskInfo], BaseException | None]) -> None:
        self._register("pre_predicate", name, fn)

    def add_simulate_predicate_fn(self, name: str, fn: Callable[..., BaseException | None]) -> None:
        self._register("simulate_predicate", name, fn)

    def add_simulate_add_task_fn(self, name: str, fn: Callable[..., BaseException | None]) -> None:
        self._register("simulate_add_task", name, fn)

    def add_simulate_remove_task_fn(self, name: str, fn: Callable[..., BaseException | None]) -> None:
        self._register("simulate_remove_task", name, fn)

    def add_simulate_allocatable_fn(self, name: str, fn: Callable[..., bool]) -> None:
        self._register("simulate_allocatable", name, fn)

    def add_best_node_fn(
        self, name: str, fn: Callable[[TaskInfo, dict[float, list[NodeInfo]]], NodeInfo | None]
    ) -> None:
        self._register("best_node", name, fn)

    def add_node_order_fn(self, name: str, fn: Callable[[TaskInfo, NodeInfo], float]) -> None:
        self._register("node_order", name, fn)

    def add_batch_node_order_fn(self, name: str, fn: Callable[[TaskInfo, np.ndarray], Any]) -> None:
        self._register("batch_node_order", name, fn)

    def add_node_map_fn(self, name: str, fn: Callable[[TaskInfo, NodeInfo], float]) -> None:
        self._register("node_map", name, fn)

    def add_node_reduce_fn(self, name: str, fn: Callable[[TaskInfo, dict[str, float]], None]) -> None:
        self._register("node_reduce", name, fn)

    def add_hyper_node_order_fn(
        self, name: str, fn: Callable[[SubJobInfo, dict[str, list[NodeInfo]]], dict[str, float]]
    ) -> None:
        self._register("hyper_node_order", name, fn)

    def add_hyper_node_gradient_for_job_fn(
        self, name: str, fn: Callable[..., list[list[HyperNodeInfo]]]
    ) -> None:
        self._register("hyper_node_gradient_for_job", name, fn)

    def add_hyper_node_gradient_for_sub_job_fn(
        self, name: str, fn: Callable[..., list[list[HyperNodeInfo]]]
    ) -> None:
        self._register("hyper_node_gradient_for_sub_job", name, fn)

    def add_event_handler(self, handler: EventHandler) -> None:
        self.event_handlers.append(handler)

    # ------------------------------------------------------------------ eviction filters
    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo] | None:
        """Victims every deciding plugin allows (``Preemptable``); None when no tier decided."""
        return voting.tier_intersection(self.enabled_fns("preemptable"), preemptor, preemptees)

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo] | None:
        """``Reclaimable``: same rule as ``preemptable``."""
        return voting.tier_intersection(self.enabled_fns("reclaimable"), reclaimer, reclaimees)

    def unified_evictable(self, ctx: EvictionContext, candidates: list[TaskInfo]) -> list[TaskInfo] | None:
        """``UnifiedEvictable`` (no flag): same rule as ``preemptable``."""
        return voting.tier_intersection(self.enabled_fns("unified_evictable"), ctx, candidates)

    def victim_tasks(self, tasks: list[TaskInfo]) -> list[TaskInfo]:
        return voting.tier_union(self.enabled_fns("victim_tasks"), tasks)

    # ------------------------------------------------------------------ queue and job questions
    def overused(self, queue: QueueInfo) -> bool:
        return voting.any_true(self.enabled_fns("overused"), queue)

    def preemptive(self, queue: QueueInfo, candidates: list[TaskInfo]) -> bool:
        return voting.all_true(self.enabled_fns("preemptive"), queue, candidates)

    def allocatable(self, queue: QueueInfo, candidate: TaskInfo) -> bool:
        return voting.all_true(self.enabled_fns("allocatable"), queue, candidate)

    def job_ready(self, job: Any) -> bool:
        return voting.all_true(self.enabled_fns("job_ready"), job)

    def sub_job_ready(self, job: JobInfo, sub_job: SubJobInfo) -> bool:
        if not job.contains_sub_job_policy():
            return self.job_ready(job)
        return voting.all_true(self.enabled_fns("sub_job_ready"), sub_job)

    def job_pipelined(self, job: Any) -> bool:
        return voting.tier_vote(self.enabled_fns("job_pipelined"), job)

    def sub_job_pipelined(self, job: JobInfo, sub_job: SubJobInfo) -> bool:
        if not job.contains_sub_job_policy():
            return self.job_pipelined(job)
        return voting.tier_vote(self.enabled_fns("sub_job_pipelined"), sub_job)

    def job_starving(self, job: Any) -> bool:
        return voting.first_tier_decides(self.enabled_fns("job_starving"), job)

    def job_valid(self, job: Any) -> ValidateResult | None:
        result: ValidateResult | None = voting.first_failure(self.enabled_fns("job_valid"), job)
        return result

    def job_enqueueable(self, job: Any) -> bool:
        return voting.tier_vote(self.enabled_fns("job_enqueueable"), job)

    def job_enqueued(self, job: Any) -> None:
        voting.broadcast(self.enabled_fns("job_enqueued"), job)

    def target_job(self, jobs: list[JobInfo]) -> JobInfo | None:
        result: JobInfo | None = voting.winner_takes_all(self.enabled_fns("target_job"), lambda: None, jobs)
        return result

    def reserved_nodes(self) -> None:
        voting.broadcast(self.enabled_fns("reserved_nodes"))

    # ------------------------------------------------------------------ ordering
    def job_order_compare_fn(self, left: Any, right: Any) -> int:
        """First non-zero answer of the job-order plugins, 0 if none (``JobOrderCompareFn``)."""
        return voting.first_nonzero(self.enabled_fns("job_order"), left, right)

    def job_order_fn(self, left: JobInfo, right: JobInfo) -> bool:
        """True when ``left`` goes first; fallback creation time, then UID (``JobOrderFn``)."""
        result = self.job_order_compare_fn(left, right)
        if result != 0:
            return result < 0
        if left.creation == right.creation:
            return left.uid < right.uid
        return left.creation < right.creation

    def queue_order_fn(self, left: QueueInfo, right: QueueInfo) -> bool:
        result = voting.first_nonzero(self.enabled_fns("queue_order"), left, right)
        if result != 0:
            return result < 0
        if left.creation == right.creation:
            return left.uid < right.uid
        return left.creation < right.creation

    def victim_queue_order_fn(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> bool:
        result = voting.first_nonzero(self.enabled_fns("victim_queue_order"), left, right, preemptor)
        if result != 0:
            return result < 0
        return not self.queue_order_fn(left, right)

    def cluster_order_fn(self, left: Any, right: Any) -> bool:
        result = voting.first_nonzero(self.enabled_fns("cluster_order"), left, right)
        if result != 0:
            return result < 0
        return bool(left.name < right.name)

    def task_compare_fns(self, left: TaskInfo, right: TaskInfo) -> int:
        return voting.first_nonzero(self.enabled_fns("task_order"), left, right)

    def task_order_fn(self, left: TaskInfo, right: TaskInfo) -> bool:
        """True when ``left`` goes first; fallback ``compare_task`` (``TaskOrderFn``)."""
        result = self.task_compare_fns(left, right)
        if result != 0:
            return result < 0
        return compare_task(left, right)

    def sub_job_order_fn(self, left: SubJobInfo, right: SubJobInfo) -> bool:
        result = voting.first_nonzero(self.enabled_fns("sub_job_order"), left, right)
        if result != 0:
            return result < 0
        if left.match_index != right.match_index:
            return left.match_index < right.match_index
        return left.uid < right.uid

    # ------------------------------------------------------------------ predicates
    def predicate_fn(self, task: TaskInfo, node: NodeInfo) -> BaseException | None:
        """First error of the predicates in tier order, scalar and batch forms alike (``PredicateFn``)."""
        tiers = self._predicate_tiers()
        if not tiers:
            return None
        for tier in tiers:
            for kind, fn in tier:
                if kind == "scalar":
                    error = voting.first_error([[fn]], task, node)
                else:
                    rows = np.asarray([self.node_table.index[node.name]], dtype=np.int64)
                    fit = fn(task, rows)
                    if bool(fit.passed[0]):
                        continue
                    error = FitError(task, node.name, statuses_of(fit, 0))
                if error is not None:
                    return error
        return None

    def _predicate_tiers(self) -> list[list[tuple[str, Any]]]:
        cached = self._resolved.get("_predicates")
        if cached is not None:
            return cached
        scalar = self._fns["predicate"]
        batch = self._fns["batch_predicate"]
        out: list[list[tuple[str, Any]]] = []
        for tier in self.tiers:
            row: list[tuple[str, Any]] = []
            for option in tier.plugins:
                if not option.is_enabled("enabled_predicate"):
                    continue
                if option.name in batch:
                    row.append(("batch", batch[option.name]))
                elif option.name in scalar:
                    row.append(("scalar", scalar[option.name]))
            out.append(row)
        if not any(out):
            out = []
        self._resolved["_predicates"] = out
        return out

    def pre_predicate_fn(self, task: TaskInfo) -> BaseException | None:
        return voting.first_error(self.enabled_fns("pre_predicate"), task)

    def simulate_predicate_fn(self, state: Any, task: TaskInfo, node: NodeInfo) -> BaseException | None:
        return voting.first_error(self.enabled_fns("simulate_predicate"), state, task, node)

    def simulate_add_task_fn(
        self, state: Any, task_to_schedule: TaskInfo, task_to_add: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        return voting.first_error(
            self.enabled_fns("simulate_add_task"), state, task_to_schedule, task_to_add, node
        )

    def simulate_remove_task_fn(
        self, state: Any, task_to_schedule: TaskInfo, task_to_remove: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        return voting.first_error(
            self.enabled_fns("simulate_remove_task"), state, task_to_schedule, task_to_remove, node
        )

    def simulate_allocatable_fn(self, state: Any, queue: QueueInfo, task: TaskInfo) -> bool:
        return voting.all_true(self.enabled_fns("simulate_allocatable"), state, queue, task)

    # ------------------------------------------------------------------ scoring
    def best_node_fn(self, task: TaskInfo, node_scores: dict[float, list[NodeInfo]]) -> NodeInfo | None:
        result: NodeInfo | None = voting.first_not_none(self.enabled_fns("best_node"), task, node_scores)
        return result

    def node_order_fn(self, task: TaskInfo, node: NodeInfo) -> float:
        return voting.sum_scores(self.enabled_fns("node_order"), task, node)

    def batch_node_order_fn(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """Per-row sum of the batch scores (``BatchNodeOrderFn``); a plugin may answer a name->score map."""
        total = np.zeros(len(rows), dtype=np.float64)
        for tier in self.enabled_fns("batch_node_order"):
            for fn in tier:
                scores = fn(task, rows)
                if isinstance(scores, Mapping):
                    names = [self.node_table.names[row] for row in rows]
                    total += np.fromiter((float(scores.get(name, 0.0)) for name in names), dtype=np.float64)
                else:
                    total += np.asarray(scores, dtype=np.float64)
        return total

    def node_order_map_fn(self, task: TaskInfo, node: NodeInfo) -> tuple[dict[str, float], float]:
        """Per-plugin map scores and the summed node-order score (``NodeOrderMapFn``)."""
        map_scores: dict[str, float] = {}
        total = 0.0
        for tier in self.tiers:
            for option in tier.plugins:
                if not option.is_enabled("enabled_node_order"):
                    continue
                order = self._fns["node_order"].get(option.name)
                if order is not None:
                    total += float(order(task, node))
                mapper = self._fns["node_map"].get(option.name)
                if mapper is not None:
                    map_scores[option.name] = float(mapper(task, node))
        return map_scores, total

    def node_order_reduce_fn(
        self, task: TaskInfo, plugin_scores: dict[str, dict[str, float]]
    ) -> dict[str, float]:
        """Run each plugin's reduce over its map scores and sum per node (``NodeOrderReduceFn``)."""
        totals: dict[str, float] = {}
        for tier in self.tiers:
            for option in tier.plugins:
                if not option.is_enabled("enabled_node_order"):
                    continue
                reducer = self._fns["node_reduce"].get(option.name)
                if reducer is None:
                    continue
                scores = plugin_scores.setdefault(option.name, {})
                reducer(task, scores)
                for node_name, score in scores.items():
                    totals[node_name] = totals.get(node_name, 0.0) + score
        return totals

    def hyper_node_order_map_fn(
        self, sub_job: SubJobInfo, hyper_nodes: dict[str, list[NodeInfo]]
    ) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for tier in self.tiers:
            for option in tier.plugins:
                if not option.is_enabled("enabled_hyper_node_order"):
                    continue
                fn = self._fns["hyper_node_order"].get(option.name)
                if fn is not None:
                    out[option.name] = fn(sub_job, hyper_nodes)
        return out

    def hyper_node_gradient_for_job_fn(
        self, job: JobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose
    ) -> list[list[HyperNodeInfo]]:
        """Winner takes all; no plugin: ``[[hyper_node]]`` (``HyperNodeGradientForJobFn``)."""
        result: list[list[HyperNodeInfo]] = voting.winner_takes_all(
            self.enabled_fns("hyper_node_gradient_for_job"), lambda: [[hyper_node]], job, hyper_node, purpose
        )
        return result

    def hyper_node_gradient_for_sub_job_fn(
        self, sub_job: SubJobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose
    ) -> list[list[HyperNodeInfo]]:
        result: list[list[HyperNodeInfo]] = voting.winner_takes_all(
            self.enabled_fns("hyper_node_gradient_for_sub_job"),
            lambda: [[hyper_node]],
            sub_job,
            hyper_node,
            purpose,
        )
        return result

    # ------------------------------------------------------------------ events
    def _fire_allocate(self, task: TaskInfo) -> list[Exception]:
        errors = []
        for handler in self.event_handlers:
            if handler.allocate_func is not None:
                event = Event(task)
                handler.allocate_func(event)
                if event.err is not None:
                    errors.append(event.err)
        return errors

    def _fire_deallocate(self, task: TaskInfo) -> None:
        for handler in self.event_handlers:
            if handler.deallocate_func is not None:
                handler.deallocate_func(Event(task))


def statuses_of(fit: BatchFit, position: int) -> list[Status]:
    """The statuses a batch predicate gives a failed row (its default reason when it lists none)."""
    statuses = fit.statuses_for(position) if hasattr(fit, "statuses_for") else [fit.reason_for(position)]
    if not statuses:
        statuses = [(fit.default_code, fit.default_reason)]
    return [Status(code, reason) for code, reason in statuses]


def pod_index(name: str) -> int | None:
    """The index at the end of a pod name with at least three ``-`` parts (``GetPodIndexUnderTask``)."""
    parts = name.split("-")
    if len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


def compare_task(left: TaskInfo, right: TaskInfo) -> bool:
    """Default task order (``helpers.CompareTask``): pod-name index, then creation time, then UID."""
    left_index = pod_index(left.name)
    right_index = pod_index(right.name)
    if left_index is None or right_index is None or left_index == right_index:
        if left.creation == right.creation:
            return left.uid < right.uid
        return left.creation < right.creation
    return left_index < right_index
