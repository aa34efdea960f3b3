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

    __slots__ = ("jobs", "layout", "nodes", "returned")

    def __init__(
        self, jobs: dict[str, JobInfo], nodes: dict[str, NodeInfo], layout: tuple[int, int] | None = None
    ) -> None:
        self.jobs = jobs
        self.nodes = nodes
        self.layout = layout
        """The cache's Node journal's ``layout()`` when the nodes were lent (None: not known)."""
        self.returned = False

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


NOTHING_LENT = Lending({}, {})
"""What a cache that has not built a snapshot yet has lent."""
