"""The second level of the multi-level return-to-origin preference: which free sub-task goes where.

What it decides:

* ``invert``: node -> preferred rank from the affinity cache's rank -> node map of the job's owner
  (a node named by two ranks keeps the lower one);
* ``sort_free_tasks_by_preferred_rank``: when a group of the task tree is built from its free
  sub-tasks, a sub-task whose nodes ran ranks of this group goes to the exact position of those
  ranks; the others fill the remaining positions in the order they were found. Placing by
  position, not by sorting, keeps the rank gaps: with preferred ranks 0 and 3 only, the node of
  rank 3 stays at position 3 instead of sliding down to position 1.

The group's first rank is inferred from the lowest preferred rank among the free sub-tasks
(``minRank / groupSize * groupSize``), so the same rule works inside a rescheduled sub-tree whose
ranks do not start at 0.

Spec: seed 000 §3.1.6 (``sortFreeTasksByPreferredRank``) and §3.1.11 (the pseudo-code). The seed
places the nodes inside each level-1 group; fumarole applies the same positional rule at every
level (a sub-task's preferred rank is the lowest preferred rank of its nodes, its position that
rank's sub-group), so that level-1 groups also keep their group index and every rank, not only the
ranks of one group, goes back to its node. Upstream has no such function (it reorders afterwards,
``sortNodesByCachedRank``, inside level-1 groups only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .trees import TaskNode


def invert(rank_to_node: Mapping[int, str]) -> dict[str, int]:
    """Node -> its preferred rank (the lowest when a node is named twice)."""
    out: dict[str, int] = {}
    for rank in sorted(rank_to_node):
        out.setdefault(rank_to_node[rank], rank)
    return out


def preferred_rank(task: TaskNode, node_to_rank: Mapping[str, int]) -> int | None:
    """The lowest preferred rank among the task's nodes, None when it has none."""
    ranks = [node_to_rank[base.resource] for base in task.base_tasks() if base.resource in node_to_rank]
    return min(ranks) if ranks else None


def sort_free_tasks_by_preferred_rank(
    free: Sequence[TaskNode], group_nodes: int, child_nodes: int, node_to_rank: Mapping[str, int]
) -> list[TaskNode]:
    """The sub-tasks of one group in position order (``len(free)`` positions).

    ``group_nodes`` is the number of nodes of the group being built, ``child_nodes`` the number
    of nodes of one sub-task (1 for the nodes of a level-1 group).
    """
    tasks = list(free)
    if not node_to_rank or not tasks or child_nodes <= 0:
        return tasks
    wanted = [preferred_rank(task, node_to_rank) for task in tasks]
    known = [rank for rank in wanted if rank is not None]
    if not known:
        return tasks
    start = (min(known) // group_nodes) * group_nodes
    placed: list[TaskNode | None] = [None] * len(tasks)
    remaining: list[TaskNode] = []
    for task, rank in zip(tasks, wanted, strict=True):
        if rank is not None and start <= rank < start + group_nodes:
            slot = (rank - start) // child_nodes
            if slot < len(placed) and placed[slot] is None:
                placed[slot] = task
                continue
        remaining.append(task)
    queue = iter(remaining)
    return [task if task is not None else next(queue) for task in placed]
