"""The preempt action: starving jobs take resources from lower-priority work in their own queue.

Spec: seed 004 (the preempt action in full) and ``pkg/scheduler/actions/preempt/preempt.go``.

Collection: every job that is not pending, is valid, has its queue, is starving (``job_starving``)
and has no network topology becomes a preemptor of its queue (job order); its pending, non-gated
tasks are queued in task order.

Phase 1, between jobs, queue by queue (queue order): for each preemptor job, one statement; while
the job is starving and has tasks, ``preempt`` one task with the filter *victim Bound or Running,
not (preemptor best-effort and victim not), victim preemptable, victim's job in the same queue and
not the preemptor's*. The statement is committed only if the job is then pipelined
(``job_pipelined``), otherwise discarded.

Phase 2, within jobs: for every preemptor job of the queue, its pending tasks are collected again
(phase 1 changed them); each task gets its own statement with the filter *same job* (plus the
status, best-effort and preemptable rules); a task that cannot be placed discards its statement and
ends the job's phase 2; a placed one is committed (PR #5011: never commit evictions for a preemptor
that was not placed). Seed 004 says phase 2 "always commits": both readings behave the same, since a
failed attempt leaves no operation in the statement (each node's evictions live in their own
statement, merged only when the preemptor is pipelined there).

Eligibility (``taskEligibleToPreempt``): a nominated node that no longer exists, or on which the
predicates now pass, makes the task ineligible (allocate places it there); a nominated node that
fails with UnschedulableAndUnresolvable makes it eligible again; otherwise it waits while a pod of
lower priority on that node is still terminating because of a preemption.

``preempt`` for one task: eligibility (``preemptionPolicy: Never`` never preempts; the nominated
node rules above), pre-predicates, nodes minus those allocate found unresolvable for the task, a
predicate pass (with the error cache) that tolerates plain Unschedulable, then ``normal_preempt`` or
``topology_aware_preempt``.

Every eviction's reason names the preemptor: ``"preempted by <ns>/<pod> (job <ns>/<podgroup>)"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.fit_errors import FitError
from fumarole.framework.api.task_status import TaskStatus, preemptable_status
from fumarole.framework.util.priority_queue import PriorityQueue

from ..util import PredicateHelper, PredicateMode, admitted_job_queue, nominated_node_name
from .arguments import PreemptArguments
from .normal import TaskFilter, normal_preempt
from .topology_aware import pod_priority, topology_aware_preempt

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session
    from fumarole.framework.statement import Statement

DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def preempt_reason(preemptor: TaskInfo) -> str:
    """The reason every eviction of this action carries: which task, of which job, it makes room for."""
    return f"preempted by {preemptor.namespace}/{preemptor.name} (job {preemptor.job})"


def terminating_by_preemption(task: TaskInfo) -> bool:
    """A pod being deleted with a ``DisruptionTarget`` condition set by scheduler preemption."""
    pod = task.pod
    if pod is None or pod.metadata.deletion_timestamp is None:
        return False
    for condition in pod.status.conditions:
        if condition.type == DISRUPTION_TARGET:
            return condition.status == "True" and condition.reason == PREEMPTION_BY_SCHEDULER
    return False


def ineligible_reason(ssn: Session, preemptor: TaskInfo) -> str | None:
    """Why a task may not preempt now, or None (``taskEligibleToPreempt``)."""
    if preemptor.pod is not None and preemptor.pod.spec.preemption_policy == "Never":
        return "not eligible to preempt other tasks due to preemptionPolicy is Never"
    nominated = nominated_node_name(ssn, preemptor)
    if not nominated:
        return None
    node = ssn.nodes.get(nominated)
    if node is None:
        return "not eligible due to the pod's nominated node is not found in the session"
    error = ssn.predicate(preemptor, node)
    if error is None:
        return "not eligible due to the pod's nominated node is already schedulable"
    if not isinstance(error, FitError):
        return f"not eligible due to the predicate returned a non-FitError error, the error is: {error}"
    if error.contains_unresolvable():
        return None
    priority = pod_priority(preemptor)
    for task in node.tasks.values():
        if pod_priority(task) < priority and terminating_by_preemption(task):
            return "not eligible due to a terminating pod caused by preemption on the nominated node"
    return None


def may_be_victim_of(preemptor: TaskInfo, task: TaskInfo) -> bool:
    """The rules both phases' filters start with: the task is Bound or Running
    (``PreemptableStatus``), is preemptable, and is best-effort when the preemptor is."""
    if not preemptable_status(task.status):
        return False
    if preemptor.best_effort and not task.best_effort:
        return False
    return task.preemptable


class PreemptAction:
    name = "preempt"
    idle_noop = True
    arguments_model = PreemptArguments

    def __init__(self) -> None:
        self.arguments = PreemptArguments.model_validate({})

    def execute(self, ssn: Session) -> None:
        self.arguments = PreemptArguments.model_validate(dict(ssn.configuration(self.name)))
        preemptors: dict[str, PriorityQueue[JobInfo]] = {}
        tasks: dict[str, PriorityQueue[TaskInfo]] = {}
        under_request: dict[str, list[JobInfo]] = {}
        for job in ssn.jobs.values():
            if admitted_job_queue(ssn, job) is None:
                continue
            if not ssn.job_starving(job):
                continue
            if job.contains_network_topology():
                continue
            preemptors.setdefault(job.queue, PriorityQueue.ordered(ssn.job_order)).push(job)
            under_request.setdefault(job.queue, []).append(job)
            tasks[job.uid] = self._pending_tasks(ssn, job)
        queues: PriorityQueue[QueueInfo] = PriorityQueue.ordered(ssn.queue_order)
        for queue_uid in preemptors:
            queues.push(ssn.queues[queue_uid])
        helper = PredicateHelper(ssn, error_cache=self.arguments.error_cache)
        while queues:
            queue = queues.pop()
            jobs = preemptors[queue.uid]
            while jobs:
                preemptor_job = jobs.pop()
                stmt = ssn.statement()
                pending = tasks[preemptor_job.uid]
                while ssn.job_starving(preemptor_job) and pending:
                    preemptor = pending.pop()
                    between = self._between_jobs(ssn, preemptor, preemptor_job)
                    self.preempt(ssn, stmt, preemptor, between, helper)
                if ssn.job_pipelined(preemptor_job):
                    stmt.commit()
                else:
                    stmt.discard()
            for job in under_request.get(queue.uid, []):
                pending = self._pending_tasks(ssn, job)
                while pending:
                    preemptor = pending.pop()
                    stmt = ssn.statement()
                    if not self.preempt(ssn, stmt, preemptor, self._within_job(preemptor), helper):
                        stmt.discard()
                        break
                    stmt.commit()

    @staticmethod
    def _pending_tasks(ssn: Session, job: JobInfo) -> PriorityQueue[TaskInfo]:
        queue: PriorityQueue[TaskInfo] = PriorityQueue.ordered(ssn.task_order)
        for task in job.tasks_with(TaskStatus.PENDING).values():
            if not task.sch_gated:
                queue.push(task)
        return queue

    @staticmethod
    def _between_jobs(ssn: Session, preemptor: TaskInfo, preemptor_job: JobInfo) -> TaskFilter:
        def allowed(task: TaskInfo) -> bool:
            if not may_be_victim_of(preemptor, task):
                return False
            job = ssn.jobs.get(task.job)
            if job is None:
                return False
            return job.queue == preemptor_job.queue and preemptor.job != task.job

        return allowed

    @staticmethod
    def _within_job(preemptor: TaskInfo) -> TaskFilter:
        def allowed(task: TaskInfo) -> bool:
            return may_be_victim_of(preemptor, task) and preemptor.job == task.job

        return allowed

    def preempt(
        self,
        ssn: Session,
        stmt: Statement,
        preemptor: TaskInfo,
        task_filter: TaskFilter,
        helper: PredicateHelper,
    ) -> bool:
        """Find room for one task by evicting victims the filter and the plugins allow."""
        if ineligible_reason(ssn, preemptor) is not None:
            return False
        if ssn.pre_predicate(preemptor) is not None:
            return False
        nodes = ssn.filter_out_unschedulable_and_unresolvable_nodes_for_task(preemptor)
        rows = ssn.node_table.rows_of(nodes)
        feasible, _ = helper.predicate_nodes(
            preemptor, np.asarray(rows), PredicateMode.PREEMPT, check_future_idle=False
        )
        reason = preempt_reason(preemptor)
        if self.arguments.enable_topology_aware_preemption:
            return topology_aware_preempt(ssn, stmt, preemptor, task_filter, feasible, self.arguments, reason)
        return normal_preempt(ssn, stmt, preemptor, task_filter, feasible, reason)
