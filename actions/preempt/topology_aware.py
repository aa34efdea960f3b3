"""topologyAwarePreempt: dry-run victims on candidate nodes, keep the least harmful (``preempt.go``).

1. ``dry_run``: starting at a random offset (the session's seeded generator), nodes are examined in
   turn on *clones* (node and the preemptor's cycle state). Upstream runs the dry runs in rounds of
   ``topologyAwarePreemptWorkerNum`` goroutines and, after each round, stops once ``num_candidates``
   nodes with victims were found, keeping the candidates in examination order cut to
   ``num_candidates``: the first ``num_candidates`` nodes with victims in examination order, whatever
   the number of workers. fumarole examines the nodes one at a time in that order and stops at the
   ``num_candidates``-th candidate, which gives the same candidates (a dry run changes nothing outside
   its clones) without a thread pool, which the GIL would serialise anyway; the worker number is
   accepted and has no effect (``tests/actions/test_preempt_properties.py`` checks the result
   against examining every node). Nodes where even every task preempt could evict would not make
   room (``rows_with_room``, one vector pass over the node table per preemptor) cannot be
   candidates (``validate_victims`` fails whatever the votes answer) and are passed over unsimulated.
2. ``select_victims_on_node``: remove victims greedily, lowest priority first (victim queue order),
   until the preemptor fits (simulated queue check, future-idle, simulated predicates); then
   *reprieve*: add them back highest priority first, keeping back every victim whose return still
   lets the preemptor fit. Only the remaining victims are evicted. The last victim removed is kept
   without being added back and checked when the state before its removal is known not to fit (the
   loop checked it, or the resources did not fit before any removal): adding a task back undoes its
   removal (``simulate_add_task``'s contract), so upstream's add, check and remove again end where
   they started (``REPRIEVE_EVERY_VICTIM`` makes the dry run take the long way, for the tests).
   The node copy shares the node's task objects (``NodeInfo.simulation_copy``, forked from one kept
   per node until the node changes), the preemptees are those objects, not clones (the votes and the
   simulations only read them; the copy's ``add_task`` stores clones), and the cycle state is copied
   only once the allowed victims could make room, each entry as its ``clone`` decides (proportion
   copies the allocated resources the simulations change; a skipped pod-affinity state is shared, as
   nothing changes it).
   The victim queue is popped on copies only, so it is sorted once by the job and task orders' keys
   when they can stand for the comparisons (``framework/victim_order.py``: the same pops as the heap).
   ``simulate_allocatable`` and ``simulate_predicate`` are queries (docs/extension-points.md): the
   fit asks them only when the resources fit, and the check after the greedy loop is not asked
   again when the loop stopped on a fit (same state, same answer).
3. ``pick_one_node``: among candidates, maximise in turn −(highest victim pod priority),
   −Σ(pod priority + 2^31), −(number of victims), the latest start time among the
   highest-priority victims; remaining ties go to the first candidate examined.
4. The chosen node's victims are evicted and the preemptor pipelined there, in a statement merged
   into the caller's only on success.

Pod priority here is ``spec.priority`` (0 when unset), as upstream's ``PodPriority``; a victim
without ``status.startTime`` counts as started now.

Deliberate difference: after the greedy removal upstream checks only the simulated predicates, so a
preemptor its queue cannot take (``SimulateAllocatable`` false) or that still lacks resources gets
*every* allowed victim as "necessary" and is pipelined over them, evicting pods for a task that may
not run (the failure PR #5011 / #5010 fixed for the other paths). fumarole requires the full fit
(queue, future-idle, predicates) there and otherwise rejects the node, as normal preemption does.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from fumarole.framework.api.resource import ZERO
from fumarole.framework.statement import StatementError

from ..util import rows_with_room, validate_victims
from .normal import TaskFilter

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session
    from fumarole.framework.statement import Statement

    from .arguments import PreemptArguments

INT32_SPAN = 2**31
NO_ROOM = "not enough resources even with every task preempt could evict"
EXAMINE_EVERY_NODE = False
"""Tests set it to examine every node before cutting the candidates (the reference the early stop
must agree with)."""
REPRIEVE_EVERY_VICTIM = False
"""Tests set it to add back, check and remove again even the last victim the greedy loop removed, as
upstream does (the reference the shortcut in ``select_victims_on_node`` must agree with)."""


@dataclass
class Candidate:
    node: str
    victims: list[TaskInfo]
    position: int


def pod_priority(task: TaskInfo) -> int:
    """``PodPriority``: the pod's ``spec.priority``, 0 when unset."""
    if task.pod is None or task.pod.spec.priority is None:
        return 0
    return task.pod.spec.priority


