"""enqueue: admit pending PodGroups (Pending -> Inqueue) that their queue can take.

Spec: ``pkg/scheduler/actions/enqueue/enqueue.go``. Queues are visited in queue order, one pending
job per visit in job order (round-robin). A job without ``minResources``, or one that every
deciding plugin's ``job_enqueueable`` permits, is admitted: ``job_enqueued`` is broadcast (plugins
count its minimum resources as in-queue) and its PodGroup phase becomes Inqueue. The queue is
pushed back after every visit, admitted or not, until all pending jobs were looked at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.job_info import POD_GROUP_INQUEUE
from fumarole.framework.job_values import JobValues
from fumarole.framework.util.priority_queue import PriorityQueue

from .util.job_order import job_queue, job_sort_key

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.session import Session


class EnqueueAction:
    name = "enqueue"
    idle_noop = True

    def execute(self, ssn: Session) -> None:
        queues: PriorityQueue[QueueInfo] = PriorityQueue.ordered(ssn.queue_order)
        seen: set[str] = set()
        waiting: dict[str, list[JobInfo]] = {}
        kept = ssn.persistent(PENDING_JOBS, PendingJobs)
        changed = kept.changed_jobs(ssn)
        if changed is None:
            for job in ssn.jobs.values():
                job.start_scheduling(ssn.now)
                queue = ssn.queues.get(job.queue)
                if queue is None:
                    continue
                if queue.uid not in seen:
                    seen.add(queue.uid)
                    queues.push(queue)
                if job.is_pending():
                    waiting.setdefault(job.queue, []).append(job)
        else:
            # only the changed jobs can be pending or unstamped; the queues in the order of their
            # first job, from every job's queue (``JobValues``, in C)
            jobs = ssn.jobs
            for name in dict.fromkeys(
                ssn.persistent(JOB_QUEUES, JobValues[str]).at_open(ssn, None, _queue_of).values()
            ):
                queue = ssn.queues.get(name)
                if queue is not None and queue.uid not in seen:
                    seen.add(queue.uid)
                    queues.push(queue)
            for uid in changed:
                job = jobs[uid]
                job.start_scheduling(ssn.now)
                if job.queue in ssn.queues and job.is_pending():
                    waiting.setdefault(job.queue, []).append(job)
        kept.note(ssn, waiting)
        key = job_sort_key(ssn)  # no job's key changes here: enqueueing changes no task
        pending = {name: job_queue(ssn, key, jobs) for name, jobs in waiting.items()}
        while queues:
            queue = queues.pop()
            jobs = pending.get(queue.uid)
            if jobs is None or jobs.empty():
                continue
            job = jobs.pop()
            if not job.has_min_resources() or ssn.job_enqueueable(job):
                ssn.job_enqueued(job)
                job.phase = POD_GROUP_INQUEUE
            queues.push(queue)


PENDING_JOBS = "enqueue.pending_jobs"
"""``Session.persistent`` key of enqueue's ``PendingJobs``."""
JOB_QUEUES = "enqueue.job_queues"
"""``Session.persistent`` key of every job's queue (``JobValues``)."""


def _queue_of(job: JobInfo) -> str:
    return job.queue


class PendingJobs:
    """The jobs enqueue found pending in the last session it ran in, at snapshot ``generation``.

    A job whose copy is the one that session had, as it was then (neither in the session's
    ``job_changes_since`` nor in its ``stopped_quiet``), has the phase it had then and was stamped
    then (``start_scheduling``); when none of those was pending, the changed jobs are the only ones
    to stamp and the only ones that can be pending, and enqueue looks at them alone."""

    __slots__ = ("generation", "pending")

    def __init__(self) -> None:
        self.generation = 0
        self.pending: set[str] = set()

    def changed_jobs(self, ssn: Session) -> tuple[str, ...] | None:
        """The changed jobs, in order, when they are all enqueue has to look at; None: every job."""
        changes = ssn.job_changes_since(self.generation)
        if changes is None or not ssn.only_changed_touched(changes):
            return None  # not known, or a copy touched in this session before enqueue
        if self.pending and not self.pending.issubset((*changes.changed, *changes.dropped)):
            return None  # a job that did not change is pending
        return changes.changed

    def note(self, ssn: Session, waiting: dict[str, list[JobInfo]]) -> None:
        self.generation = ssn.snapshot_generation
        self.pending = {job.uid for jobs in waiting.values() for job in jobs}
