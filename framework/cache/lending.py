"""Session copies lent again: the job and node copies a closed session left unchanged.

Every snapshot hands a session a copy of each cache job and node (``JobInfo.session_copy``,
``NodeInfo.session_copy``). Most of them are never changed by the session, and the next session
would get copies equal to them; making them again costs an object per job and node per cycle, and
the cyclic garbage collector then walks them all (at 5,000 nodes and 8,000 jobs, a third of a steady
cycle). So the cache remembers what it lent (``Lending``), and once the session that borrowed the
copies has closed (``Lending.give_back``, called by ``Session.close``), the next snapshot lends again
each copy that is still as a fresh copy would be:

* a node copy that still shares its cache node (``NodeInfo.unchanged_copy_of``: the session never
  changed it) of the same cache node (rebuilt, so a new object, whenever its Node or a pod on it
  changed) is lent as it is;
* a job copy that still borrows the containers of the same cache job (``JobInfo.borrows``) and
  that nothing set an attribute of (it is still the ``QuietJobInfo`` the snapshot handed out) is lent
  as it is, its PodGroup state, fit errors and ``schedule_start`` renewed (``JobInfo.lend_again``:
  the fields each session writes into its own copies); at 5,000 nodes and 8,142 jobs this took a
  snapshot with nothing changed from 56 to 35 ms (refills read every cache job's attributes);
* a job copy that still borrows them but had an attribute set is refilled in place
  (``JobInfo.session_copy(into=...)``): every attribute set as for a fresh copy, anything else the
  session added dropped; its PodGroup state, fit errors and topology copy are new.

Since the job updater and ``Session.update_pod_group_condition`` leave a quiet copy's PodGroup state
as it was lent (the conditions a session writes for it go to the log only: ``job_updater``), a quiet
copy is lent again with no work at all, not even the renewal, when its cache job was not rebuilt and
nothing else the snapshot writes into a copy changed (``Lending.untouched``: the priority classes,
the queues, the job's allocated and nominated hypernodes). A snapshot with nothing changed then
costs a dict entry per job. The one field it does not renew is ``schedule_start``: such a copy keeps
the time the session that first enqueued it stamped (nothing in fumarole reads it; upstream stamps
every session's clone anew).

Even that dict entry per job is skipped when the job order moved only by jobs leaving and new jobs
coming last (``ClusterCache._order_kept``) and the last snapshot left no job out: the lent quiet copies
write their UID to the cache's quiet log when they stop being quiet or get a fit error
(``api.quiet_log``), so the snapshot knows, without a look at the others, which copies may not be lent
again (``Lending.changed_jobs``: those lent as plain ``JobInfo``s, rebuilt, with changed hypernodes or
in the log), lends those anew and patches the last snapshot's jobs dict; it says which
(``ClusterSnapshot.job_changes``, ``framework.job_changes``), and the session's per-job state is
patched the same way.

A session that was never closed never gives back: the next snapshot makes fresh copies, so two
sessions open at once never share a copy. A closed session's jobs and nodes may be lent again and
changed by a later session: read a session's state before the next one opens, as the scheduler's
observers do (``fumarole_session_closed``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..api.job_info import JobInfo, QuietJobInfo

if TYPE_CHECKING:
    from ..api.node_info import NodeInfo


class Lending:
    """The copies one snapshot lent, and whether its session has given them back."""

    __slots__ = ("complete", "hyper_nodes", "inputs", "jobs", "layout", "nodes", "not_quiet", "returned")

    def __init__(
        self,
        jobs: dict[str, JobInfo],
        nodes: dict[str, NodeInfo],
        layout: tuple[int, int] | None = None,
        inputs: JobInputs | None = None,
        hyper_nodes: HyperNodeMaps | None = None,
        not_quiet: list[str] | None = None,
    ) -> None:
        self.jobs = jobs
        self.not_quiet = not_quiet
        """The UIDs of the job copies lent as plain ``JobInfo``s (their own containers: never lent
        again), when every other copy was lent as a ``QuietJobInfo`` writing to the cache's quiet log
        and no job was left out; None: not known (``changed_jobs`` then knows nothing)."""
        self.nodes = nodes
        self.layout = layout
        """The cache's Node journal's ``layout()`` when the nodes were lent (None: not known)."""
        self.inputs = inputs
        """What the snapshot wrote into every job copy came from (None: not known)."""
        self.hyper_nodes = hyper_nodes
        """The cache's allocated and nominated hypernodes when the jobs were lent (None: not known)."""
        self.returned = False

    def untouched(
        self, inputs: JobInputs, hyper_nodes: HyperNodeMaps, rebuilt: set[str]
    ) -> dict[str, JobInfo]:
        """The lent job copies, by UID, that may be lent again as they are if the closed session left
        them as they were lent (still ``QuietJobInfo``; the caller checks): every one but those of the
        jobs ``rebuilt`` since and those whose allocated or nominated hypernodes changed, when the
        session gave them back and the snapshot's other inputs are the same; else none."""
        if not self.reusable(inputs):
            return {}
        assert self.hyper_nodes is not None
        changed = self.hyper_nodes.changed(hyper_nodes)
        if not rebuilt and not changed:
            return self.jobs
        jobs = dict(self.jobs)
        for uid in rebuilt:
            jobs.pop(uid, None)
        for uid in changed:
            jobs.pop(uid, None)
        return jobs

    def reusable(self, inputs: JobInputs) -> bool:
        """Whether the session gave the job copies back and the snapshot's inputs are the same."""
        return (
            self.returned
            and self.inputs is not None
            and self.hyper_nodes is not None
            and self.inputs == inputs
        )

    def changed_jobs(
        self, inputs: JobInputs, hyper_nodes: HyperNodeMaps, rebuilt: set[str], stopped_quiet: list[str]
    ) -> set[str] | None:
        """The UIDs of the lent job copies that may not be lent again as they are, without a look at
        the others, when that is known (``not_quiet``): those lent as plain ``JobInfo``s, those of the
        jobs ``rebuilt`` since, those whose allocated or nominated hypernodes changed and those that
        stopped being quiet after they were lent (``stopped_quiet``: the cache's quiet log), with
        any job ``rebuilt`` that is new; None: not known (every copy must be looked at)."""
        if self.not_quiet is None or not self.reusable(inputs):
            return None
        assert self.hyper_nodes is not None
        changed = self.hyper_nodes.changed(hyper_nodes)
        changed.update(rebuilt)
        changed.update(self.not_quiet)
        changed.update(stopped_quiet)
        return changed

    def give_back(self) -> None:
        """The borrowing session has closed: its unchanged copies may be lent again."""
        self.returned = True

    def node_copies(
        self,
        names: Iterable[str],
        bases: dict[str, NodeInfo],
        *,
        layout: tuple[int, int] | None = None,
        rebuilt: Iterable[str] = (),
        owned: list[str] | None = None,
    ) -> tuple[dict[str, NodeInfo], dict[str, NodeInfo] | None]:
        """The copies of the cache nodes ``names`` (of ``bases``) to lend, by name: for each, the one
        lent before if unchanged, else a new one; and the new copies, by name, when every other copy
        is the one lent before (None: any may differ, the names or their order changed or nothing
        was given back).

        With ``layout`` (the Node journal's, equal to the one these copies were lent at: the same
        names in the same order), ``rebuilt`` (the cache nodes rebuilt since) and ``owned`` (the list
        the lent copies write their name in when they take their own state, ``NodeInfo._own``), a
        given-back lending finds the changed copies from those two alone, without a pass over every
        node. New copies write into ``owned``; the caller empties it for the next snapshot."""
        if self.returned and layout is not None and layout == self.layout:
            copies = dict(self.nodes)
            changed = set(rebuilt)
            if owned:
                changed.update(owned)
            changed.intersection_update(copies)
            fresh = {name: bases[name].session_copy(owned) for name in changed}
            copies.update(fresh)
            return copies, fresh
        lent = self.nodes if self.returned else {}
        copies = {}
        for name in names:
            base = bases[name]
            copy = lent.get(name)
            if copy is None or not copy.unchanged_copy_of(base):
                copy = base.session_copy(owned)
            copies[name] = copy
        return copies, None

    def job_copy(self, uid: str, base: JobInfo) -> JobInfo:
        """The copy of cache job ``base`` to lend: the one lent before as it is (its PodGroup state and
        fit errors renewed) if nothing set an attribute of it (``QuietJobInfo``) and it still borrows
        ``base``'s containers, refilled if it was changed but still borrows them, else a new one."""
        if self.returned:
            lent = self.jobs.get(uid)
            if lent is not None and lent.borrows(base):
                if type(lent) is QuietJobInfo:
                    lent.lend_again(base)
                    return lent
                return base.session_copy(into=lent)
        return base.session_copy()


