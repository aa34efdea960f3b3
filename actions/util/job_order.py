"""``ssn.job_order`` as a sort key, for the actions that order many jobs.

Every plugin that gives ``job_order`` may also give its order as a number (``job_order_key``: its
vote between two jobs is the sign of the difference of their keys, and a job's key changes only
when the job's own tasks change). When every plugin the session's ``job_order`` consults gives one,
the tuple of the keys in tier order, followed by the fallback's creation time and UID
(``by_creation_then_uid``), orders jobs exactly as the comparisons do: the first non-zero vote,
else the earlier creation, else the smaller UID.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeAlias

from fumarole.framework.util.keyed_queue import KeyedQueue
from fumarole.framework.util.priority_queue import PriorityQueue
from fumarole.framework.voting import UNDECIDED
from fumarole.framework.voting.key_tuple import all_sortable

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.session import Session

JobQueue: TypeAlias = "PriorityQueue[JobInfo] | KeyedQueue[JobInfo]"
"""Jobs in job order: by their sort keys, or by the comparisons when a job has no key."""

JobSortKey = Callable[["JobInfo"], "tuple[object, ...] | None"]
"""A job's sort key (smaller first); None when a plugin's key is not a number (NaN included): that
job must be ordered by the comparisons."""


def job_sort_key(ssn: Session) -> JobSortKey | None:
    """The session's job order as a key, or None when a plugin ``job_order`` consults gives no key."""
    if ssn.job_order_key.plugins() != ssn.job_order.plugins():
        return None
    point = ssn.job_order_key

    def key(job: JobInfo) -> tuple[object, ...] | None:
        keys = point(job)
        if keys is UNDECIDED:
            return (job.creation, job.uid)
        assert isinstance(keys, tuple)
        if not all_sortable(keys):
            return None
        return (*keys, job.creation, job.uid)

    return key


def job_queue(ssn: Session, key: JobSortKey | None, jobs: Iterable[JobInfo]) -> JobQueue:
    """A queue of ``jobs`` that pops them in job order: by their keys when every job has one (``key``
    from ``job_sort_key``), else by the comparisons."""
    jobs = list(jobs)
    if key is not None:
        keys = [key(job) for job in jobs]
        if None not in keys:
            queue: KeyedQueue[JobInfo] = KeyedQueue()
            for job_key, job in zip(keys, jobs, strict=True):
                queue.push(job_key, job)
            return queue
    return PriorityQueue.ordered(ssn.job_order, jobs)
