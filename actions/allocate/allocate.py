"""The allocate action: place pending tasks on nodes, a job at a time (``actions/allocate/allocate.go``).

Jobs a gang eviction nominated (a sub-job with a nominated hypernode) are served first, in queue
order then job order, so no other job takes the resources their victims free. Then queues are
visited in queue order (an overused queue is skipped), one job per visit in job order, the queue
re-pushed after each job so its position is recomputed. For a job:

* without hard network topology and without sub-group policies, its pending tasks are tried in task
  order on all nodes (the nominated hypernode first, when gang eviction nominated one);
* otherwise the job's hypernode gradients are walked: within a gradient every hypernode is tried in a
  dry run (statements discarded), the best scoring solution wins and is replayed; sub-jobs likewise
  choose among their own gradients by hypernode score. The chosen hypernodes are written to the job
  and its sub-jobs (allocated hypernode = LCA of the old one and the choice) only when the job's
  statement is committed; the session keeps them for later cycles.

A task: queue ``allocatable``, skip gated tasks and roles that already failed, pre-predicates, then
a predicate pass (``InitResreq <= FutureIdle`` and the plugins' predicates) over the nodes, its
nominated node first; scoring (nodes where the request fits idle before those where it fits only
future-idle); ``allocate`` when it fits idle, ``pipeline`` when it fits future-idle. The job's
statement is **committed only when the job is ready**; a job that is only pipelined keeps its
statement applied in the session, neither committed nor discarded (Volcano's rule), so its tasks
show as pipelined and their resources stay reserved for the rest of the cycle.

Arguments (``configurations: [{name: allocate, arguments: {...}}]``): ``predicateErrorCacheEnable``
(default true; ``enablePredicateErrorCache`` is accepted as a synonym and wins when both are given),
a boolean as Volcano's ``GetBool`` reads it (a YAML boolean or a ``strconv.ParseBool`` string such as
``"true"``, ``"0"``, ``"F"``); any other value or key is rejected with the file and the key.

Deliberate differences: nominated jobs first (upstream tries the nomination only when the job's turn
comes, and keeps it in memory for one session only, so an unrelated job ordered earlier can take the
freed nodes); a nomination that allocate honours but cannot yet bind (the victims are still terminating:
the tasks are only pipelined) is kept for the next session. Hypernodes tied on score are chosen by the
session's seeded generator (Go picks by map order); for a job with a hard topology, every hypernode tried
and why it failed is kept in ``JobInfo.topology_explanation`` (``explain.py``) for the pending reasons.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cmp_to_key
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.fit_errors import FitErrors
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE, HyperNodeInfo
from fumarole.framework.api.job_info import POD_GROUP_INQUEUE
from fumarole.framework.api.resource import ZERO
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import SearchPurpose
from fumarole.framework.statement import Statement, StatementError
from fumarole.framework.util.keyed_queue import KeyedQueue
from fumarole.framework.util.priority_queue import PriorityQueue

from ..util import (
    PredicateErrorCacheArguments,
    PredicateHelper,
    nominated_node_name,
    prioritize_nodes,
    select_best_node,
    set_nominated_node_name,
    split_by_fit,
    sub_job_pipelined,
    sub_job_ready,
    valid_job_queue,
)
from ..util.job_order import JobQueue, JobSortKey, job_sort_key
from . import explain
from .recorder import Recorder
from .worksheet import JobWorksheet, SubJobWorksheet, only_volcano_gate, organize_job_worksheet

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.sub_job_info import SubJobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


class AllocateArguments(PredicateErrorCacheArguments):
    """The allocate (and backfill) action's arguments: the predicate error cache switch only."""


def find_hyper_node_for_node(ssn: Session, node_name: str) -> str:
    """The lowest-tier hypernode holding the node (``util.FindHyperNodeForNode``); sorted for determinism."""
    if not ssn.hyper_nodes_tiers:
        return ""
    for name in sorted(ssn.hyper_nodes_set_by_tier.get(ssn.hyper_nodes_tiers[0], ())):
        if node_name in ssn.real_nodes_set.get(name, ()):
            return name
    return ""


def _queue_then_job(ssn: Session, left: JobInfo, right: JobInfo) -> int:
    """Queue order first, then job order (the order nominated jobs are served in)."""
    if left.queue != right.queue:
        order = ssn.queue_order(ssn.queues[left.queue], ssn.queues[right.queue])
        if order:
            return -1 if order < 0 else 1
    order = ssn.job_order(left, right)
    return -1 if order < 0 else (1 if order > 0 else 0)


