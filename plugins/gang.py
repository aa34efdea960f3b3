"""gang: all-or-nothing scheduling of a job's ``minAvailable`` tasks.

Decides whether a job may be scheduled at all (enough valid tasks), when it is ready (enough tasks
placed to bind) or pipelined, which of its running tasks may be evicted without breaking the gang,
and writes the PodGroup's ``Unschedulable`` / ``Scheduled`` condition at session close.

Extension points (flag in parentheses):

* job_valid (no flag): fails with ``NotEnoughPodsOfTask`` when a role misses its ``minTaskMember``
  or a sub-group policy misses its ``minSubGroups``, with ``NotEnoughTasks`` when fewer than
  ``minAvailable`` tasks are valid (a function of the job alone, declared ``job_only`` and remembered
  across sessions for a job nothing changed: ``JobInfo.derived``);
* preemptable (``enablePreemptable``) and reclaimable (``enableReclaimable``), one function: walking
  the candidates in order, a task is a victim while its job keeps more than ``minAvailable`` ready
  tasks (a per-job counter starting at the ready count, decremented per victim); votes PERMIT;
* unified_evictable (no flag): permits every candidate (the gang actions' bundles keep gangs whole);
* job_order (``enableJobOrder``) / sub_job_order (``enabledSubJobOrder``): not-ready before ready
  (the job order's key, ``job_order_key``: whether the job is ready);
* job_ready (``enableJobReady``): per-role, per-sub-group and job readiness; sub_job_ready
  (``enabledSubJobReady``): the sub-job is ready;
* job_pipelined (``enableJobPipelined``) / sub_job_pipelined (``enabledSubJobPipelined``): PERMIT when
  pipelined (per role, per sub-group and as a whole), else REJECT;
* job_starving (``enableJobStarving``): ready + pipelined < ``minAvailable`` (per-role minima ignored).

``on_session_close`` writes, for every job with tasks, an ``Unschedulable`` condition (reason
``NotEnoughResources``, message ``"<missing>/<tasks> tasks in gang unschedulable: <job fit error>"``)
when the job is not ready, unless only releasing tasks still on their nodes fill the gang, and a
``Scheduled`` condition when it is ready. Both carry ``transition_id = ssn.uid``.

Spec: ``pkg/scheduler/plugins/gang/gang.go``; the job fit-error text is ``JobInfo.FitError`` and
``TaskSchedulingReason`` of ``pkg/scheduler/api/job_info.go``.

Deliberate difference: the "Origin reason" of the fit-error text names the first task, in the job's
task order, that has node fit errors (upstream picks one in Go's random map order). Metrics are not
kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fumarole.framework.api.job_info import JobInfo, QuietJobInfo
from fumarole.framework.api.task_status import TaskStatus, allocated_status
from fumarole.framework.api.types import PERMIT, REJECT, ValidateResult
from fumarole.framework.cache.objects import PodGroupCondition
from fumarole.framework.interface import NoArguments
from fumarole.framework.session import job_only

if TYPE_CHECKING:
    from fumarole.framework.api.sub_job_info import SubJobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.api.types import EvictionContext
    from fumarole.framework.session import Session

PLUGIN_NAME = "gang"

NOT_ENOUGH_PODS_OF_TASK_REASON = "NotEnoughPodsOfTask"
NOT_ENOUGH_PODS_REASON = "NotEnoughTasks"
NOT_ENOUGH_RESOURCES_REASON = "NotEnoughResources"
UNSCHEDULABLE_TYPE = "Unschedulable"
SCHEDULED_TYPE = "Scheduled"
SCHEDULED_REASON = "tasks in gang are ready to be scheduled"
POD_GROUP_READY = "pod group is ready"
POD_GROUP_NOT_READY = "pod group is not ready"
POD_REASON_SCHEDULABLE = "Schedulable"
POD_REASON_UNSCHEDULABLE = "Unschedulable"


def _histogram(counts: Counter[str] | dict[str, int]) -> str:
    return ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))


def task_scheduling_reason(task: TaskInfo) -> str:
    """The pod reason of a task from its last transaction (``TaskSchedulingReason``, reason only)."""
    ctx = task.last_transaction if task.last_transaction is not None else task.transaction_context()
    status = ctx.status
    if status == TaskStatus.ALLOCATED:
        return POD_REASON_SCHEDULABLE
    if status in (TaskStatus.PIPELINED, TaskStatus.PENDING):
        return POD_REASON_UNSCHEDULABLE
    return str(status)


def job_fit_error(job: JobInfo) -> str:
    """Why a job is not scheduled, as upstream's ``JobInfo.FitError`` words it."""
    counts: dict[str, int] = {}
    for status, tasks in job.peek_task_status_index().items():  # read only: a quiet copy stays quiet
        key = str(status)
        counts[key] = counts.get(key, 0) + len(tasks)
    counts["minAvailable"] = job.min_available
    head = POD_GROUP_READY if job.is_ready() else POD_GROUP_NOT_READY
    message = f"{head}, {_histogram(counts)}"
    pending: Counter[str] = Counter(
        task_scheduling_reason(task) for task in job.tasks_with(TaskStatus.PENDING).values()
    )
    if pending:
        message += f"; {TaskStatus.PENDING}: {_histogram(pending)}"
    if job.job_fit_errors:
        message += ". Origin reason is: " + job.job_fit_errors
    elif job.nodes_fit_errors:
        for task in job.peek_tasks().values():
            fit = job.nodes_fit_errors.get(task.uid)
            if fit is not None:
                message += f". Origin reason is {task.name}: {fit}"
                break
    return message


