"""backfill: place best-effort tasks (tasks that request nothing) wherever the predicates allow.

Spec: ``pkg/scheduler/actions/backfill/backfill.go``. Pending best-effort tasks of non-pending,
valid jobs — and best-effort tasks that allocate left pipelined, which are unpipelined first — are
taken queue by queue (queue order), job by job (job order), task by task (task order). For each:
pre-predicates, then the plugins' predicates over all nodes (no resource check: nothing is
requested), the best scoring node, and ``Session.allocate`` at once, which binds the job's
allocated tasks as soon as the job is ready.

Arguments: those of allocate (``AllocateArguments``): ``predicateErrorCacheEnable`` (default true;
``enablePredicateErrorCache`` accepted), a boolean as Volcano's ``GetBool`` reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.fit_errors import FitErrors
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.util.priority_queue import PriorityQueue

from .allocate.allocate import AllocateArguments
from .util import PredicateHelper, admitted_job_queue, prioritize_nodes, select_best_node

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


class BackfillAction:
    name = "backfill"
    idle_noop = True
    arguments_model = AllocateArguments

    def execute(self, ssn: Session) -> None:
        arguments = AllocateArguments.model_validate(dict(ssn.configuration(self.name)))
        table = ssn.node_table
        for task in self.pick_up_pending_tasks(ssn):
            job = ssn.jobs[task.job]
            helper = PredicateHelper(ssn, error_cache=arguments.error_cache)
            pre_error = ssn.pre_predicate(task)
            if pre_error is not None:
                errors = FitErrors()
                for name in ssn.nodes:
                    errors.set_node_error(name, pre_error)
                job.nodes_fit_errors[task.uid] = errors
                continue
            feasible, errors = helper.predicate_nodes(task, table.all_rows, check_future_idle=False)
            if not len(feasible):
                job.nodes_fit_errors[task.uid] = errors
                continue
            row = int(feasible[0])
            if len(feasible) > 1:
                scores = prioritize_nodes(ssn, task, feasible)
                row, _ = select_best_node(ssn, task, feasible, scores)
            node = table.nodes[row]
            try:
                ssn.allocate(task, node)
            except (KeyError, RuntimeError) as exc:
                failure = FitErrors()
                failure.set_node_error(node.name, exc)
                job.nodes_fit_errors[task.uid] = failure

    @staticmethod
    def pick_up_pending_tasks(ssn: Session) -> list[TaskInfo]:
        queues: PriorityQueue[QueueInfo] = PriorityQueue.ordered(ssn.queue_order)
        jobs: dict[str, PriorityQueue[JobInfo]] = {}
        tasks: dict[str, PriorityQueue[TaskInfo]] = {}
        for job in ssn.touched_jobs():
            if not job.count_with(TaskStatus.PENDING) and not job.count_with(TaskStatus.PIPELINED):
                continue  # nothing to backfill whatever job_valid says (a question without effects)
            queue = admitted_job_queue(ssn, job)
            if queue is None:
                continue
            for task in list(job.tasks_with(TaskStatus.PENDING).values()):
                if not task.best_effort or task.sch_gated:
                    continue
                tasks.setdefault(job.uid, PriorityQueue.ordered(ssn.task_order)).push(task)
            for task in list(job.tasks_with(TaskStatus.PIPELINED).values()):
                if not task.best_effort:
                    continue
                ssn.statement().unpipeline(task)
                tasks.setdefault(job.uid, PriorityQueue.ordered(ssn.task_order)).push(task)
            if job.uid not in tasks:
                continue
            if queue.uid not in jobs:
                queues.push(queue)
                jobs[queue.uid] = PriorityQueue.ordered(ssn.job_order)
            jobs[queue.uid].push(job)
        ordered: list[TaskInfo] = []
        while queues:
            queue = queues.pop()
            while jobs[queue.uid]:
                job = jobs[queue.uid].pop()
                while tasks[job.uid]:
                    ordered.append(tasks[job.uid].pop())
        return ordered
