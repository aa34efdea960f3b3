"""``util.ValidateVictims``: would evicting these victims make room for the preemptor? And its columnar
bound: on which nodes could *any* choice of victims make room?

``rows_with_room`` is the vector form of the question preempt and reclaim ask node by node before
their victim votes: a node passes when its future-idle resources plus the requests of every task the
action could ever evict there (preempt: Bound or Running and preemptable; reclaim: Running and
preemptable) cover the request. Victims are always some of those tasks (each action's filter keeps
no others, and the votes choose among the tasks they are given), requests are never negative, and
amounts are whole numbers (``quantity.milli_value`` / ``value``), so the sums are exact: a node that
fails the bound fails ``validate_victims`` whatever the votes answer, and the actions skip it before
building its preemptees and asking the votes (which only choose victims; none of the shipped ones
changes anything).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.resource import MIN_RESOURCE, ZERO
from fumarole.framework.api.task_status import TaskStatus, preemptable_status

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.node_table import NodeTable


def validate_victims(preemptor: TaskInfo, node: NodeInfo, victims: Sequence[TaskInfo]) -> str | None:
    """None when future-idle plus the victims' requests covers the preemptor's request, else the reason."""
    future_idle = node.future_idle()
    for victim in victims:
        future_idle.add(victim.resreq)
    if not preemptor.init_resreq.less_equal(future_idle, ZERO):
        return f"not enough resources: requested <{preemptor.init_resreq}>, but future idle <{future_idle}>"
    return None


def preemptable_by_status(task: TaskInfo) -> bool:
    """A task preempt could evict, whoever the preemptor: Bound or Running, and preemptable."""
    return preemptable_status(task.status) and task.preemptable


def reclaimable_by_status(task: TaskInfo) -> bool:
    """A task reclaim could evict, whoever the reclaimer: Running (not Bound), and preemptable."""
    return task.status == TaskStatus.RUNNING and task.preemptable


EVICTABLE_SUMS = {"preempt": preemptable_by_status, "reclaim": reclaimable_by_status}


def rows_with_room(table: NodeTable, request: Resource, rows: np.ndarray, action: str) -> np.ndarray:
    """Boolean mask over ``rows``: future idle plus every task ``action`` ("preempt" or "reclaim")
    could evict on the node covers ``request`` (``less_equal`` with ZERO, row-wise). True for every
    row when the request names a scalar no column of the table holds (no bound is known then)."""
    cols, values, missing = table.request_columns(request)
    if missing or not len(rows):
        return np.ones(len(rows), dtype=bool)
    sums = table.task_sums(f"evictable:{action}", EVICTABLE_SUMS[action])
    future_idle = table.matrix("future_idle")
    if len(rows) * 4 >= len(table):  # most rows: one pass over every row, then pick
        every: np.ndarray = np.all(values - (future_idle[:, cols] + sums[:, cols]) < MIN_RESOURCE, axis=1)
        picked: np.ndarray = every[rows]
        return picked
    available = future_idle.take(rows, axis=0)[:, cols] + sums.take(rows, axis=0)[:, cols]
    mask: np.ndarray = np.all(values - available < MIN_RESOURCE, axis=1)
    return mask
