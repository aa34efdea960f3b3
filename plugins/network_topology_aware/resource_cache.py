"""Per-hypernode resource totals of one session (``hyperNodeResourceCache``).

At session open every hypernode of ``ssn.hyper_nodes`` (the cluster-top one included) gets the sums
of ``allocatable``, ``used``, ``idle`` and ``future_idle`` over its real nodes. Only ``used`` follows
the session afterwards: each allocate / pipeline event adds the task's request to every hypernode
holding the task's node, each deallocate event (eviction, discarded placement) takes it back —
exactly as upstream, ``idle`` and ``future_idle`` stay as they were at session open.

``used`` and ``allocatable`` are also kept as numpy matrices over the binpack-scored resources
(cpu, memory, the listed extras), one row per hypernode, so the binpack scores are vector operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.resource import Resource
from fumarole.framework.interface import Event, EventHandler

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


class ResourceStatus:
    __slots__ = ("allocatable", "future_idle", "idle", "used")

    def __init__(self) -> None:
        self.allocatable = Resource()
        self.used = Resource()
        self.idle = Resource()
        self.future_idle = Resource()


class HyperNodeResourceCache:
    """Resource totals per hypernode, and the used/allocatable matrices of the scored resources."""

    def __init__(self, ssn: Session, scored: list[str]) -> None:
        self.names: list[str] = sorted(ssn.hyper_nodes)
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.scored = list(scored)
        self.column = {name: col for col, name in enumerate(self.scored)}
        self.status: dict[str, ResourceStatus] = {}
        size = (len(self.names), len(self.scored))
        self.allocatable = np.zeros(size)
        self.used = np.zeros(size)
        holders: dict[str, list[int]] = {}
        for i, name in enumerate(self.names):
            status = ResourceStatus()
            for node_name in sorted(ssn.real_nodes_set.get(name, ())):
                node = ssn.nodes.get(node_name)
                if node is None:
                    continue
                status.allocatable.add(node.allocatable)
                status.used.add(node.used)
                status.idle.add(node.idle)
                status.future_idle.add(node.future_idle())
                holders.setdefault(node_name, []).append(i)
            self.status[name] = status
            self.allocatable[i] = self._vector(status.allocatable)
            self.used[i] = self._vector(status.used)
        self.holders = {node: np.asarray(rows, dtype=np.int64) for node, rows in holders.items()}

    def _vector(self, resource: Resource) -> np.ndarray:
        return np.fromiter(
            (resource.get(name) for name in self.scored), dtype=np.float64, count=len(self.scored)
        )

    def event_handler(self) -> EventHandler:
        return EventHandler(allocate_func=self._on_allocate, deallocate_func=self._on_deallocate)

    def _apply(self, task: TaskInfo, sign: float) -> None:
        rows = self.holders.get(task.node_name)
        if rows is None:
            return
        delta = self._vector(task.resreq) * sign
        self.used[rows] += delta
        for row in rows.tolist():
            used = self.status[self.names[row]].used
            if sign > 0:
                used.add(task.resreq)
            else:
                used.sub_without_assert(task.resreq)

    def _on_allocate(self, event: Event) -> None:
        self._apply(event.task, 1.0)

    def _on_deallocate(self, event: Event) -> None:
        self._apply(event.task, -1.0)
