"""The job-level decision of multi-level scheduling (``tryScheduleTaskInSingleTree``): which node each
rank of a job gets.

What it decides, given the candidate nodes (those that passed the predicate, with their labels):

1. **Reschedule path** (the job has a previous placement, e.g. a fault job whose ranks' nodes are
   known): when every previous node is still a candidate, the placement is reused as it is; else
   the nodes the job keeps are left out of the resource trees and ``Reschedule`` replaces only the
   missing ones, with the affinity cache's rank -> node map as preference
   (``ScheduleWithPreference`` inside ``rescheduleSubTask``). When that fails on every topo tree,
   the job is scheduled as in 2.
2. **Non-reschedule path**: ``ScheduleWithPreference`` on every topo tree's resource tree with the
   cache's rank -> node map of the job's owner; the task tree with the lowest fragment score wins
   (ties: the first topo tree by name). A job that configures only level1 is first tried with all
   its level-1 groups under one level-2 group (a padded ``level2`` = the whole job).

The result maps every rank ``0 .. N-1`` to a node.

Spec: seed 000 §2.4.2, §3.1.6 (the two paths, both with ``ScheduleWithPreference``), §3.1.8 (the
owner UID), §3.1.9; shared/reference/ascend-npu-plugin.md §2.8, §6.4; upstream
``multilevelscheduling/frame.go`` (``selectNodesForMultiLevelJob``, ``tryScheduleInStrictRules``,
``scheduleFromAllNodes``, ``tryScheduleWithHistory``, ``rescheduleWithSuperPods``).

A reschedule that does not fit is widened a level at a time (``expandFaultLevel``: the missing
nodes plus every node of the group above each missing sub-task) until it fits or covers the job.

Deliberate differences: upstream allows the wider scopes only after some pending sessions (pod
level first, a level-1 group after 6 sessions, the job after 12 or when rank 0 failed) and leaves
the job pending meanwhile; fumarole widens in the same session, and when even the job-wide scope
does not fit on the job's topo tree it schedules the job anew with the preference (which keeps
every rank whose node is still free on that node).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .levels import LEVEL_PREFIX, ResourceLevel, TaskLevel
from .rescheduling import largest_fault_subtree, reschedule
from .scheduling import schedule
from .trees import TaskTree, build_resource_trees, node_topo_tree, task_tree_from_ranks

REUSED = "reused"
RESCHEDULED = "rescheduled"
SCHEDULED = "scheduled"


@dataclass(frozen=True)
class Placement:
    """Rank -> node for a whole job, the topo tree used, its fragment score and the path taken."""

    ranks: dict[int, str]
    tree: str
    fragment: int
    path: str


def _schedule_all(
    candidates: Mapping[str, Mapping[str, str]],
    resource_levels: Mapping[str, list[ResourceLevel]],
    task_levels: list[TaskLevel],
    preferred: Mapping[int, str],
) -> Placement | None:
    best: Placement | None = None
    for tree in build_resource_trees(candidates, resource_levels, task_levels):
        result = schedule(tree, task_levels, preferred)
        if result is None:
            continue
        if best is None or result.fragment_score < best.fragment:
            best = Placement(result.rank_to_node(), tree.name, result.fragment_score, SCHEDULED)
    return best


def schedule_job(
    candidates: Mapping[str, Mapping[str, str]],
    resource_levels: Mapping[str, list[ResourceLevel]],
    task_levels: list[TaskLevel],
    preferred: Mapping[int, str] | None = None,
) -> Placement | None:
    """The non-reschedule path (2 above)."""
    wanted = dict(preferred or {})
    if len(task_levels) == 3:
        padded = [task_levels[0], TaskLevel(f"{LEVEL_PREFIX}2", task_levels[0].nodes), *task_levels[1:]]
        found = _schedule_all(candidates, resource_levels, padded, wanted)
        if found is not None:
            return found
    return _schedule_all(candidates, resource_levels, task_levels, wanted)


def reschedule_job(
    candidates: Mapping[str, Mapping[str, str]],
    labels: Mapping[str, Mapping[str, str]],
    resource_levels: Mapping[str, list[ResourceLevel]],
    task_levels: list[TaskLevel],
    previous: Mapping[int, str],
    preferred: Mapping[int, str] | None = None,
) -> Placement | None:
    """The reschedule path (1 above); ``labels`` holds every known node's labels (gone ones too)."""
    wanted = dict(preferred or {})
    missing = [previous[rank] for rank in sorted(previous) if previous[rank] not in candidates]
    first = previous[min(previous)] if previous else ""
    tree_name = node_topo_tree(labels.get(first, {}))
    if not missing:
        return Placement(dict(sorted(previous.items())), tree_name, 0, REUSED)
    levels = resource_levels.get(tree_name)
    if levels is not None and len(previous) == task_levels[0].nodes:
        reference = task_tree_from_ranks(previous, task_levels, levels, labels)
        while reference is not None:
            kept = set(previous.values()) - set(missing)
            free = {node: node_labels for node, node_labels in candidates.items() if node not in kept}
            old = task_tree_from_ranks(previous, task_levels, levels, labels)
            for tree in build_resource_trees(free, {tree_name: levels}, task_levels):
                if old is None:
                    break
                result = reschedule(tree, old, missing, wanted)
                if result is not None:
                    return Placement(result.rank_to_node(), tree_name, result.fragment_score, RESCHEDULED)
            wider = widen(reference, missing)
            if wider == missing:
                break
            missing = wider
    return schedule_job(candidates, resource_levels, task_levels, wanted)


def widen(tree: TaskTree, missing: list[str]) -> list[str]:
    """The missing nodes with, for each, every node of the group above its largest missing sub-task
    (``expandFaultLevel``): the next, wider rescheduling scope. Rank order."""
    faults = set(missing)
    wider = set(missing)
    for node in missing:
        fault = largest_fault_subtree(tree, node, faults)
        if fault is None or fault.root.parent is None:
            continue
        parent = tree.subtree(fault.root.parent)
        if parent is not None:
            wider.update(base.resource for base in parent.base_tasks())
    return [base.resource for base in tree.base_tasks() if base.resource in wider]
