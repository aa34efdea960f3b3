"""The job updater: PodGroup phases at session close (``framework/job_updater.go``, ``session.go``).

``pod_group_phase`` mirrors ``getPodGroupPhase``:

1. a Running task and an Unschedulable condition written in this session -> ``Unknown``;
2. scheduled = Running + Bound + Failed + Succeeded tasks, plus Releasing tasks that have a node;
   scheduled >= minMember -> ``Completed`` when all scheduled tasks finished, else ``Running``;
3. otherwise ``Pending``, except that ``Inqueue`` stays ``Inqueue``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .api.job_info import (
    POD_GROUP_COMPLETED,
    POD_GROUP_INQUEUE,
    POD_GROUP_PENDING,
    POD_GROUP_RUNNING,
    POD_GROUP_UNKNOWN,
    JobInfo,
    QuietJobInfo,
)
from .api.task_status import TaskStatus
from .decisions import PodGroupPhase, UntouchedStatuses

if TYPE_CHECKING:
    from .cache.objects import PodGroupCondition
    from .session import Session

UNSCHEDULABLE_CONDITION = "Unschedulable"


def pod_group_phase(job: JobInfo, unschedulable: bool) -> str:
    if unschedulable and job.count_with(TaskStatus.RUNNING):
        return POD_GROUP_UNKNOWN
    scheduled = job.scheduled_task_num() + job.releasing_scheduled_task_num()
    completed = job.completed_task_num()
    min_member = job.pod_group.spec.min_member if job.pod_group is not None else job.min_available
    if scheduled >= min_member:
        if scheduled == completed:
            return POD_GROUP_COMPLETED
        return POD_GROUP_RUNNING
    if job.phase != POD_GROUP_INQUEUE:
        return POD_GROUP_PENDING
    return job.phase


def pod_group_status(job: JobInfo, unschedulable: bool) -> tuple[str, int, int, int]:
    """The phase and the running, succeeded and failed task counts the job updater writes."""
    return (
        pod_group_phase(job, unschedulable),
        job.count_with(TaskStatus.RUNNING),
        job.count_with(TaskStatus.SUCCEEDED),
        job.count_with(TaskStatus.FAILED),
    )


def update_all_jobs(ssn: Session) -> None:
    """Compute every job's PodGroup status into the decision log (``JobUpdater.UpdateAll``).

    The status of a job nothing changed since the cache built it (its phase and the session's
    Unschedulable condition in the key) is the one remembered from an earlier session
    (``JobInfo.derived``). A job's copy that is still as the snapshot lent it (``QuietJobInfo``)
    keeps its PodGroup state (the cluster cache lends it again, state and all): its entry is made
    from the state and the conditions the session wrote for it (``Session.conditions_written``) as
    if they had been written into the state, when the log is first read
    (``decisions.UntouchedStatuses``); every other job's state is written and its entry made now.
    With a ``fumarole_podgroup_phase`` observer, every job's entry is made now."""
    observed = ssn.hooks is not None and bool(ssn.hooks.fumarole_podgroup_phase.get_hookimpls())
    session_uid = ssn.uid
    old_phases = ssn.pod_group_old_phase
    written = ssn.conditions_written
    podgroups = ssn.decisions.podgroups
    append = podgroups.append
    untouched = UntouchedStatuses(written)
    uids, states, statuses, olds = untouched.uids, untouched.states, untouched.statuses, untouched.olds
    # the quiet jobs an Unschedulable condition of this session was written for (to no state)
    unschedulable_quiet = [jobs for condition, jobs in written if _unschedulable_in(condition, session_uid)]
    for uid, job in ssn.jobs.items():
        state = job.pod_group_state
        if type(job) is QuietJobInfo and not observed:
            # its state is the cache's as lent: only the conditions written to no state can be this
            # session's (an Unschedulable one makes the phase Unknown while a task runs)
            unschedulable = False
            for written_for in unschedulable_quiet:
                if uid in written_for:
                    unschedulable = True
                    break
            uids.append(uid)
            states.append(state)
            statuses.append(
                job.derived(
                    ("pod_group_status", state.phase, unschedulable), pod_group_status, job, unschedulable
                )
            )
            olds.append(old_phases.get(uid, ""))
            continue
        quiet = type(job) is QuietJobInfo
        if quiet:
            conditions = state.conditions.copy()
            ssn.merge_conditions_written(uid, conditions)
        else:
            # conditions written while the copy was quiet go into its state first
            ssn.merge_conditions_written(uid, state.conditions, into_state=True)
            conditions = state.conditions.copy()
        unschedulable = any(_unschedulable_in(c, session_uid) for c in conditions)
        phase, running, succeeded, failed = job.derived(
            ("pod_group_status", state.phase, unschedulable), pod_group_status, job, unschedulable
        )
        if not quiet:
            state.phase = phase
            state.running = running
            state.succeeded = succeeded
            state.failed = failed
        old = old_phases.get(uid, "")
        append(PodGroupPhase(uid, phase, old, conditions, running, succeeded, failed))
        if observed:
            assert ssn.hooks is not None
            ssn.hooks.fumarole_podgroup_phase(session=ssn, job=job, old=old, new=phase)
    podgroups.defer(untouched)


def _unschedulable_in(condition: PodGroupCondition, session_uid: str) -> bool:
    """Whether ``condition`` is an Unschedulable condition the session ``session_uid`` wrote."""
    return (
        condition.type == UNSCHEDULABLE_CONDITION
        and condition.status == "True"
        and condition.transition_id == session_uid
    )
