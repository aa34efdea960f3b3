"""The resource tree (where nodes sit in the network) and the task tree (where a job's pods go).

What it decides:

* ``build_resource_trees``: one resource tree per configured topo tree with enough levels for the
  job, built from the candidate nodes' labels: the root is the topo tree, each middle level groups
  the nodes by the value of its label, the leaves are the nodes. Children are kept in name order
  (upstream: Go map order), so every walk over the tree is deterministic;
* ``TaskTree.rank_to_node``: the rank of a base task is the sum over its ancestors of
  ``index × nodes of that level``; rank ``r`` runs on the base task's node. Level-1 group ``g``
  holds ranks ``g × level1 .. (g + 1) × level1 − 1`` (``GetSuperNodeMapFromTaskTree``);
* ``task_tree_from_ranks``: the task tree of a previous placement (rank -> node), for rescheduling
  (``GetTaskTreeFromSuperNodeMap``).

Spec: shared/reference/ascend-npu-plugin.md §2.8; upstream ``plugin/supernode.go``
(``GetResourceTrees``, ``getResourceTree``, ``GetTaskTreeFromSuperNodeMap``),
``common/util/type_multilevel.go`` (``ResourceTree``, ``TaskTree``, ``FindNodeByTask``,
``RemoveBaseNodesByTask``, ``GetSubTree``, ``GetAllBaseTasks``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .levels import (
    DEFAULT_TOPO_TREE,
    MIDDLE,
    NODE,
    TOPO_TREE_LABEL,
    TREE,
    ResourceLevel,
    TaskLevel,
    trim_levels,
)


@dataclass(eq=False)
class ResourceNode:
    """A node of the network: a topo tree, a group of a middle level, or a Kubernetes node."""

    name: str
    parent: ResourceNode | None = None
    children: dict[str, ResourceNode] = field(default_factory=dict)

    def add(self, child: ResourceNode) -> ResourceNode:
        self.children[child.name] = child
        child.parent = self
        return child

    def sort(self) -> None:
        """Children in name order, recursively."""
        self.children = {name: self.children[name] for name in sorted(self.children)}
        for child in self.children.values():
            child.sort()

    def leaves(self) -> Iterator[ResourceNode]:
        if not self.children:
            yield self
            return
        for child in self.children.values():
            yield from child.leaves()

    def find_by_task(self, task: TaskNode) -> ResourceNode | None:
        """The resource node a task node names, walking down from ``self`` (``FindNodeByTask``)."""
        names: list[str] = []
        current: TaskNode | None = task
        while current is not None and current.resource != self.name:
            names.append(current.resource)
            current = current.parent
        if current is None:
            return None
        node = self
        for name in reversed(names):
            child = node.children.get(name)
            if child is None:
                return None
            node = child
        return node

    def remove_nodes_of(self, task: TaskNode) -> None:
        """Remove the leaves a task uses from the tree under ``self`` (``RemoveBaseNodesByTask``)."""
        target = self.find_by_task(task)
        if target is not None:
            _remove_recursively(target, task)


def _remove_recursively(node: ResourceNode, task: TaskNode) -> None:
    if not node.children:
        if node.parent is not None:
            node.parent.children.pop(task.resource, None)
        return
    for sub in list(task.children.values()):
        child = node.children.get(sub.resource)
        if child is not None:
            _remove_recursively(child, sub)


@dataclass(eq=False)
class ResourceTree:
    root: ResourceNode
    name: str
    levels: list[ResourceLevel]

    def subtree(self, node: ResourceNode) -> ResourceTree | None:
        depth = 0
        current = node
        while current is not self.root:
            if current.parent is None:
                return None
            current = current.parent
            depth += 1
        return ResourceTree(node, self.name, self.levels[depth:])


@dataclass(eq=False)
class TaskNode:
    """A pod (base task) or a group of pods, placed on the resource node named ``resource``."""

    index: int = 0
    resource: str = ""
    parent: TaskNode | None = None
    children: dict[int, TaskNode] = field(default_factory=dict)

    def add(self, child: TaskNode) -> None:
        self.children[child.index] = child
        child.parent = self

    def base_tasks(self) -> list[TaskNode]:
        if not self.children:
            return [self]
        out: list[TaskNode] = []
        for index in sorted(self.children):
            out += self.children[index].base_tasks()
        return out


@dataclass(eq=False)
class TaskTree:
    root: TaskNode
    levels: list[TaskLevel]
    fragment_score: int = 0
    resource_levels: list[ResourceLevel] = field(default_factory=list)

    def subtree(self, task: TaskNode) -> TaskTree | None:
        depth = 0
        current = task
        while current is not self.root:
            if current.parent is None:
                return None
            current = current.parent
            depth += 1
        return TaskTree(task, self.levels[depth:])

    def base_tasks(self) -> list[TaskNode]:
        return self.root.base_tasks()

    def rank_to_node(self) -> dict[int, str]:
        """Rank -> node of every base task, in rank order."""
        out: dict[int, str] = {}

        def walk(task: TaskNode, depth: int, start: int) -> None:
            if depth == len(self.levels) - 1:
                out[start] = task.resource
                return
            size = self.levels[depth + 1].nodes
            for index in sorted(task.children):
                walk(task.children[index], depth + 1, start + index * size)

        walk(self.root, 0, 0)
        return dict(sorted(out.items()))


def node_topo_tree(labels: Mapping[str, str]) -> str:
    return labels.get(TOPO_TREE_LABEL, DEFAULT_TOPO_TREE)


def group_name(level: ResourceLevel, node: str, labels: Mapping[str, str]) -> str | None:
    """The name of the node's group at ``level`` (None when the node lacks the level's label)."""
    if level.kind == NODE:
        return node
    if level.kind == TREE:
        return node_topo_tree(labels)
    return labels.get(level.label)


def missing_label(levels: list[ResourceLevel], labels: Mapping[str, str]) -> str:
    """The first middle-level label the node lacks ("" when it has them all)."""
    for level in levels:
        if level.kind == MIDDLE and level.label not in labels:
            return level.label
    return ""


def build_resource_tree(
    name: str, levels: list[ResourceLevel], nodes: Mapping[str, Mapping[str, str]]
) -> ResourceTree:
    root = ResourceNode(name)
    for node in sorted(nodes):
        labels = nodes[node]
        current = root
        for level in levels[1:]:
            child_name = group_name(level, node, labels)
            if child_name is None:
                break
            child = current.children.get(child_name)
            current = child if child is not None else current.add(ResourceNode(child_name))
    root.sort()
    return ResourceTree(root, name, list(levels))


def build_resource_trees(
    nodes: Mapping[str, Mapping[str, str]],
    resource_levels: Mapping[str, list[ResourceLevel]],
    task_levels: list[TaskLevel],
) -> list[ResourceTree]:
    """One tree per topo tree (name order) with at least as many levels as the job has task levels.

    ``nodes`` maps the candidate node names to their labels; nodes lacking a middle label are left
    out (the predicate rejects them).
    """
    grouped: dict[str, dict[str, Mapping[str, str]]] = {}
    for node, labels in nodes.items():
        grouped.setdefault(node_topo_tree(labels), {})[node] = labels
    trees = []
    for tree in sorted(resource_levels):
        levels = resource_levels[tree]
        if len(levels) < len(task_levels):
            continue
        used = trim_levels(levels, len(task_levels))
        members = {
            node: labels for node, labels in grouped.get(tree, {}).items() if not missing_label(used, labels)
        }
        trees.append(build_resource_tree(tree, used, members))
    return trees


def task_tree_from_ranks(
    ranks: Mapping[int, str],
    task_levels: list[TaskLevel],
    resource_levels: list[ResourceLevel],
    labels: Mapping[str, Mapping[str, str]],
) -> TaskTree | None:
    """The task tree of a placement (rank -> node), None when a node's labels are unknown."""
    used = trim_levels(resource_levels, len(task_levels))
    root = TaskNode()
    for rank in sorted(ranks):
        node = ranks[rank]
        node_labels = labels.get(node)
        if node_labels is None:
            return None
        if not root.resource:
            root.resource = node_topo_tree(node_labels)
        current = root
        remainder = rank
        for depth, level in enumerate(task_levels[1:], start=1):
            index, remainder = divmod(remainder, level.nodes)
            child = current.children.get(index)
            if child is None:
                name = group_name(used[depth], node, node_labels)
                if name is None:
                    return None
                child = TaskNode(index, name)
                current.add(child)
            current = child
    return TaskTree(root, list(task_levels), 0, used)
