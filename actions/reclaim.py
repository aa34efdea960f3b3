"""reclaim: starving jobs take back resources other queues borrowed.

Spec: ``pkg/scheduler/actions/reclaim/reclaim.go``. Queues (queue order) of non-pending, valid jobs
are visited; an overused queue is skipped. For each starving job of the queue (job order), one
statement: while the job is starving, its next pending task (task order) — skipped when its
``preemptionPolicy`` is Never, when the queue may not reclaim for it (``preemptive``), or when a
pre-predicate fails — looks for a node: nodes minus those allocate found unresolvable, a predicate
pass tolerating plain Unschedulable, minus the nodes where even every Running preemptable task would
not make room (``rows_with_room``, a vector bound), then per node the *Running* (not Bound),
preemptable tasks of jobs in *other*, reclaimable queues; the plugins' ``reclaimable`` vote picks
victims; victims are evicted in victim-queue order only while the request does not yet fit
(future-idle plus what was evicted), so no more than needed go (volcano issue #1256); if the request
then fits, the task is pipelined there and the node's evictions join the job's statement, else they
are discarded. The job's statement is committed only if the job is pipelined. A queue with starving
jobs left is visited again.

Every eviction's reason names the reclaimer and its queue:
``"reclaimed by <ns>/<pod> (job <ns>/<podgroup>, queue <queue>)"``.

Arguments: ``predicateErrorCacheEnable`` (default true; ``enablePredicateErrorCache`` accepted), a
boolean as Volcano's ``GetBool`` reads it; any other key is rejected with the file and the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.resource import ZERO
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.statement import StatementError
from fumarole.framework.util.priority_queue import PriorityQueue

from .util import (
    PredicateErrorCacheArguments,
    PredicateHelper,
    PredicateMode,
    admitted_job_queue,
    rows_with_room,
    validate_victims,
)

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session
    from fumarole.framework.statement import Statement


class ReclaimArguments(PredicateErrorCacheArguments):
    """The reclaim action's arguments: the predicate error cache switch only."""


def reclaim_reason(reclaimer: TaskInfo, queue: str) -> str:
    """The reason every eviction of this action carries: the task, job and queue that take room back."""
    return f"reclaimed by {reclaimer.namespace}/{reclaimer.name} (job {reclaimer.job}, queue {queue})"


class ReclaimAction:
    name = "reclaim"
    idle_noop = True
    arguments_model = ReclaimArguments

    def execute(self, ssn: Session) -> None:
        arguments = ReclaimArguments.model_validate(dict(ssn.configuration(self.name)))
        queues: PriorityQueue[QueueInfo] = PriorityQueue.ordered(ssn.queue_order)
        seen: set[str] = set()
        preemptors: dict[str, PriorityQueue[JobInfo]] = {}
        tasks: dict[str, PriorityQueue[TaskInfo]] = {}
        for job in ssn.jobs.values():
            queue = admitted_job_queue(ssn, job)
            if queue is None:
                continue
            if queue.uid not in seen:
                seen.add(queue.uid)
                queues.push(queue)
            if ssn.job_starving(job):
                preemptors.setdefault(job.queue, PriorityQueue.ordered(ssn.job_order)).push(job)
                pending: PriorityQueue[TaskInfo] = PriorityQueue.ordered(ssn.task_order)
                for task in job.tasks_with(TaskStatus.PENDING).values():
                    if not task.sch_gated:
                        pending.push(task)
                tasks[job.uid] = pending
        while queues:
            queue = queues.pop()
            if ssn.overused(queue):
                continue
            jobs = preemptors.get(queue.uid)
            while jobs:
                job = jobs.pop()
                stmt = ssn.statement()
                pending_tasks = tasks.get(job.uid)
                while ssn.job_starving(job) and pending_tasks:
                    task = pending_tasks.pop()
                    if task.pod is not None and task.pod.spec.preemption_policy == "Never":
                        continue
                    if not ssn.preemptive(queue, [task]):
                        continue
                    if ssn.pre_predicate(task) is not None:
                        continue
                    self.reclaim_for_task(ssn, stmt, task, job, arguments.error_cache)
                if ssn.job_pipelined(job):
                    stmt.commit()
                else:
                    stmt.discard()
                if jobs:
                    queues.push(queue)

    def reclaim_for_task(
        self, ssn: Session, stmt: Statement, task: TaskInfo, job: JobInfo, error_cache: bool
    ) -> None:
        nodes = ssn.filter_out_unschedulable_and_unresolvable_nodes_for_task(task)
        rows = ssn.node_table.rows_of(nodes)
        helper = PredicateHelper(ssn, error_cache=error_cache)
        feasible, _ = helper.predicate_nodes(
            task, np.asarray(rows), PredicateMode.PREEMPT, check_future_idle=False
        )
        reason = reclaim_reason(task, job.queue)
        # nodes where no choice of victims could make room fail validate_victims: skipped up front
        feasible = feasible[rows_with_room(ssn.node_table, task.init_resreq, feasible, "reclaim")]
        for row in feasible.tolist():
            node = ssn.node_table.nodes[row]
            reclaimees = []
            for candidate in node.tasks.values():
                if candidate.status != TaskStatus.RUNNING or not candidate.preemptable:
                    continue
                other = ssn.jobs.get(candidate.job)
                if other is None or other.queue == job.queue:
                    continue
                if not ssn.queues[other.queue].reclaimable():
                    continue
                reclaimees.append(candidate.clone())
            if not reclaimees:
                continue
            victims = ssn.reclaimable(task, reclaimees) or []
            if validate_victims(task, node, victims) is not None:
                continue
            order = ssn.build_victims_priority_queue(victims, task)
            request = task.init_resreq
            available = node.future_idle()
            node_stmt = ssn.statement()
            evicted = False
            while order and not request.less_equal(available, ZERO):
                victim = order.pop()
                node_stmt.evict(victim, reason)
                available.add(victim.resreq)
                evicted = True
            if not request.less_equal(available, ZERO):
                node_stmt.discard()
                continue
            try:
                node_stmt.pipeline(task, node.name, evicted)
            except StatementError:
                node_stmt.discard()
                continue
            stmt.merge(node_stmt)
            return
