"""priority: order and protect work by PriorityClass.

Decides which task / job / sub-job goes first (the higher priority) and which running tasks a
preemptor may evict (only those of a lower-priority job, or lower-priority tasks of its own job).

Extension points (flag in parentheses):

* task_order (``enableTaskOrder``): higher ``task.priority`` first (its key, ``task_order_key``: the
  negated priority);
* job_order (``enableJobOrder``): higher ``job.priority`` first (its key, ``job_order_key``: the
  negated priority);
* sub_job_order (``enabledSubJobOrder``): higher ``sub_job.priority`` first;
* preemptable (``enablePreemptable``): victims of another job iff that job's priority is lower than
  the preemptor job's; victims of the preemptor's own job iff their task priority is lower; votes
  PERMIT (an empty list when the preemptor's job is not in the session);
* unified_evictable (no flag): gang reclaim permits every candidate; otherwise a candidate is a
  victim iff its job's priority is lower than ``ctx.job.priority``;
* job_starving (``enableJobStarving``): ready + waiting (pipelined) < number of tasks (any status).

No reclaimable, job_pipelined or job_ready function is registered, as upstream.

Spec: ``pkg/scheduler/plugins/priority/priority.go``.

Deliberate difference: in unified_evictable a candidate whose job is not in the session is skipped
(upstream dereferences the missing job and panics).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.types import PERMIT, EvictionContext, EvictionKind
from fumarole.framework.interface import NoArguments
from loguru import logger

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.sub_job_info import SubJobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "priority"


def _higher_first(left: int, right: int) -> int:
    """-1 when ``left`` is higher (goes first), 1 when lower, 0 when equal."""
    if left > right:
        return -1
    if left < right:
        return 1
    return 0


class PriorityPlugin:
    """Volcano's ``priority`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        jobs = ssn.jobs

        def task_order(left: TaskInfo, right: TaskInfo) -> int:
            return _higher_first(left.priority, right.priority)

        def job_order(left: JobInfo, right: JobInfo) -> int:
            return _higher_first(left.priority, right.priority)

        def task_order_key(task: TaskInfo) -> float:
            return -task.priority

        def job_order_key(job: JobInfo) -> float:
            return -job.priority

        def sub_job_order(left: SubJobInfo, right: SubJobInfo) -> int:
            return _higher_first(left.priority, right.priority)

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            preemptor_job = jobs.get(preemptor.job)
            if preemptor_job is None:
                logger.warning(
                    "[priority] preemptor job <{}> not found in session, no victims", preemptor.job
                )
                return [], PERMIT
            victims: list[TaskInfo] = []
            for preemptee in preemptees:
                preemptee_job = jobs.get(preemptee.job)
                if preemptee_job is None:
                    logger.warning(
                        "[priority] skip preemptee <{}/{}>: job <{}> not found in session",
                        preemptee.namespace,
                        preemptee.name,
                        preemptee.job,
                    )
                    continue
                if preemptee_job.uid != preemptor_job.uid:
                    if preemptee_job.priority < preemptor_job.priority:
                        victims.append(preemptee)
                elif preemptee.priority < preemptor.priority:
                    victims.append(preemptee)
            return victims, PERMIT

        def unified_evictable(ctx: EvictionContext, candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            if ctx.kind == EvictionKind.GANG_RECLAIM:
                return list(candidates), PERMIT
            victims: list[TaskInfo] = []
            for candidate in candidates:
                candidate_job = jobs.get(candidate.job)
                if candidate_job is None:
                    continue
                if candidate_job.priority < ctx.job.priority:
                    victims.append(candidate)
            return victims, PERMIT

        def job_starving(job: JobInfo) -> bool:
            return job.ready_task_num() + job.waiting_task_num() < len(job.tasks)

        ssn.task_order.register(task_order)
        ssn.task_order_key.register(task_order_key)
        ssn.job_order.register(job_order)
        ssn.job_order_key.register(job_order_key)
        ssn.sub_job_order.register(sub_job_order)
        ssn.preemptable.register(preemptable)
        ssn.unified_evictable.register(unified_evictable)
        ssn.job_starving.register(job_starving)

    def on_session_close(self, ssn: Session) -> None:
        return None
