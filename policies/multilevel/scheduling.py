"""``Schedule`` / ``ScheduleWithPreference``: a task tree for a job on one resource tree.

What it decides (upstream ``scheduling.go``, with the seed's preference):

* every resource node, bottom up, gets an *allocatable task count* (how many groups of the task
  level at its depth it can hold: a node holds 1; a group the sum of its non-reserved children's
  counts divided by the number of sub-tasks per task) and a *fragment score* (what would be left
  over: ``(Σ child count % sub-tasks per task) × nodes per sub-task + 10 × Σ child fragments``);
  on level 1 the first ``reservedNode`` nodes (name order) are reserved, and a group with fewer
  nodes than that has "insufficient reserve" and is skipped;
* ``traverse_siblings`` visits the usable children of a node in two passes: first those whose
  count does not exceed the tasks still to place, by ``compareSmallerTreeNodes`` (fragment score,
  then count), then the rest by ``compareBiggerTreeNodes`` (count, then fragment score). A subtree
  that fails still uses up its share of the tasks, so the walk moves on to the next sibling;
* when that finds nothing, the nodes not visited yet, reserved ones included, are tried group by
  group (``traverseLevelForRemainingNodes``);
* a group is complete when it has as many free sub-tasks as it needs; it then becomes a free
  sub-task of its parent, up to the job.

The preference (seed 000 §3.1.6, ``ScheduleWithPreference``): with the affinity cache's
rank -> node map, a subtree holding a preferred node (``hasPreferredDescendant``) is visited before
its siblings in both passes — a stable sort, so preferred subtrees keep their fragment order among
themselves — and each group places its sub-tasks by preferred rank (``preference``). Without a
preference the walk is upstream's. Ties that upstream leaves to Go map order go to the name order.

Spec: seed 000 §2.4.2, §3.1.6, §3.1.9, §3.1.11; shared/reference/ascend-npu-plugin.md §2.8;
upstream ``internal/npu/policy/multilevelscheduling/scheduling.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .levels import ResourceLevel, TaskLevel
from .preference import invert, sort_free_tasks_by_preferred_rank
from .trees import ResourceNode, ResourceTree, TaskNode, TaskTree

FRAGMENT_SCALE = 10
"""Upstream ``defaultFragmentScoreScale``."""


@dataclass(eq=False)
class _TreeNode:
    depth: int
    resource: ResourceNode
    parent: _TreeNode | None = None
    children: dict[str, _TreeNode] = field(default_factory=dict)
    traversed: bool = False
    allocatable: int = 1
    fragment: int = 0
    free: list[TaskNode] = field(default_factory=list)
    reserved: bool = False
    sufficient_reserve: bool = True
    preferred: bool = False

    @property
    def name(self) -> str:
        return self.resource.name


@dataclass
class _Level:
    task: TaskLevel
    resource: ResourceLevel
    nodes: list[_TreeNode]


class _SchedulingTree:
    def __init__(
        self, tree: ResourceTree, task_levels: list[TaskLevel], node_to_rank: Mapping[str, int]
    ) -> None:
        self.node_to_rank = node_to_rank
        self.task_levels = task_levels
        self.resource_levels = tree.levels
        self.root = _TreeNode(0, tree.root)
        self.levels: list[_Level] = []
        for depth, task_level in enumerate(task_levels):
            if depth == 0:
                nodes = [self.root]
            else:
                nodes = []
                for parent in self.levels[depth - 1].nodes:
                    for name, resource in parent.resource.children.items():
                        child = _TreeNode(depth, resource, parent)
                        parent.children[name] = child
                        nodes.append(child)
            self.levels.append(_Level(task_level, tree.levels[depth], nodes))
        for depth in range(len(self.levels) - 1, -1, -1):
            for node in self.levels[depth].nodes:
                self._init_node(node)

    # ------------------------------------------------------------------ state
    def _is_base(self, node: _TreeNode) -> bool:
        return node.depth == len(self.levels) - 1

    def _sub_tasks(self, depth: int) -> int:
        if depth >= len(self.levels) - 1:
            return 0
        return self.levels[depth].task.nodes // self.levels[depth + 1].task.nodes

    def _init_node(self, node: _TreeNode) -> None:
        node.reserved = False
        node.sufficient_reserve = True
        node.traversed = False
        node.allocatable = 1
        node.fragment = 0
        if self._is_base(node):
            node.preferred = node.name in self.node_to_rank
            return
        node.preferred = any(child.preferred for child in node.children.values())
        max_reserved = self.levels[node.depth].resource.reserved
        reserved = fragments = count = 0
        for child in node.children.values():
            if reserved < max_reserved:
                reserved += 1
                child.reserved = True
            if child.reserved or not child.sufficient_reserve:
                continue
            fragments += child.fragment
            count += child.allocatable
        if reserved < max_reserved:
            node.sufficient_reserve = False
        per_task = self._sub_tasks(node.depth)
        child_nodes = self.levels[node.depth + 1].task.nodes
        node.allocatable = count // per_task
        node.fragment = (count % per_task) * child_nodes + fragments * FRAGMENT_SCALE

    # ------------------------------------------------------------------ walk
    def schedule(self) -> TaskTree | None:
        found = self._traverse_tree(self.root, 1)
        if found is not None:
            return found
        return self._traverse_remaining(len(self.levels) - 1)

    def _traverse_tree(self, node: _TreeNode, unscheduled: int) -> TaskTree | None:
        if self._is_base(node):
            return self._build(node)
        siblings = {
            name: child
            for name, child in node.children.items()
            if not child.reserved and child.sufficient_reserve and child.allocatable > 0
        }
        return self._traverse_siblings(siblings, unscheduled * self._sub_tasks(node.depth))

    def _traverse_siblings(self, siblings: dict[str, _TreeNode], unscheduled: int) -> TaskTree | None:
        smaller = sorted(
            siblings.values(), key=lambda n: (not n.preferred, n.fragment, n.allocatable, n.name)
        )
        for node in smaller:
            if node.allocatable > unscheduled:
                continue
            del siblings[node.name]
            found, unscheduled = self._traverse_node(node, unscheduled)
            if found is not None or unscheduled <= 0:
                return found
        bigger = sorted(siblings.values(), key=lambda n: (not n.preferred, n.allocatable, n.fragment, n.name))
        for node in bigger:
            found, unscheduled = self._traverse_node(node, unscheduled)
            if found is not None or unscheduled <= 0:
                return found
        return None

    def _traverse_node(self, node: _TreeNode, unscheduled: int) -> tuple[TaskTree | None, int]:
        node.traversed = True
        count = min(node.allocatable, unscheduled)
        found = self._traverse_tree(node, count)
        if found is not None:
            return found, unscheduled
        return None, unscheduled - count

    def _traverse_remaining(self, depth: int) -> TaskTree | None:
        if depth < 1:
            return None
        parent_level = self.levels[depth - 1]
        groups: list[list[list[_TreeNode]]] = [[] for _ in range(parent_level.resource.reserved + 1)]
        for parent in parent_level.nodes:
            reserved = 0
            plain: list[_TreeNode] = []
            last: list[_TreeNode] | None = None
            for child in parent.children.values():
                if child.traversed:
                    continue
                if child.reserved:
                    reserved += 1
                    last = [child]
                    groups[reserved].append(last)
                else:
                    plain.append(child)
            if plain:
                if last is None:
                    groups[reserved].append(plain)
                else:
                    last.extend(plain)
        for reserved in range(len(groups) - 1, -1, -1):
            for members in groups[reserved]:
                count = sum(member.allocatable for member in members)
                found = self._traverse_siblings({member.name: member for member in members}, count)
                if found is not None:
                    return found
        return None

    def _build(self, node: _TreeNode) -> TaskTree | None:
        current = node
        while True:
            needed = self._sub_tasks(current.depth)
            if len(current.free) < needed:
                return None
            chosen = current.free[:needed]
            if self.node_to_rank and needed:
                chosen = sort_free_tasks_by_preferred_rank(
                    chosen,
                    self.levels[current.depth].task.nodes,
                    self.levels[current.depth + 1].task.nodes,
                    self.node_to_rank,
                )
            task = TaskNode(resource=current.name)
            for index, child in enumerate(chosen):
                child.index = index
                task.add(child)
            current.free = current.free[needed:]
            if current.depth == 0:
                return TaskTree(task, list(self.task_levels), self.root.fragment, list(self.resource_levels))
            parent = current.parent
            if parent is None:
                return None
            parent.free.append(task)
            current = parent


def schedule(
    tree: ResourceTree, task_levels: list[TaskLevel], preferred: Mapping[int, str] | None = None
) -> TaskTree | None:
    """``ScheduleWithPreference`` (``Schedule`` when ``preferred`` is empty); None when the job does not fit.

    ``preferred`` is rank -> node (the affinity cache's map of the job's owner).
    """
    if len(tree.levels) != len(task_levels):
        raise ValueError(
            f"resource tree {tree.name!r} has {len(tree.levels)} levels, the job {len(task_levels)}"
        )
    return _SchedulingTree(tree, task_levels, invert(preferred or {})).schedule()
