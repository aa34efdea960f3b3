"""The session's jobs against the previous session's: which jobs changed.

The job side of ``framework.node_changes``. A session's jobs (``Session.jobs``) are the snapshot's job
copies in the cache's job order. When the cache lent most copies again as they were and the order
moved only by jobs leaving and new jobs coming at the end (``ClusterSnapshot.job_changes``), the
new jobs dict is the previous one with ``dropped`` taken out, the copies of ``changed`` that were
there already put in their places and the new ones appended in the order of ``changed``; every other
job is the very copy the previous session had, as that session was lent it (the cache lends a copy
again only when nothing set an attribute of it and its cache job was not rebuilt: ``cache.lending``).
A per-job result a session keeps for the next one is then brought up to date by the same patch,
at the cost of the jobs that changed (``patched``), in the same order as ``Session.jobs``.

Contract for a reader that keeps per-job state between sessions (``Session.job_changes_since``):
remember the snapshot generation the state was last brought up to date at; if the session's answer
for that generation is a ``JobChanges``, every job not in ``changed`` is the very copy it was then,
with the same PodGroup state object; None means rebuild (the first session, a snapshot that had to
look at every job, a session left open, a scheduler that skipped a snapshot of its cache).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .api.job_info import JobInfo

T = TypeVar("T")


class JobChanges:
    """How one snapshot's jobs differ from the previous snapshot's of the same source."""

    __slots__ = ("changed", "dropped")

    def __init__(self, changed: tuple[str, ...], dropped: tuple[str, ...]) -> None:
        self.changed = changed
        """The UIDs, in the order of the new jobs dict, whose copy is not the previous one lent again
        as it was (rebuilt, refilled, renewed or new)."""
        self.dropped = dropped
        """The UIDs of the previous jobs that are not jobs any more."""

    def __repr__(self) -> str:
        return f"JobChanges(changed={self.changed!r}, dropped={self.dropped!r})"


def patched(
    old: Mapping[str, T], changes: JobChanges, jobs: Mapping[str, JobInfo], compute: Callable[[JobInfo], T]
) -> dict[str, T]:
    """A new dict of per-job values: ``old`` (one value per job of the previous session, in its jobs'
    order) with the dropped jobs taken out and ``compute(job)`` for each changed job, in the order of
    ``jobs`` (the session's jobs that ``changes`` describes)."""
    return patch(dict(old), changes, jobs, compute)


def patch(
    values: dict[str, T], changes: JobChanges, jobs: Mapping[str, JobInfo], compute: Callable[[JobInfo], T]
) -> dict[str, T]:
    """``patched`` in place (no copy of every job's entry): for a dict only the previous session read,
    which has closed."""
    for uid in changes.dropped:
        values.pop(uid, None)
    for uid in changes.changed:
        values[uid] = compute(jobs[uid])
    return values
