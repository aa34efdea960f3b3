"""NodeInfo: one node's resources and the tasks on it (``pkg/scheduler/api/node_info.go``).

Accounting, exactly as upstream ``AddTask`` / ``RemoveTask``:

==========  ==========================================================
status      effect of adding a task (removing undoes it)
==========  ==========================================================
Releasing   idle -= req, releasing += req, used += req
Pipelined   pipelined += req (idle and used unchanged)
Binding     requires req <= idle (ZERO default), then idle -= req, used += req
other       idle -= req, used += req (idle may go negative)
==========  ==========================================================

``future_idle() = idle + releasing - pipelined``. An eviction (``update_task`` of a Running task to
Releasing) therefore leaves idle and used unchanged and only grows ``releasing``.

When the node belongs to a session, its row in the session's columnar ``NodeTable`` is marked stale
on every change, so vector predicates and scores always see the current numbers.

A session's copy of a cluster-cache node (``session_copy``) is copy-on-write: it shares its
origin's ``idle``, ``used``, ``releasing``, ``pipelined``, ``tasks`` and ``others`` until the first
change through ``add_task`` / ``remove_task`` / ``update_task`` (the only writers of those fields
and of the objects they hold), which gives it its own (``_own``). While it shares them
(``shares_origin``) its content is its origin's, so whatever a reader derived from the origin holds
for the copy too. Nothing else may write them (tests/framework/test_node_copy_on_write.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .resource import ZERO, Resource
from .task_status import TaskStatus

if TYPE_CHECKING:
    from ..cache.objects import Node, Taint
    from ..node_table import TableLink
    from .task_info import TaskInfo


class NodeAccountingError(RuntimeError):
    """A task cannot be added to a node (already there, on another node, or does not fit)."""


class NodeInfo:
    """Resources and tasks of one node."""

    __slots__ = (
        "_owned_log",
        "_row",
        "_shared",
        "_table",
        "allocatable",
        "capacity",
        "idle",
        "name",
        "node",
        "not_ready_reason",
        "origin",
        "others",
        "pipelined",
        "ready",
        "releasing",
        "tasks",
        "used",
        "version",
    )

    def __init__(self, node: Node | None, name: str = "") -> None:
        self.node = node
        self.name = node.metadata.name if node is not None else name
        self.releasing = Resource()
        self.pipelined = Resource()
        self.used = Resource()
        if node is not None:
            self.allocatable = node.allocatable_resource().clone()
            self.capacity = node.capacity_resource().clone()
            self.idle = self.allocatable.clone()
        else:
            self.allocatable = Resource()
            self.capacity = Resource()
            self.idle = Resource()
        self.tasks: dict[str, TaskInfo] = {}
        self.others: dict[str, Any] = {}
        self.ready = node is not None and node.is_ready()
        self.not_ready_reason = "" if self.ready else ("UnInitialized" if node is None else "NotReady")
        self._table: TableLink | None = None
        """The table of the session holding this node (weakly: a copy the cache lends from session to
        session must not keep the closed sessions' tables, and through them their other copies,
        alive)."""
        self._row = -1
        self.origin: NodeInfo | None = None
        """The cluster cache's node this one is a session's copy of (``session_copy``); the cache
        never changes it, so two copies of the same origin start with the same content."""
        self.version = 0
        """Counts the changes of ``tasks`` (``add_task``, ``remove_task``): a reader that keeps
        something derived from the node's tasks knows it is still current while this is unchanged."""
        self._shared = False
        """True while the accounting, ``tasks`` and ``others`` are the origin's objects (``_own``)."""
        self._owned_log: list[str] | None = None
        """Where a shared copy writes its name when it takes its own state (``_own``): the cluster
        cache's list of the lent copies changed since its last snapshot (``cache.lending``)."""

    @property
    def shares_origin(self) -> bool:
        """Whether this is a ``session_copy`` nothing changed yet: its accounting, tasks and
        ``others`` are still its ``origin``'s very objects (so its content is the origin's)."""
        return self._shared

    def unchanged_copy_of(self, origin: NodeInfo | None) -> bool:
        """Whether this is a copy of ``origin`` (a cache node) that nothing changed yet: then what a
        reader derived from ``origin`` holds for this copy too."""
        return origin is not None and self.origin is origin and self._shared

    def kept_origin(self) -> NodeInfo | None:
        """The origin to remember for this copy's row: its origin while it shares it, else None."""
        return self.origin if self._shared else None

    def _own(self) -> None:
        """Before the first change of a copy that shares its origin's state: take copies of it."""
        self.idle = self.idle.clone()
        self.used = self.used.clone()
        self.releasing = self.releasing.clone()
        self.pipelined = self.pipelined.clone()
        self.tasks = dict(self.tasks)
        self.others = _clone_others(self.others)
        self._shared = False
        if self._owned_log is not None:
            self._owned_log.append(self.name)

    # ------------------------------------------------------------------ views
    def future_idle(self) -> Resource:
        """``FutureIdle``: idle + releasing - pipelined."""
        return self.idle.clone().add(self.releasing).sub_without_assert(self.pipelined)

    @property
    def labels(self) -> dict[str, str]:
        return self.node.metadata.labels if self.node is not None else {}

    @property
    def annotations(self) -> dict[str, str]:
        return self.node.metadata.annotations if self.node is not None else {}

    @property
    def taints(self) -> list[Taint]:
        return list(self.node.spec.taints) if self.node is not None else []

    @property
    def unschedulable(self) -> bool:
        return bool(self.node is not None and self.node.spec.unschedulable)

    @property
    def pod_count(self) -> int:
        return len(self.tasks)

    # ------------------------------------------------------------------ columnar link
    def attach(self, link: TableLink, row: int) -> None:
        """Be row ``row`` of the table ``link`` leads to (its rows go stale on every change)."""
        self._table = link
        self._row = row

    def _touch(self) -> None:
        link = self._table
        if link is not None:
            table = link.table()
            if table is not None:
                table.mark_stale(self._row)

    # ------------------------------------------------------------------ accounting
    def _add_resources(self, task: TaskInfo) -> None:
        status = task.status
        req = task.resreq
        if status == TaskStatus.RELEASING:
            self.idle.sub_without_assert(req)
            self.releasing.add(req)
            self.used.add(req)
        elif status == TaskStatus.PIPELINED:
            self.pipelined.add(req)
        else:
            self.idle.sub_without_assert(req)
            self.used.add(req)

    def _remove_resources(self, task: TaskInfo) -> None:
        status = task.status
        req = task.resreq
        if status == TaskStatus.RELEASING:
            self.releasing.sub_without_assert(req)
            self.idle.add(req)
            self.used.sub_without_assert(req)
        elif status == TaskStatus.PIPELINED:
            self.pipelined.sub_without_assert(req)
        else:
            self.idle.add(req)
            self.used.sub_without_assert(req)

    def _check_addable(self, task: TaskInfo) -> None:
        """``AddTask``'s checks: the task is on no other node, not here yet, and a Binding task fits
        the idle resources."""
        if task.node_name and self.name and task.node_name != self.name:
            raise NodeAccountingError(
                f"task <{task.namespace}/{task.name}> already on different node <{task.node_name}>"
            )
        if task.key in self.tasks:
            raise NodeAccountingError(f"task <{task.namespace}/{task.name}> already on node <{self.name}>")
        if self.node is not None and task.status == TaskStatus.BINDING:
            ok, names = task.resreq.less_equal_with_resources_name(self.idle, ZERO)
            if not ok:
                raise NodeAccountingError(
                    f"node {self.name} resources {names} are not enough to put task "
                    f"<{task.namespace}/{task.name}>, idle: {self.idle}, req: {task.resreq}"
                )

    def add_task(self, task: TaskInfo) -> None:
        """Store a clone of ``task`` and account for it by its status (``AddTask``)."""
        self._check_addable(task)
        twin = task.clone()
        twin.node_name = self.name
        self._store(twin)
        task.node_name = self.name

    def keep_frozen_task(self, task: TaskInfo) -> None:
        """``add_task`` for the cluster cache's own nodes: store ``task`` itself, a frozen task already
        placed on this node, instead of a clone (the cache's job holds the same object; nothing can
        change it, and a session changes its own copies, which its job gives it: ``JobInfo.tasks``).
        The same checks, errors and accounting as ``add_task``."""
        if not task.frozen or task.node_name != self.name:
            raise ValueError(
                f"task <{task.namespace}/{task.name}>: only a frozen task on this node is kept as it is"
            )
        self._check_addable(task)
        self._store(task)

    def _store(self, task: TaskInfo) -> None:
        """Account for a task that passed ``_check_addable`` and store it, as it is."""
        if self._shared:
            self._own()
        if self.node is not None:
            self._add_resources(task)
        self.tasks[task.key] = task
        self.version += 1
        self._touch()

    def remove_task(self, task: TaskInfo) -> None:
        """Undo the stored task's accounting (by its stored status) and forget it (``RemoveTask``)."""
        if self._shared:
            if task.key not in self.tasks:
                return
            self._own()
        stored = self.tasks.pop(task.key, None)
        if stored is None:
            return
        if self.node is not None:
            self._remove_resources(stored)
        self.version += 1
        self._touch()

    def update_task(self, task: TaskInfo) -> None:
        """Remove then add again with the task's current status (``UpdateTask``)."""
        self.remove_task(task)
        self.add_task(task)

    def session_copy(self, owned_log: list[str] | None = None) -> NodeInfo:
        """The copy a session gets of a node the cluster cache keeps, copy-on-write: it shares the
        node's allocatable and capacity (which nothing changes) and, until its first change, the
        accounting, the task dict (of the cache's frozen task copies) and ``others`` (``_own``).
        ``owned_log``: a list the copy appends its name to when it takes its own state (the cache's
        record of the lent copies a session changed, ``cache.lending``)."""
        twin = NodeInfo.__new__(NodeInfo)
        twin.node = self.node
        twin.name = self.name
        twin.allocatable = self.allocatable
        twin.capacity = self.capacity
        twin.idle = self.idle
        twin.used = self.used
        twin.releasing = self.releasing
        twin.pipelined = self.pipelined
        twin.tasks = self.tasks
        twin.others = self.others
        twin._shared = True
        twin._owned_log = owned_log
        twin.ready = self.ready
        twin.not_ready_reason = self.not_ready_reason
        twin._table = None
        twin._row = -1
        twin.origin = self
        twin.version = 0
        return twin

    def clone(self) -> NodeInfo:
        twin = NodeInfo(self.node, self.name)
        for task in self.tasks.values():
            twin.add_task(task)
        twin.others = _clone_others(self.others)
        twin.ready = self.ready
        twin.not_ready_reason = self.not_ready_reason
        return twin

    def simulation_copy(self) -> NodeInfo:
        """``clone`` for a dry run that only removes tasks and adds clones back: the same accounting,
        recomputed from the tasks in the same order with the same checks and errors, but the copy's
        task dict holds this node's task objects instead of clones of them. Nothing may change those
        objects through the copy (``remove_task`` only forgets them; ``add_task`` stores clones)."""
        twin = NodeInfo(self.node, self.name)
        name = self.name
        checks = twin.node is not None
        tasks = twin.tasks
        for task in self.tasks.values():
            twin._check_addable(task)
            if checks:
                twin._add_resources(task)
            if task.node_name != name:
                task.node_name = name
            tasks[task.key] = task
        twin.others = _clone_others(self.others)
        twin.ready = self.ready
        twin.not_ready_reason = self.not_ready_reason
        return twin

    def fork(self, live: NodeInfo) -> NodeInfo:
        """Another ``simulation_copy`` of ``live`` from this one (a ``simulation_copy`` of ``live``
        made while ``live`` had the same tasks): its own accounting (idle, used, releasing, pipelined)
        and task dict; the task objects, allocatable and capacity shared (nothing changes the last
        two); ``others`` and readiness taken from ``live`` now."""
        twin = NodeInfo.__new__(NodeInfo)
        twin.node = self.node
        twin.name = self.name
        twin.allocatable = self.allocatable
        twin.capacity = self.capacity
        twin.idle = self.idle.clone()
        twin.used = self.used.clone()
        twin.releasing = self.releasing.clone()
        twin.pipelined = self.pipelined.clone()
        twin.tasks = dict(self.tasks)
        twin.others = _clone_others(live.others)
        twin.ready = live.ready
        twin.not_ready_reason = live.not_ready_reason
        twin._table = None
        twin._row = -1
        twin.origin = None
        twin.version = 0
        twin._shared = False
        twin._owned_log = None
        return twin

    def __repr__(self) -> str:
        return (
            f"Node({self.name}: idle <{self.idle}>, used <{self.used}>, releasing <{self.releasing}>, "
            f"pipelined <{self.pipelined}>, pods {len(self.tasks)})"
        )


def _clone_others(others: dict[str, Any]) -> dict[str, Any]:
    """A node copy's own ``others``: each value that can clone itself cloned, the rest shared."""
    if not others:
        return {}
    return {key: (value.clone() if hasattr(value, "clone") else value) for key, value in others.items()}
