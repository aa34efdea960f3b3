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