def clone_state(state: dict[str, Any]) -> dict[str, Any]:
    """A worker's own copy of the preemptor's cycle state (``CycleState.Clone``)."""
    return {
        key: value.clone() if hasattr(value, "clone") else copy.deepcopy(value)
        for key, value in state.items()
    }


def copy_for_simulation(ssn: Session, node: NodeInfo) -> NodeInfo:
    """``node.simulation_copy()``, forked from one kept per session node until the node changes
    (``NodeTable.row_cache``): a node is dry-run for many preemptors between its changes."""
    table = ssn.node_table
    row = table.index.get(node.name)
    if row is None or table.nodes[row] is not node:
        return node.simulation_copy()
    templates = table.row_cache("simulation-copy")
    template = templates.get(row)
    if not isinstance(template, type(node)):
        template = node.simulation_copy()
        templates[row] = template
    return template.fork(node)


def select_victims_on_node(
    ssn: Session,
    state: dict[str, Any],
    preemptor: TaskInfo,
    queue: QueueInfo,
    node: NodeInfo,
    task_filter: TaskFilter,
) -> tuple[list[TaskInfo], str]:
    """Victims on ``node``, greedy then reprieved; an error text explains a failure.

    ``node``, its tasks and ``state`` are only read: the simulation runs on a copy of the node
    (``NodeInfo.simulation_copy``, the accounting of ``clone`` without copying the tasks) and, once
    the allowed victims could make room, on a copy of the cycle state (``clone_state``). The victims
    returned are the session node's task objects."""
    node = copy_for_simulation(ssn, node)
    preemptees = [task for task in node.tasks.values() if task_filter(task)]
    victims_allowed = ssn.preemptable(preemptor, preemptees) or []
    invalid = validate_victims(preemptor, node, victims_allowed)
    if invalid is not None:
        return [], f"no validated victims on Node <{node.name}>: {invalid}"
    state = clone_state(state)
    simulate_remove = ssn.simulate_remove_task
    simulate_add = ssn.simulate_add_task
    simulate_allocatable = ssn.simulate_allocatable
    simulate_predicate = ssn.simulate_predicate
    request = preemptor.init_resreq

    def remove(task: TaskInfo) -> str:
        error = simulate_remove(state, preemptor, task, node)
        if error is not None:
            return str(error)
        node.remove_task(task)
        return ""

    def add(task: TaskInfo) -> str:
        error = simulate_add(state, preemptor, task, node)
        if error is not None:
            return str(error)
        node.add_task(task)
        return ""

    def fits() -> bool:
        # the resources first: the simulated checks are queries (extension-points.md), so asking
        # them only when the resources fit gives the same answer
        return (
            request.less_equal(node.future_idle(), ZERO)
            and simulate_allocatable(state, queue, preemptor)
            and simulate_predicate(state, preemptor, node) is None
        )

    # whether the preemptor's resources fit before any removal: when they do not, the first victim
    # removed cannot be reprieved (see the reprieve below)
    fit_before = request.less_equal(node.future_idle(), ZERO)
    queue_of_victims = ssn.build_victims_priority_queue(
        victims_allowed, preemptor, unchanged_while_popped=True
    )
    potential: list[TaskInfo] = []
    fitted = False
    while queue_of_victims:
        task = queue_of_victims.pop()
        potential.append(task)
        problem = remove(task)
        if problem:
            return [], problem
        if fits():
            fitted = True
            break
    if not potential:
        return [], "no preemption victims found for incoming pod"
    if not fitted:
        # upstream's final predicate check, then the full fit; both already passed when the loop
        # stopped on a fit (same state, and the simulated checks are queries)
        error = simulate_predicate(state, preemptor, node)
        if error is not None:
            return [], f"failed to predicate pod {preemptor.key} on node {node.name}: {error}"
        if not fits():
            return [], (
                f"pod {preemptor.namespace}/{preemptor.name} does not fit on node {node.name} even "
                "without every allowed victim: its queue cannot take it or the node lacks resources"
            )
    victims: list[TaskInfo] = []
    reprieve = potential
    if fitted and not REPRIEVE_EVERY_VICTIM and (len(potential) > 1 or not fit_before):
        # The last victim removed made the fit: adding it back restores the state before its removal
        # (simulate_add_task undoes simulate_remove_task, extension-points.md), where the loop found
        # no fit, or, when it was the only one, where the resources did not fit. It stays a victim
        # without being added, checked and removed again.
        victims.append(potential[-1])
        reprieve = potential[:-1]
    for task in reversed(reprieve):
        problem = add(task)
        if problem:
            return [], problem
        if not fits():
            problem = remove(task)
            if problem:
                return [], problem
            victims.append(task)
    if not victims:
        return [], f"expected at least one victim pod on node {node.name!r}"
    return victims, ""