JOB_VALID_KEY = "gang.job_valid"
"""``JobInfo.derived`` key of ``gang_job_valid`` (with the job's ``min_available``)."""


def gang_job_valid(job: JobInfo) -> ValidateResult | None:
    """Gang's ``job_valid`` answer for a job: None when valid (a function of the job alone)."""
    if not job.check_task_valid():
        return ValidateResult(
            False,
            NOT_ENOUGH_PODS_OF_TASK_REASON,
            "Not enough valid pods of each task for gang-scheduling",
        )
    if not job.check_sub_job_valid():
        return ValidateResult(
            False,
            NOT_ENOUGH_PODS_OF_TASK_REASON,
            "Not enough valid subGroups of each task for gang-scheduling",
        )
    valid = job.valid_task_num()
    if valid < job.min_available:
        return ValidateResult(
            False,
            NOT_ENOUGH_PODS_REASON,
            f"Not enough valid tasks for gang-scheduling, valid: {valid}, min: {job.min_available}",
        )
    return None


def should_skip_unschedulable_for_releasing(job: JobInfo) -> bool:
    """True when releasing tasks still on their nodes, with the scheduled ones, fill the gang and
    nothing is pending or pipelined (``shouldSkipUnschedulableForReleasing``)."""
    releasing = job.releasing_scheduled_task_num()
    if releasing == 0:
        return False
    if job.tasks_with(TaskStatus.PENDING) or job.tasks_with(TaskStatus.PIPELINED):
        return False
    return job.scheduled_task_num() + releasing >= job.min_available


def schedulable_task_num(job: JobInfo) -> int:
    """Ready tasks plus pending tasks whose last transaction had them allocated."""
    count = 0
    for task in job.tasks_with(TaskStatus.PENDING).values():
        ctx = task.last_transaction if task.last_transaction is not None else task.transaction_context()
        if allocated_status(ctx.status):
            count += 1
    return count + job.ready_task_num()


def _ready_order(left_ready: bool, right_ready: bool) -> int:
    if left_ready == right_ready:
        return 0
    return 1 if left_ready else -1


