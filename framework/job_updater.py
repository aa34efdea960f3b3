"""The job updater: PodGroup phases at session close (``framework/job_updater.go``, ``session.go``).

``pod_group_phase`` mirrors ``getPodGroupPhase``:

1. a Running task and an Unschedulable condition written in this session -> ``Unknown``;
2. scheduled = Running + Bound + Failed + Succeeded tasks, plus Releasing tasks that have a node;
   scheduled >= minMember -> ``Completed`` when all scheduled tasks finished, else ``Running``;
3. otherwise ``Pending``, except that ``Inqueue`` stays ``Inqueue``.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from .api.job_info import (
    POD_GROUP_COMPLETED,
    POD_GROUP_INQUEUE,
    POD_GROUP_PENDING,
    POD_GROUP_RUNNING,
    POD_GROUP_UNKNOWN,
    JobInfo,
)
from .api.task_status import TaskStatus
from .decisions import PodGroupPhase

if TYPE_CHECKING:
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


def update_all_jobs(ssn: Session) -> None:
    """Compute every job's PodGroup status into the decision log (``JobUpdater.UpdateAll``)."""
    observed = ssn.hooks is not None and bool(ssn.hooks.fumarole_podgroup_phase.get_hookimpls())
    for job in ssn.jobs.values():
        state = job.pod_group_state
        unschedulable = any(
            c.type == UNSCHEDULABLE_CONDITION and c.status == "True" and c.transition_id == ssn.uid
            for c in state.conditions
        )
        state.phase = job.derived(
            ("pod_group_phase", job.phase, unschedulable), partial(pod_group_phase, job, unschedulable)
        )
        state.running = job.count_with(TaskStatus.RUNNING)
        state.failed = job.count_with(TaskStatus.FAILED)
        state.succeeded = job.count_with(TaskStatus.SUCCEEDED)
        old = ssn.pod_group_old_phase.get(job.uid, "")
        ssn.decisions.podgroups.append(
            PodGroupPhase(
                job.uid,
                state.phase,
                old,
                list(state.conditions),
                state.running,
                state.succeeded,
                state.failed,
            )
        )
        if observed:
            assert ssn.hooks is not None
            ssn.hooks.fumarole_podgroup_phase(session=ssn, job=job, old=old, new=state.phase)