class AllocateAction:
    name = "allocate"
    idle_noop = True
    arguments_model = AllocateArguments

    def __init__(self) -> None:
        self.ssn: Session | None = None
        self.error_cache = True
        self.recorder = Recorder()
        self._rows: dict[str, np.ndarray] = {}
        self._sub_job_failures: list[str] = []
        self._partial_placed = 0
        self.purpose = SearchPurpose.ALLOCATE
        self.reserve_for_eviction = False
        self._job_key: JobSortKey | None = None
        """The session's job order as a key (``actions.util.job_order``), or None: comparisons."""

    @classmethod
    def simulation(cls, ssn: Session, *, error_cache: bool) -> AllocateAction:
        """Allocate's placement code for a gang eviction's dry run (``actions/gang_eviction``).

        The same node search, scoring and hypernode walk, with three changes: hypernodes are searched
        for eviction (``SearchPurpose.EVICT``: eligible by allocatable, not by idle), every task is
        *pipelined* with ``eviction_occurred`` (never bound: the gang is bound by the next cycle's
        allocate once its victims are gone), and a sub-job's tasks are all placed, not only until the
        job is ready.
        """
        placer = cls()
        placer.ssn = ssn
        placer.error_cache = error_cache
        placer.purpose = SearchPurpose.EVICT
        placer.reserve_for_eviction = True
        return placer

    # ------------------------------------------------------------------ entry
    def execute(self, ssn: Session) -> None:
        arguments = AllocateArguments.model_validate(dict(ssn.configuration(self.name)))
        self.error_cache = arguments.error_cache
        self.ssn = ssn
        self.recorder = Recorder()
        self._rows = {}
        self._job_key = job_sort_key(ssn)
        try:
            queues, jobs_by_queue, worksheets, flat_tasks, nominated = self._build_context(ssn)
            self._allocate_resources(ssn, queues, jobs_by_queue, worksheets, flat_tasks, nominated)
        finally:
            # the action outlives the session (one per scheduler): keep nothing of it
            self.ssn = None
            self._job_key = None
            self.recorder = Recorder()
            self._rows = {}

    def rows_of(self, hyper_node: str) -> np.ndarray:
        rows = self._rows.get(hyper_node)
        if rows is None:
            assert self.ssn is not None
            nodes = self.ssn.real_nodes_list.get(hyper_node, [])
            rows = self.ssn.node_table.rows_of(nodes)
            self._rows[hyper_node] = rows
        return rows

    # ------------------------------------------------------------------ context
    def _build_context(
        self, ssn: Session
    ) -> tuple[
        PriorityQueue[QueueInfo],
        dict[str, JobQueue],
        dict[str, JobWorksheet],
        dict[str, SubJobWorksheet],
        list[JobInfo],
    ]:
        queues: PriorityQueue[QueueInfo] = PriorityQueue.ordered(ssn.queue_order)
        jobs_by_queue: dict[str, JobQueue] = {}
        worksheets: dict[str, JobWorksheet] = {}
        flat: dict[str, SubJobWorksheet] = {}
        nominated: list[JobInfo] = []
        enqueue_configured = "enqueue" in ssn.conf.action_names
        # without enqueue, every pending job turns Inqueue here; with it, a job that has no pending
        # task (every copy that still borrows the cache's containers) has nothing to do here
        jobs = ssn.touched_jobs() if enqueue_configured else list(ssn.jobs.values())
        for job in jobs:
            if job.is_pending():
                if enqueue_configured:
                    continue
                job.phase = POD_GROUP_INQUEUE
            if not job.has_pending_tasks():
                continue  # an empty worksheet whatever job_valid says (a question without effects)
            if valid_job_queue(ssn, job) is None:
                continue
            if not ssn.hyper_nodes_ready_to_schedule and job.contains_network_topology():
                continue
            sheet = organize_job_worksheet(ssn, job)
            if sheet.empty():
                continue
            worksheets[job.uid] = sheet
            if not job.contains_hard_topology():
                default = sheet.sub_job_worksheets.get(job.default_sub_job_id())
                if default is not None:
                    flat[job.uid] = default
            if any(sub.nominated_hyper_node for sub in job.sub_jobs.values()):
                nominated.append(job)
                continue
            self._push(ssn, queues, jobs_by_queue, job)
        return queues, jobs_by_queue, worksheets, flat, nominated

    def _push(
        self,
        ssn: Session,
        queues: PriorityQueue[QueueInfo],
        jobs_by_queue: dict[str, JobQueue],
        job: JobInfo,
    ) -> None:
        if job.queue not in jobs_by_queue:
            jobs_by_queue[job.queue] = KeyedQueue() if self._job_key is not None else self._ordered(ssn)
            queues.push(ssn.queues[job.queue])
        self._push_job(ssn, jobs_by_queue, job)

    @staticmethod
    def _ordered(ssn: Session, jobs: Iterable[JobInfo] = ()) -> PriorityQueue[JobInfo]:
        return PriorityQueue.ordered(ssn.job_order, jobs)

    def _push_job(self, ssn: Session, jobs_by_queue: dict[str, JobQueue], job: JobInfo) -> None:
        """Push ``job`` into its queue's job queue, by its sort key while every job has one (else the
        queue becomes one ordered by the comparisons, with the jobs it holds)."""
        jobs = jobs_by_queue[job.queue]
        if isinstance(jobs, KeyedQueue):
            key = self._job_key(job) if self._job_key is not None else None
            if key is not None:
                jobs.push(key, job)
                return
            jobs = jobs_by_queue[job.queue] = self._ordered(ssn, jobs)
        jobs.push(job)

    def _allocate_resources(
        self,
        ssn: Session,
        queues: PriorityQueue[QueueInfo],
        jobs_by_queue: dict[str, JobQueue],
        worksheets: dict[str, JobWorksheet],
        flat: dict[str, SubJobWorksheet],
        nominated: list[JobInfo],
    ) -> None:
        top = ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE]
        for job in sorted(nominated, key=cmp_to_key(lambda left, right: _queue_then_job(ssn, left, right))):
            if ssn.overused(ssn.queues[job.queue]) or self._allocate_job(ssn, job, worksheets, flat, top):
                self._push(ssn, queues, jobs_by_queue, job)
        while queues:
            queue = queues.pop()
            if ssn.overused(queue):
                continue
            jobs = jobs_by_queue.get(queue.uid)
            if jobs is None or jobs.empty():
                continue
            job = jobs.pop()
            if self._allocate_job(ssn, job, worksheets, flat, top):
                self._push_job(ssn, jobs_by_queue, job)
            queues.push(queue)

    def _allocate_job(
        self,
        ssn: Session,
        job: JobInfo,
        worksheets: dict[str, JobWorksheet],
        flat: dict[str, SubJobWorksheet],
        top: HyperNodeInfo,
    ) -> bool:
        """Place one job; True when its statement was committed and tasks remain (push it back)."""
        if job.contains_hard_topology() or job.contains_sub_job_policy():
            sheet = worksheets[job.uid]
            stmt = self.allocate_for_job(job, sheet, top)
            if stmt is not None and ssn.job_ready(job):
                stmt.commit()
                ssn.mark_job_dirty(job.uid)
                self.recorder.update_decision_to_job(job, ssn.hyper_nodes)
                return not sheet.empty()
            return False
        sub_job = job.sub_jobs.get(job.default_sub_job_id())
        tasks = flat.get(job.uid)
        if sub_job is None or tasks is None:
            return False
        stmt = None
        if sub_job.nominated_hyper_node:
            found = self.allocate_from_nomination(sub_job, tasks, top)
            if found is not None:
                stmt = found[0]
        if stmt is None:
            stmt = self.allocate_resources_for_tasks(sub_job, tasks.tasks, CLUSTER_TOP_HYPERNODE)
        if stmt is not None and ssn.job_ready(job):
            stmt.commit()
            sub_job.nominated_hyper_node = ""
            return not tasks.empty()
        return False

    # ------------------------------------------------------------------ topology-aware paths
    def allocate_for_job(
        self, job: JobInfo, sheet: JobWorksheet, hyper_node: HyperNodeInfo
    ) -> Statement | None:
        """``allocateForJob``: the first gradient with a solution wins; within it the best-scoring one."""
        ssn = self.ssn
        assert ssn is not None
        if sheet.empty():
            return None
        self.recorder.snapshot_sub_job_status(job, sheet)
        explanation = explain.start(job)
        gradients = ssn.hyper_node_gradient_for_job(job, hyper_node, self.purpose)
        for hyper_nodes in gradients:
            saved: dict[str, Statement] = {}
            sheets: dict[str, JobWorksheet] = {}
            scores: dict[str, float] = {}
            for candidate in hyper_nodes:
                statements: list[Statement] = []
                score = 0.0
                job.reset_fit_err()
                self._sub_job_failures = []
                self._partial_placed = 0
                mark = len(explanation.excluded) if explanation is not None else 0
                copy = sheet.clone()
                while not copy.sub_jobs.empty():
                    sub_job = copy.sub_jobs.pop()
                    sub_sheet = copy.sub_job_worksheets[sub_job.uid]
                    stmt, sub_score = self.allocate_for_sub_job(sub_job, sub_sheet, candidate)
                    if stmt is not None and stmt.operations:
                        statements.append(stmt)
                        score += sub_score
                        if not sub_sheet.empty():
                            copy.sub_jobs.push(sub_job)
                        if ssn.job_ready(job):
                            break
                self.recorder.recover_sub_job_status(job)
                merged = Statement.save_operations(*statements) if statements else None
                placed = len(merged.operations) if merged is not None else 0
                if merged is not None and placed and (ssn.job_ready(job) or ssn.job_pipelined(job)):
                    saved[candidate.name] = merged
                    sheets[candidate.name] = copy
                    scores[candidate.name] = score
                    if explanation is not None:
                        del explanation.excluded[mark:]
                elif explanation is not None:
                    progress = (placed, self._partial_placed)
                    failures = self._sub_job_failures
                    explain.failed_attempt(explanation, job, candidate, progress, failures, mark)
                for stmt in statements:
                    stmt.discard()
            if not scores:
                continue
            best = self._select_best_hyper_node_for_job(scores)
            final = ssn.statement()
            try:
                final.recover_operations(saved[best])
            except StatementError:
                final.discard()
                return None
            sheet.take(sheets[best])
            self.recorder.save_job_decision(job.uid, best)
            if explanation is not None:
                explanation.placed = best
            return final
        return None

    def _select_best_hyper_node_for_job(self, scores: dict[str, float]) -> str:
        """``selectBestHyperNodeForJob``: the highest score; ties (Go's map order) by the seeded generator."""
        assert self.ssn is not None
        best_score = max(scores.values())
        ties = [name for name, score in scores.items() if score == best_score]
        return ties[0] if len(ties) == 1 else ties[int(self.ssn.rng.integers(len(ties)))]

    def allocate_for_sub_job(
        self, sub_job: SubJobInfo, sheet: SubJobWorksheet, hyper_node: HyperNodeInfo
    ) -> tuple[Statement | None, float]:
        ssn = self.ssn
        assert ssn is not None
        job = ssn.jobs[sub_job.job]
        if sheet.empty():
            return None, 0.0
        if sub_job.nominated_hyper_node:
            found = self.allocate_from_nomination(sub_job, sheet, hyper_node)
            if found is not None:
                return found
        gradients = ssn.hyper_node_gradient_for_sub_job(sub_job, hyper_node, self.purpose)
        tried: list[str] = []
        for hyper_nodes in gradients:
            saved: dict[str, Statement] = {}
            sheets: dict[str, SubJobWorksheet] = {}
            for candidate in hyper_nodes:
                job.reset_sub_job_fit_err(sub_job.uid)
                copy = sheet.clone()
                stmt = self.allocate_resources_for_tasks(sub_job, copy.tasks, candidate.name)
                tried.append(candidate.name)
                if stmt is not None and stmt.operations:
                    saved[candidate.name] = Statement.save_operations(stmt)
                    sheets[candidate.name] = copy
                    stmt.discard()
            if not saved:
                continue
            best, best_score = self._select_best_hyper_node_for_sub_job(saved, sub_job)
            if not best:
                return None, 0.0
            final = ssn.statement()
            try:
                final.recover_operations(saved[best])
            except StatementError:
                final.discard()
                return None, 0.0
            new_allocated = ssn.hyper_nodes.get_lca(sub_job.allocated_hyper_node, best)
            sub_job.allocated_hyper_node = new_allocated
            sheet.take(sheets[best])
            self.recorder.save_sub_job_decision(sub_job.job, hyper_node.name, sub_job.uid, new_allocated)
            return final, best_score
        if sub_job.uid != job.default_sub_job_id():
            self._sub_job_failures.append(explain.sub_job_failure(sub_job, tried))
        return None, 0.0

    def _select_best_hyper_node_for_sub_job(
        self, saved: dict[str, Statement], sub_job: SubJobInfo
    ) -> tuple[str, float]:
        ssn = self.ssn
        assert ssn is not None
        groups = {name: ssn.real_nodes_list.get(name, []) for name in saved}
        totals = ssn.batch_hyper_node_order(sub_job, groups)
        best_score = max(totals.values())
        ties = [name for name, score in totals.items() if score == best_score]
        choice = ties[0] if len(ties) == 1 else ties[int(ssn.rng.integers(len(ties)))]
        return choice, best_score

    # ------------------------------------------------------------------ nominations
    def allocate_from_nomination(
        self, sub_job: SubJobInfo, sheet: SubJobWorksheet, hyper_node: HyperNodeInfo
    ) -> tuple[Statement, float] | None:
        """Place every pending task on its nominated node inside the nominated hypernode, or nothing."""
        ssn = self.ssn
        assert ssn is not None
        job = ssn.jobs[sub_job.job]
        queue = ssn.queues[job.queue]
        pinned = sub_job.nominated_hyper_node
        leaves = ssn.real_nodes_set.get(pinned)
        plan = self._validate_nomination(sub_job, sheet, queue, leaves) if leaves else None
        if plan is None:
            self._invalidate_nomination(sub_job, sheet)
            return None
        stmt = ssn.statement()
        for task, node in plan:
            if sub_job.with_network_topology():
                task.job_allocated_hyper_node = pinned
            failed = self.allocate_resources_for_task(stmt, task, node) is not None
            if failed or task.status not in (TaskStatus.ALLOCATED, TaskStatus.PIPELINED):
                # An error, or a task that no longer fits its node (an earlier nominated task took the
                # room): the nomination does not hold as a whole (upstream goes on and drains the
                # worksheet, leaving the gang incomplete).
                stmt.discard()
                self._invalidate_nomination(sub_job, sheet)
                return None
        while not sheet.tasks.empty():
            sheet.tasks.pop()
        new_allocated = ssn.hyper_nodes.get_lca(sub_job.allocated_hyper_node, pinned)
        sub_job.allocated_hyper_node = new_allocated
        self.recorder.save_sub_job_decision(sub_job.job, hyper_node.name, sub_job.uid, new_allocated)
        return stmt, 0.0

    def _validate_nomination(
        self, sub_job: SubJobInfo, sheet: SubJobWorksheet, queue: QueueInfo, leaves: set[str]
    ) -> list[tuple[TaskInfo, NodeInfo]] | None:
        ssn = self.ssn
        assert ssn is not None
        helper = PredicateHelper(ssn, error_cache=self.error_cache)
        preview = sheet.tasks.clone()
        plan = []
        while not preview.empty():
            task = preview.pop()
            if not ssn.allocatable(queue, task):
                return None
            nominated = nominated_node_name(ssn, task)
            if not nominated or nominated not in leaves or nominated not in ssn.nodes:
                return None
            if ssn.pre_predicate(task) is not None:
                return None
            rows = np.asarray([ssn.node_table.index[nominated]], dtype=np.int64)
            passed, _ = helper.predicate_nodes(task, rows, limit=False)
            if not len(passed):
                return None
            plan.append((task, ssn.nodes[nominated]))
        return plan

    def _invalidate_nomination(self, sub_job: SubJobInfo, sheet: SubJobWorksheet) -> None:
        """Drop the sub-job's nominated hypernode and its tasks' nominated nodes for this session."""
        assert self.ssn is not None
        sub_job.nominated_hyper_node = ""
        for task in sheet.tasks:
            if nominated_node_name(self.ssn, task):
                set_nominated_node_name(self.ssn, task, "")

    # ------------------------------------------------------------------ tasks
    def allocate_resources_for_tasks(
        self, sub_job: SubJobInfo, tasks: PriorityQueue[TaskInfo], hyper_node: str
    ) -> Statement | None:
        """Place tasks in order on the hypernode's nodes until the sub-job is ready.

        ``allocateResourcesForTasks``.
        """
        ssn = self.ssn
        assert ssn is not None
        job = ssn.jobs[sub_job.job]
        queue = ssn.queues[job.queue]
        rows = self.rows_of(hyper_node)
        if not len(rows):
            return None
        members = ssn.real_nodes_set.get(hyper_node, set())
        stmt = ssn.statement()
        helper = PredicateHelper(ssn, error_cache=self.error_cache)
        allocated_hyper_node = sub_job.allocated_hyper_node
        table = ssn.node_table
        while not tasks.empty():
            task = tasks.pop()
            if not ssn.allocatable(queue, task):
                continue
            if task.sch_gated:
                continue
            if job.task_has_fit_errors(sub_job.uid, task):
                errors = FitErrors()
                errors.set_error(
                    f"Task {task.name} with role spec {task.task_role} has already predicated failed, skip"
                )
                job.nodes_fit_errors[task.uid] = errors
                continue
            pre_error = ssn.pre_predicate(task)
            if pre_error is not None:
                errors = FitErrors()
                for row in rows.tolist():
                    errors.set_node_error(table.names[row], pre_error)
                job.nodes_fit_errors[task.uid] = errors
                if job.need_continue_allocating(sub_job.uid):
                    continue
                break
            feasible = np.zeros(0, dtype=np.int64)
            errors = FitErrors()
            nominated = nominated_node_name(ssn, task)
            if nominated and nominated in members and nominated in ssn.nodes:
                node = ssn.nodes[nominated]
                if task.init_resreq.less_equal(node.future_idle(), ZERO):
                    single = np.asarray([table.index[nominated]], dtype=np.int64)
                    feasible, errors = helper.predicate_nodes(task, single)
            if not len(feasible):
                feasible, errors = helper.predicate_nodes(task, rows)
            if not len(feasible):
                if hyper_node != CLUSTER_TOP_HYPERNODE:
                    errors.set_hyper_node(hyper_node)
                job.nodes_fit_errors[task.uid] = errors
                if job.need_continue_allocating(sub_job.uid):
                    continue
                break
            if sub_job.with_network_topology():
                task.job_allocated_hyper_node = allocated_hyper_node
            best = self.prioritize_nodes(task, feasible)
            if best is None:
                continue
            if self.allocate_resources_for_task(stmt, task, best) is not None:
                continue
            if sub_job.with_network_topology():
                allocated_hyper_node = self._new_allocated_hyper_node(best.name, allocated_hyper_node)
            if not self.reserve_for_eviction and sub_job_ready(ssn, job, sub_job):
                break
        if sub_job_ready(ssn, job, sub_job):
            if sub_job.is_soft_topology_mode():
                sub_job.allocated_hyper_node = allocated_hyper_node
            return stmt
        if sub_job_pipelined(ssn, job, sub_job):
            return stmt
        self._partial_placed = max(self._partial_placed, len(stmt.operations))
        stmt.discard()
        return None

    def _new_allocated_hyper_node(self, node_name: str, current: str) -> str:
        ssn = self.ssn
        assert ssn is not None
        found = find_hyper_node_for_node(ssn, node_name)
        if found:
            return found if not current else ssn.hyper_nodes.get_lca(found, current)
        return current

    def prioritize_nodes(self, task: TaskInfo, feasible: np.ndarray) -> NodeInfo | None:
        """Idle-fitting nodes first, then future-idle ones; one node: it; several: the best score."""
        ssn = self.ssn
        assert ssn is not None
        for gradient in split_by_fit(ssn, task, feasible):
            if not len(gradient):
                continue
            if len(gradient) == 1:
                return ssn.node_table.nodes[int(gradient[0])]
            scores = prioritize_nodes(ssn, task, gradient)
            row, _ = select_best_node(ssn, task, gradient, scores)
            return ssn.node_table.nodes[row]
        return None

    def allocate_resources_for_task(
        self, stmt: Statement, task: TaskInfo, node: NodeInfo
    ) -> StatementError | None:
        """Allocate when the request fits idle, pipeline when it fits future-idle.

        ``allocateResourcesForTask``.

        Returns the statement's error, or None — also when the task fits neither and nothing was
        done, as upstream.
        """
        try:
            if self.reserve_for_eviction:
                if task.init_resreq.less_equal(node.future_idle(), ZERO):
                    stmt.pipeline(task, node.name, True)
            elif task.init_resreq.less_equal(node.idle, ZERO):
                stmt.allocate(task, node)
            elif task.init_resreq.less_equal(node.future_idle(), ZERO):
                stmt.pipeline(task, node.name, False)
        except StatementError as exc:
            return exc
        return None


__all__ = ["AllocateAction", "AllocateArguments", "only_volcano_gate"]