class GangPlugin:
    """Volcano's ``gang`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        jobs = ssn.jobs

        @job_only(JOB_VALID_KEY)
        def job_valid(obj: Any) -> ValidateResult | None:
            if not isinstance(obj, JobInfo):
                return ValidateResult(False, "", f"Failed to convert <{obj}> to *JobInfo")
            # a function of the job alone: remembered for a job nothing changed since the cache built it
            return obj.derived((JOB_VALID_KEY, obj.min_available), gang_job_valid, obj)

        def evictable(evictor: TaskInfo, evictees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            victims: list[TaskInfo] = []
            occupied: dict[str, int] = {}
            for evictee in evictees:
                job = jobs.get(evictee.job)
                if job is None:
                    continue
                if job.uid not in occupied:
                    occupied[job.uid] = job.ready_task_num()
                if occupied[job.uid] > job.min_available:
                    occupied[job.uid] -= 1
                    victims.append(evictee)
            return victims, PERMIT

        def unified_evictable(ctx: EvictionContext, candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            return list(candidates), PERMIT

        def job_order(left: JobInfo, right: JobInfo) -> int:
            return _ready_order(left.is_ready(), right.is_ready())

        def job_order_key(job: JobInfo) -> float:
            return job.is_ready()

        def sub_job_order(left: SubJobInfo, right: SubJobInfo) -> int:
            return _ready_order(left.is_ready(), right.is_ready())

        def job_ready(job: JobInfo) -> bool:
            return job.check_task_ready() and job.check_sub_job_ready() and job.is_ready()

        def sub_job_ready(sub_job: SubJobInfo) -> bool:
            return sub_job.is_ready()

        def job_pipelined(job: JobInfo) -> int:
            if job.check_task_pipelined() and job.check_sub_job_pipelined() and job.is_pipelined():
                return PERMIT
            return REJECT

        def sub_job_pipelined(sub_job: SubJobInfo) -> int:
            return PERMIT if sub_job.is_pipelined() else REJECT

        def job_starving(job: JobInfo) -> bool:
            return job.is_starving()

        ssn.job_valid.register(job_valid)
        ssn.reclaimable.register(evictable)
        ssn.preemptable.register(evictable)
        ssn.unified_evictable.register(unified_evictable)
        ssn.job_order.register(job_order)
        ssn.job_order_key.register(job_order_key)
        ssn.sub_job_order.register(sub_job_order)
        ssn.job_ready.register(job_ready)
        ssn.sub_job_ready.register(sub_job_ready)
        ssn.job_pipelined.register(job_pipelined)
        ssn.sub_job_pipelined.register(sub_job_pipelined)
        ssn.job_starving.register(job_starving)

    def on_session_close(self, ssn: Session) -> None:
        kept = ssn.persistent(CLOSE_VERDICTS, CloseVerdicts)
        changes = ssn.job_changes_since(kept.generation)
        stopped = ssn.stopped_quiet()
        kept.generation = ssn.snapshot_generation
        if changes is None or stopped is None:
            kept.redo_all(ssn.jobs)
        else:
            kept.redo(ssn.jobs, changes.dropped, dict.fromkeys((*changes.changed, *stopped)))
        for uid in kept.unready:
            job = ssn.jobs[uid]
            unready = job.min_available - schedulable_task_num(job)
            condition = PodGroupCondition(
                type=UNSCHEDULABLE_TYPE,
                status="True",
                transition_id=ssn.uid,
                reason=NOT_ENOUGH_RESOURCES_REASON,
                message=f"{unready}/{job.task_count()} tasks in gang unschedulable: {job_fit_error(job)}",
                last_transition_time=ssn.now,
            )
            ssn.update_pod_group_condition(job, condition)
        if kept.ready_quiet or kept.ready_loud:
            # the same for every ready job of the session: one object, never changed
            scheduled = PodGroupCondition(
                type=SCHEDULED_TYPE,
                status="True",
                transition_id=ssn.uid,
                reason=SCHEDULED_REASON,
                message="",
                last_transition_time=ssn.now,
            )
            ssn.update_pod_group_conditions(kept.ready_loud, scheduled, quiet=kept.ready_quiet)


CLOSE_VERDICTS = "gang.close_verdicts"
"""``Session.persistent`` key of gang's ``CloseVerdicts``."""


class CloseVerdicts:
    """Which jobs gang's close writes a condition for, kept from one session to the next.

    A job's close verdict (``close_verdict``) is a function of its tasks; a job whose copy is the one
    the previous session had, as it was then (neither in the session's ``job_changes_since`` nor in
    its ``stopped_quiet``), has the verdict it had then. So each close looks only at those jobs and
    the ones that left; the conditions themselves are new every session (they carry its UID).
    Unready jobs get their conditions in the order they were first found unready (each job gets one:
    the order between jobs is seen nowhere)."""

    __slots__ = ("generation", "ready_loud", "ready_quiet", "unready")

    def __init__(self) -> None:
        self.generation = 0
        self.ready_quiet: set[str] = set()
        """The ready jobs whose copy is a ``QuietJobInfo``: never changed once a session holds it."""
        self.ready_loud: list[JobInfo] = []
        """This session's ready jobs of the others."""
        self.unready: dict[str, None] = {}

    def redo_all(self, jobs: dict[str, JobInfo]) -> None:
        self.ready_quiet = set()
        self.unready = {}
        self.redo(jobs, (), jobs)

    def redo(self, jobs: dict[str, JobInfo], dropped: Iterable[str], uids: Iterable[str]) -> None:
        """Forget the ``dropped`` jobs and find the verdicts of ``uids`` (those not of ``jobs`` are
        skipped), in that order."""
        ready_quiet = self.ready_quiet = set(self.ready_quiet)  # the last session's log holds the old one
        unready = self.unready
        self.ready_loud = ready_loud = []
        for uid in dropped:
            ready_quiet.discard(uid)
            unready.pop(uid, None)
        for uid in uids:
            job = jobs.get(uid)
            if job is None:
                continue
            # a function of the job's tasks: remembered for a job nothing changed since the cache built it
            verdict = job.derived(_CLOSE_VERDICT, close_verdict, job)
            ready_quiet.discard(uid)
            unready.pop(uid, None)
            if verdict:
                if type(job) is QuietJobInfo:
                    ready_quiet.add(uid)
                else:
                    ready_loud.append(job)
            elif verdict is not None:
                unready[uid] = None


_CLOSE_VERDICT = ("gang", "close verdict")
"""``JobInfo.derived`` key of ``close_verdict``."""


def close_verdict(job: JobInfo) -> bool | None:
    """Which condition gang's close writes for ``job``: ``Scheduled`` (True: the job is ready),
    ``Unschedulable`` (False) or none (None: the job has no tasks, or it is not ready while only
    releasing tasks still on their nodes fill the gang)."""
    if not job.task_count():
        return None
    if job.is_ready():
        return True
    if should_skip_unschedulable_for_releasing(job):
        return None
    return False