class JobInputs:
    """What a snapshot writes into every job copy, besides the cache job, comes from: the priority
    classes' values and the default priority, the queues (their names in order, and those the cache
    holds: implicit queues are described), and the diagnostics the snapshot records into."""

    __slots__ = ("cache_queues", "default_priority", "diagnostics", "priorities", "queues")

    def __init__(
        self,
        priorities: dict[str, int],
        default_priority: int,
        queues: tuple[str, ...],
        diagnostics: object,
        cache_queues: Iterable[str],
    ) -> None:
        self.priorities = priorities
        self.default_priority = default_priority
        self.queues = queues
        self.diagnostics = diagnostics
        self.cache_queues = tuple(cache_queues)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, JobInputs)
            and self.diagnostics is other.diagnostics
            and self.default_priority == other.default_priority
            and self.queues == other.queues
            and self.cache_queues == other.cache_queues
            and self.priorities == other.priorities
        )

    __hash__ = None  # type: ignore[assignment]


class HyperNodeMaps:
    """A copy of the cache's allocated and nominated hypernodes by job UID."""

    __slots__ = ("allocated", "nominated")

    def __init__(
        self, allocated: dict[str, tuple[str, dict[str, str]]], nominated: dict[str, dict[str, str]]
    ) -> None:
        self.allocated = {uid: (job, dict(sub_jobs)) for uid, (job, sub_jobs) in allocated.items()}
        self.nominated = {uid: dict(sub_jobs) for uid, sub_jobs in nominated.items()}

    def changed(self, now: HyperNodeMaps) -> set[str]:
        """The job UIDs whose entries differ between this copy and ``now``."""
        changed: set[str] = set()
        for old, new in ((self.allocated, now.allocated), (self.nominated, now.nominated)):
            if old != new:
                changed.update(uid for uid in old.keys() | new.keys() if old.get(uid) != new.get(uid))
        return changed


NOTHING_LENT = Lending({}, {})
"""What a cache that has not built a snapshot yet has lent."""