def dry_run(
    ssn: Session,
    preemptor: TaskInfo,
    nodes: list[NodeInfo],
    offset: int,
    num_candidates: int,
    task_filter: TaskFilter,
    room: Sequence[bool] | None = None,
) -> tuple[list[Candidate], dict[str, str]]:
    """``DryRunPreemption``: the first ``num_candidates`` candidates in examination order, and why the
    nodes examined before the last of them failed. ``room[i]`` False says that no choice of victims
    can make room on ``nodes[i]`` (``rows_with_room``): it is not simulated."""
    job = ssn.jobs[preemptor.job]
    queue = ssn.queues[job.queue]
    state = ssn.get_cycle_state(preemptor.uid)
    total = len(nodes)
    candidates: list[Candidate] = []
    statuses: dict[str, str] = {}
    for position in range(total):
        index = (offset + position) % total
        node = nodes[index]
        # the bound is the session node's accounting; the copy recomputes it from the tasks, which
        # gives the same numbers unless the node's allocatable names no scalar at all (Resource's
        # subtraction then leaves scalars out): such nodes are always simulated
        if room is not None and not room[index] and node.allocatable.scalars is not None:
            statuses[node.name] = f"no validated victims on Node <{node.name}>: {NO_ROOM}"
            continue
        victims, problem = select_victims_on_node(ssn, state, preemptor, queue, node, task_filter)
        if victims:
            candidates.append(Candidate(node.name, victims, position))
            if len(candidates) >= num_candidates and not EXAMINE_EVERY_NODE:
                break
        else:
            statuses[node.name] = problem
    return candidates[:num_candidates], statuses


def earliest_start_of_highest_priority(victims: list[TaskInfo], now: float) -> float:
    """``GetEarliestPodStartTime``: earliest start among the victims of the highest pod priority."""
    highest = pod_priority(victims[0])
    earliest = _start(victims[0], now)
    for task in victims:
        priority = pod_priority(task)
        if priority == highest:
            earliest = min(earliest, _start(task, now))
        elif priority > highest:
            highest = priority
            earliest = _start(task, now)
    return earliest


def _start(task: TaskInfo, now: float) -> float:
    if task.pod is not None and task.pod.status.start_time is not None:
        return task.pod.status.start_time
    return now


def pick_one_node(candidates: list[Candidate], now: float) -> Candidate:
    """``pickOneNodeForPreemption``: the lexicographic best of four scores, first examined on ties."""
    if len(candidates) == 1:
        return candidates[0]
    scores = (
        lambda c: -pod_priority(c.victims[0]),
        lambda c: -sum(pod_priority(v) + INT32_SPAN for v in c.victims),
        lambda c: -len(c.victims),
        lambda c: earliest_start_of_highest_priority(c.victims, now),
    )
    remaining = list(candidates)
    for score in scores:
        best = max(score(c) for c in remaining)
        remaining = [c for c in remaining if score(c) == best]
        if len(remaining) == 1:
            return remaining[0]
    return remaining[0]


def topology_aware_preempt(
    ssn: Session,
    stmt: Statement,
    preemptor: TaskInfo,
    task_filter: TaskFilter,
    rows: np.ndarray,
    arguments: PreemptArguments,
    reason: str,
) -> bool:
    nodes = [ssn.node_table.nodes[row] for row in rows.tolist()]
    if not nodes or preemptor.job not in ssn.jobs:
        return False
    offset = int(ssn.rng.integers(len(nodes)))
    wanted = arguments.num_candidates(len(nodes))
    room = rows_with_room(ssn.node_table, preemptor.init_resreq, rows, "preempt").tolist()
    candidates, _ = dry_run(ssn, preemptor, nodes, offset, wanted, task_filter, room)
    if not candidates:
        return False
    best = pick_one_node(candidates, ssn.now)
    tmp = ssn.statement()
    for victim in best.victims:
        tmp.evict(victim, reason)
    try:
        tmp.pipeline(preemptor, best.node, True)
    except StatementError:
        tmp.discard()
        return False
    stmt.merge(tmp)
    return True
