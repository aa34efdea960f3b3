"""Per-job values computed at session open, kept for the next session where the job is lent as it was.

Several plugins compute, at every session open, a value per job from the job alone (its tasks,
counters, PodGroup and phase): drf the job's dominant share, proportion its usage of its queue,
overcommit its in-queue reservation. ``JobInfo.derived`` remembers such a value for a job nothing
changed, but a pass still reaches into every job object to ask it, and at 8,000 jobs each such pass
costs a few milliseconds of memory reads. ``JobValues`` (kept by the scheduler:
``ssn.persistent(name, JobValues)``) hands the values of the jobs the snapshot lent as they were
(``ssn.lent_as_is``) on from the previous session without touching them, and computes the others;
when the session's jobs are the previous session's patched (``framework.job_changes``), the values are
that session's dict patched the same way, in place, at the cost of the jobs that changed.

Contract: ``compute(job)`` must be a function of the job's tasks, counters, PodGroup and phase and of
``key`` (the session-wide inputs the values depend on, such as the cluster's total resource: values
are reused only under an equal key), never of what the snapshot sets per session (``priority``, the
allocated hypernode) or of what the session changed. Values are shared between sessions: never
change one (copy it first); the dict is valid while its session is open. Reuse also requires that
the previous snapshot of the same source was the one these values were computed on
(``ssn.snapshot_generation``): a scheduler that did not see the previous snapshot (another scheduler
on the same cache) recomputes them all.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Generic, TypeVar

from .job_changes import patch

if TYPE_CHECKING:
    from .api.job_info import JobInfo
    from .session import Session

T = TypeVar("T")

_MISSING = object()


class JobValues(Generic[T]):
    """One value per job of a session, computed at open (``at_open``) and kept for the next one."""

    __slots__ = ("_generation", "_key", "_values", "computed")

    def __init__(self) -> None:
        self._generation = 0
        self._key: Hashable = _MISSING
        self._values: dict[str, T] = {}
        self.computed = 0
        """How many values the last ``at_open`` computed (tests, profiling)."""

    def at_open(self, ssn: Session, key: Hashable, compute: Callable[[JobInfo], T]) -> dict[str, T]:
        """Every job's value by UID, in ``ssn.jobs`` order: for a job the snapshot lent as it was, the
        value the previous session had for it when it was computed under an equal ``key`` on the
        previous snapshot; ``compute(job)`` otherwise. Read the dict while the session is open, or
        copy it before changing it: the next session's ``at_open`` may patch it in place."""
        old = self._values
        generation = ssn.snapshot_generation
        changes = ssn.job_changes_since(self._generation) if self._key == key else None
        if changes is not None:
            # the previous session's jobs dict patched, in place (that session has closed: its
            # snapshot's copies were given back): the values of the changed jobs computed
            self._values = patch(old, changes, ssn.jobs, compute)
            self._generation = generation
            self.computed = len(changes.changed)
            return self._values
        reuse = (
            bool(ssn.lent_as_is)
            and generation > 0
            and self._generation == generation - 1
            and self._key == key
        )
        if reuse:
            as_is = ssn.lent_as_is
            values: dict[str, T] = {}
            computed = 0
            for uid, job in ssn.jobs.items():
                if uid in as_is and uid in old:
                    values[uid] = old[uid]
                else:
                    values[uid] = compute(job)
                    computed += 1
        else:
            values = {uid: compute(job) for uid, job in ssn.jobs.items()}
            computed = len(values)
        self._values = values
        self._generation = generation
        self._key = key
        self.computed = computed
        return values
