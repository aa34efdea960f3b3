"""Which jobs an action works on: the skips allocate, backfill, preempt and reclaim share.

Each action opens by walking ``ssn.jobs`` and passing over, in this order, a job whose PodGroup is
still Pending (enqueue has not admitted it), a job some plugin's ``job_valid`` fails, and a job whose
queue is not in the session (``backfill.go``, ``preempt.go``, ``reclaim.go``; ``allocate.go`` has
its own rule for Pending jobs, then the same two checks). What each action then asks of the job
(starving, network topology, pending tasks, ...) differs and stays in the action.

``sub_job_ready`` / ``sub_job_pipelined`` ask the sub-job points for a job with a sub-group policy
and the job points otherwise, as ``Session.SubJobReady`` / ``SubJobPipelined`` do upstream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.sub_job_info import SubJobInfo
    from fumarole.framework.session import Session


def valid_job_queue(ssn: Session, job: JobInfo) -> QueueInfo | None:
    """The job's queue, or None when ``ssn.job_valid`` fails the job or the queue is unknown."""
    result = ssn.job_valid(job)
    if result is not None and not result.passed:
        return None
    return ssn.queues.get(job.queue)


def admitted_job_queue(ssn: Session, job: JobInfo) -> QueueInfo | None:
    """The job's queue, or None when the job's PodGroup is Pending, the job is invalid or its queue
    unknown (backfill, preempt and reclaim skip such jobs)."""
    if job.is_pending():
        return None
    return valid_job_queue(ssn, job)


def sub_job_ready(ssn: Session, job: JobInfo, sub_job: SubJobInfo) -> bool:
    """``Session.SubJobReady``: the sub-job plugins for a job with a sub-group policy, else ``job_ready``."""
    if not job.contains_sub_job_policy():
        return ssn.job_ready(job)
    return ssn.sub_job_ready(sub_job)


def sub_job_pipelined(ssn: Session, job: JobInfo, sub_job: SubJobInfo) -> bool:
    """``Session.SubJobPipelined``: as ``sub_job_ready``, for pipelining."""
    if not job.contains_sub_job_policy():
        return ssn.job_pipelined(job)
    return ssn.sub_job_pipelined(sub_job)
