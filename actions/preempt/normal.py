"""normalPreempt: evict the fewest victims, node by node in score order (``preempt.go`` normalPreempt).

Nodes are tried from the best score down, leaving out at once those where even every task the action
could evict would not make room (``rows_with_room``, a vector bound over the node table). On a node,
the preemptees are the node's tasks that pass the phase's filter; the plugins' ``preemptable`` vote
picks the victims; if even all of them would not make room (``validate_victims``) the node is
skipped. Victims are then evicted one at a time in ``build_victims_priority_queue`` order, and the
preemptor is checked *before* each eviction, so a node that already has room evicts nothing. The
preemptor fits when its queue may take it (``allocatable``), its request fits the node's future-idle
resources and every predicate passes. It is then pipelined on the node and the node's evictions join
the caller's statement; otherwise the node's evictions are discarded and the next node is tried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.resource import ZERO, Resource
from fumarole.framework.statement import StatementError

from ..util import prioritize_nodes, rows_with_room, sort_nodes_by_score, validate_victims

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session
    from fumarole.framework.statement import Statement

TaskFilter = Callable[["TaskInfo"], bool]


def preemptor_fits_on_node(ssn: Session, queue: QueueInfo, preemptor: TaskInfo, node: NodeInfo) -> bool:
    """``preemptorFitsOnNode``: queue allows it, future-idle covers it, and the predicates pass."""
    return (
        ssn.allocatable(queue, preemptor)
        and preemptor.init_resreq.less_equal(node.future_idle(), ZERO)
        and ssn.predicate(preemptor, node) is None
    )


def normal_preempt(
    ssn: Session,
    stmt: Statement,
    preemptor: TaskInfo,
    task_filter: TaskFilter,
    rows: np.ndarray,
    reason: str,
) -> bool:
    if not len(rows):
        return False
    job = ssn.jobs.get(preemptor.job)
    if job is None:
        return False
    queue = ssn.queues[job.queue]
    table = ssn.node_table
    ordered = sort_nodes_by_score(rows, prioritize_nodes(ssn, preemptor, rows))
    # nodes where no choice of victims could make room fail validate_victims: skipped up front
    ordered = ordered[rows_with_room(table, preemptor.init_resreq, ordered, "preempt")]
    for row in ordered.tolist():
        node = table.nodes[row]
        preemptees = [task.clone() for task in node.tasks.values() if task_filter(task)]
        victims = ssn.preemptable(preemptor, preemptees) or []
        if validate_victims(preemptor, node, victims) is not None:
            continue
        node_stmt = ssn.statement()
        queue_of_victims = ssn.build_victims_priority_queue(victims, preemptor)
        preempted = Resource()
        fits = preemptor_fits_on_node(ssn, queue, preemptor, node)
        while queue_of_victims and not fits:
            victim = queue_of_victims.pop()
            node_stmt.evict(victim, reason)
            preempted.add(victim.resreq)
            fits = preemptor_fits_on_node(ssn, queue, preemptor, node)
        if fits:
            try:
                node_stmt.pipeline(preemptor, node.name, not preempted.is_empty())
            except StatementError:
                node_stmt.discard()
                continue
            stmt.merge(node_stmt)
            return True
        node_stmt.discard()
    return False
