"""``Reschedule``: replace the nodes of a placed job that are gone, moving as little as possible.

What it decides: for each missing node (in the order given), the largest sub-task of the previous
task tree whose nodes are all missing (``findLargestFaultSubTree``: climb while every node of the
parent's sub-task is missing) is scheduled again inside the resource subtree of its parent's group
(``rescheduleSubTask``), and put back at the same index, so every other rank keeps its node. When
the whole job is missing it is scheduled from scratch. The resource tree passed in holds the free
candidate nodes only (the nodes the job keeps are left out by the caller).

The preference (seed 000 §3.1.6): the sub-task is scheduled with ``ScheduleWithPreference`` and the
rank -> node map of the affinity cache, so a replaced rank still goes back to its cached node when
that node is free again.

Spec: seed 000 §2.4.2, §3.1.6; shared/reference/ascend-npu-plugin.md §2.8; upstream
``internal/npu/policy/multilevelscheduling/rescheduling.go``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .levels import TaskLevel
from .scheduling import schedule
from .trees import ResourceTree, TaskTree


def largest_fault_subtree(tree: TaskTree, fault_node: str, faults: set[str]) -> TaskTree | None:
    """The largest sub-task holding ``fault_node`` whose nodes are all in ``faults``."""
    task = next((base for base in tree.base_tasks() if base.resource == fault_node), None)
    if task is None:
        return None
    for _ in range(len(tree.levels)):
        if task.parent is None:
            return tree
        parent_tree = tree.subtree(task.parent)
        if parent_tree is None:
            return None
        if any(base.resource not in faults for base in parent_tree.base_tasks()):
            return tree.subtree(task)
        task = task.parent
    return None


def reschedule_sub_task(
    resources: ResourceTree, fault: TaskTree, preferred: Mapping[int, str] | None = None
) -> bool:
    """Schedule the fault sub-task again under its parent's group; False when it does not fit."""
    parent_task = fault.root.parent
    if parent_task is None:
        return False
    parent_node = resources.root.find_by_task(parent_task)
    if parent_node is None:
        return False
    parent_tree = resources.subtree(parent_node)
    if parent_tree is None:
        return False
    levels = [TaskLevel("", fault.levels[0].nodes), *fault.levels]
    result = schedule(parent_tree, levels, preferred)
    if result is None:
        return False
    new = result.root.children.get(0)
    if new is None:
        return False
    new.index = fault.root.index
    parent_task.add(new)
    parent_node.remove_nodes_of(new)
    return True


def reschedule(
    resources: ResourceTree,
    previous: TaskTree,
    missing: Sequence[str],
    preferred: Mapping[int, str] | None = None,
) -> TaskTree | None:
    """The previous task tree with its missing nodes replaced, None when a replacement does not fit."""
    faults = set(missing)
    for node in missing:
        if node not in faults:
            continue
        fault = largest_fault_subtree(previous, node, faults)
        if fault is None:
            return None
        if len(fault.levels) == len(resources.levels):
            return schedule(resources, previous.levels, preferred)
        if not reschedule_sub_task(resources, fault, preferred):
            return None
        for base in fault.base_tasks():
            faults.discard(base.resource)
    if faults:
        return None
    previous.resource_levels = list(resources.levels)
    return previous
