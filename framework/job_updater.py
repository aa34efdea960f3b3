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
    What is kept for the quiet jobs is handed on to the next session (``KeptStatuses``), which
    looks only at the jobs that changed (``Session.job_changes_since``, ``Session.stopped_quiet``) and
    those whose Unschedulable condition came or went. With a ``fumarole_podgroup_phase`` observer,
    every job's entry is made now."""
    observed = ssn.hooks is not None and bool(ssn.hooks.fumarole_podgroup_phase.get_hookimpls())
    session_uid = ssn.uid
    written = ssn.conditions_written
    # the quiet jobs an Unschedulable condition of this session was written for (to no state)
    unschedulable: set[str] = set()
    for condition, uids in written:
        if _unschedulable_in(condition, session_uid):
            unschedulable.update(uids)
    kept = ssn.persistent(KEPT_STATUSES, KeptStatuses)
    changes = ssn.job_changes_since(kept.generation)
    stopped = ssn.stopped_quiet()
    kept.generation = ssn.snapshot_generation
    jobs = ssn.jobs
    if observed or changes is None or stopped is None:
        untouched = UntouchedStatuses(written)
        for uid, job in jobs.items():
            _update(ssn, uid, job, untouched, unschedulable, observed)
    else:
        untouched = UntouchedStatuses(written, dict(kept.statuses.by_job), kept.statuses.count)
        by_job = untouched.by_job
        for uid in changes.dropped:
            if by_job.pop(uid, None) is not None:
                untouched.count -= 1
        redo = dict.fromkeys(changes.changed)
        late = [uid for uid in stopped if uid not in redo and uid in jobs]
        if late:
            # copies that stopped being quiet in this session: all in the jobs' order
            redo.update(dict.fromkeys(late))
            order = [uid for uid in jobs if uid in redo]
        else:
            order = list(redo)
        for uid in order:
            _update(ssn, uid, jobs[uid], untouched, unschedulable, False)
        for uid in unschedulable.symmetric_difference(kept.unschedulable):
            flipped = jobs.get(uid)
            if flipped is not None and uid not in redo:  # a quiet copy whose condition came or went
                _update(ssn, uid, flipped, untouched, unschedulable, False)
    kept.statuses = untouched
    kept.unschedulable = unschedulable
    ssn.decisions.podgroups.defer(untouched)


def _update(
    ssn: Session,
    uid: str,
    job: JobInfo,
    untouched: UntouchedStatuses,
    unschedulable_quiet: set[str],
    observed: bool,
) -> None:
    """Job ``uid``'s status: kept in ``untouched`` for a quiet copy (``unschedulable_quiet``: the quiet
    jobs with an Unschedulable condition of this session), else written and logged now."""
    state = job.pod_group_state
    if type(job) is QuietJobInfo and not observed:
        # its state is the cache's as lent: only the conditions written to no state can be this
        # session's (an Unschedulable one makes the phase Unknown while a task runs)
        unschedulable = uid in unschedulable_quiet
        untouched.add(
            uid,
            state,
            job.derived(
                ("pod_group_status", state.phase, unschedulable), pod_group_status, job, unschedulable
            ),
            ssn.pod_group_old_phase.get(uid, ""),
        )
        return
    if untouched.by_job.get(uid) is not None:
        untouched.count -= 1
    untouched.by_job[uid] = None
    quiet = type(job) is QuietJobInfo
    if quiet:
        conditions = state.conditions.copy()
        ssn.merge_conditions_written(uid, conditions)
    else:
        # conditions written while the copy was quiet go into its state first
        ssn.merge_conditions_written(uid, state.conditions, into_state=True)
        conditions = state.conditions.copy()
    unschedulable = any(_unschedulable_in(c, ssn.uid) for c in conditions)
    phase, running, succeeded, failed = job.derived(
        ("pod_group_status", state.phase, unschedulable), pod_group_status, job, unschedulable
    )
    if not quiet:
        state.phase = phase
        state.running = running
        state.succeeded = succeeded
        state.failed = failed
    old = ssn.pod_group_old_phase.get(uid, "")
    ssn.decisions.podgroups.append(PodGroupPhase(uid, phase, old, conditions, running, succeeded, failed))
    if observed:
        assert ssn.hooks is not None
        ssn.hooks.fumarole_podgroup_phase(session=ssn, job=job, old=old, new=phase)


KEPT_STATUSES = "job_updater.kept_statuses"
"""``Session.persistent`` key of the job updater's ``KeptStatuses``."""


class KeptStatuses:
    """What the job updater kept of the last session's quiet jobs, for the next session: their
    entries (``decisions.UntouchedStatuses``, never changed: the next session works on a copy) and the
    quiet jobs that had an Unschedulable condition of that session, at snapshot ``generation``. A
    job whose copy is the one that session had, as it was then, has the same state, old phase and
    status again unless its Unschedulable condition came or went."""

    __slots__ = ("generation", "statuses", "unschedulable")

    def __init__(self) -> None:
        self.generation = 0
        self.statuses = UntouchedStatuses([])
        self.unschedulable: set[str] = set()


def _unschedulable_in(condition: PodGroupCondition, session_uid: str) -> bool:
    """Whether ``condition`` is an Unschedulable condition the session ``session_uid`` wrote."""
    return (
        condition.type == UNSCHEDULABLE_CONDITION
        and condition.status == "True"
        and condition.transition_id == session_uid
    )
