"""Normal selection of vSuperPods: classify the physical super pods by what is left after the
reserve, then fill the vSuperPods greedily (``classifySuperPod`` and ``selectNodes``).

What it decides:

* ``classify``: each physical super pod with at least ``sp_block`` free candidates (any size with
  ``super-pod-affinity: soft``) adds ``len // sp_block`` to the vSuperPods the cluster can hold and
  goes into ``table[rem][col]`` with ``e = len − reserve``: ``(col, rem) = (e // sp_block,
  e % sp_block)``, or ``(0, len % sp_block)`` when ``e < 0``. chip8node8sp rejects a super pod with
  more candidates than ``super-pod-size``;
* ``select_greedy``: the unready vSuperPod IDs are filled from the last one down, in four passes:
  (1) smaller super pods first: rem 0.., col 1..remaining, taking vSuperPods while ``len − reserve
  >= sp_block``; (2) bigger ones: col remaining+1.., rem 0..; (3) using the reserve: rem
  ``sp_block−1``..0, every col, super pods by size descending, one vSuperPod each while ``len >=
  sp_block``; (4) soft affinity only, while nodes are still missing: partial super pods (rem >=
  reserve first, then rem < reserve), vSuperPod IDs from the remaining unready ones downwards, then
  new IDs counting up from the job's vSuperPod count;
* ``take_nodes``: the nodes one vSuperPod gets from one super pod: the first ``sp_block`` healthy
  ones, topped up with sub-healthy ones.

Deterministic choices (upstream iterates Go maps): super pods of one table cell in ascending ID
order (stable sorts keep it among equal sizes), nodes inside a super pod in name order.

Spec: upstream ``superpod/frame.go`` and ``chip8node8sp/frame.go`` (``classifySuperPod``,
``initRemainderTop``, ``selectNodes``, ``selectFromSmallerSuperPods``, ``selectFromBiggerSuperPods``,
``selectFromSuperPodsWithReserve``, ``selectFromSuperPodsWithSoftStrategy``,
``selectNodesFromSuperPod``, ``vPodIdRecorder``); shared/reference/ascend-npu-plugin.md §2.5 steps 4–7.

Extension points: none (pure functions over ``FreePods``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .shape import FreePods, JobShape, SelectedPods


@dataclass
class Classification:
    table: list[list[list[int]]]
    """``table[rem][col]``: physical super-pod IDs."""
    count: int
    """vSuperPods the free candidates can hold."""


def take_nodes(
    shape: JobShape, pods: FreePods, pod: int, vid: str, sub_healthy: Collection[str], selected: SelectedPods
) -> None:
    """``selectNodesFromSuperPod``: move up to ``sp_block`` nodes of super pod ``pod`` to ``vid``."""
    free = pods.get(pod, [])
    if shape.strict_block and len(free) < shape.sp_block and not shape.soft:
        return
    healthy = [name for name in free if name not in sub_healthy]
    chosen = healthy[: shape.sp_block]
    if len(chosen) < shape.sp_block:
        chosen += [name for name in free if name in sub_healthy][: shape.sp_block - len(chosen)]
    if not chosen:
        return
    selected.setdefault(vid, []).extend(chosen)
    taken = set(chosen)
    pods[pod] = [name for name in free if name not in taken]


def classify(shape: JobShape, pods: FreePods) -> Classification | str:
    """The remainder/column table, or the configuration error (chip8node8sp)."""
    block = shape.sp_block
    columns = shape.super_pod_size // block + 1
    table: list[list[list[int]]] = [[[] for _ in range(columns)] for _ in range(block)]
    count = 0
    for pod, free in sorted(pods.items()):
        size = len(free)
        if size < block and not shape.soft:
            continue
        if shape.cap_super_pod_size and size > shape.super_pod_size:
            return (
                f"super-pod-size({shape.super_pod_size}) is smaller than the {size} candidate nodes "
                f"of super pod {pod}"
            )
        count += size // block
        spare = size - shape.reserve
        col, rem = (0, size % block) if spare < 0 else (spare // block, spare % block)
        col = min(col, columns - 1)
        table[rem][col].append(pod)
    return Classification(table, count)


class _Filler:
    """One run of ``selectNodes``: the unready IDs and how many are left (filled from the last)."""

    def __init__(
        self,
        shape: JobShape,
        unready: list[str],
        pods: FreePods,
        sub_healthy: Collection[str],
        selected: SelectedPods,
    ) -> None:
        self.shape = shape
        self.unready = unready
        self.remaining = len(unready)
        self.pods = pods
        self.sub_healthy = sub_healthy
        self.selected = selected

    def take(self, pod: int, vid: str) -> None:
        take_nodes(self.shape, self.pods, pod, vid, self.sub_healthy, self.selected)

    def except_reserve(self, cell: list[int]) -> None:
        block, reserve = self.shape.sp_block, self.shape.reserve
        for pod in cell:
            while self.remaining and len(self.pods[pod]) - reserve >= block:
                self.take(pod, self.unready[self.remaining - 1])
                self.remaining -= 1
            if not self.remaining:
                return

    def with_reserve(self, cell: list[int]) -> None:
        for pod in sorted(cell, key=lambda p: -len(self.pods[p])):
            if not self.remaining:
                return
            if len(self.pods[pod]) < self.shape.sp_block:
                continue
            self.take(pod, self.unready[self.remaining - 1])
            self.remaining -= 1


def select_greedy(
    shape: JobShape,
    unready: list[str],
    classification: Classification,
    pods: FreePods,
    sub_healthy: Collection[str],
    selected: SelectedPods,
) -> None:
    """``selectNodes``: fill the unready vSuperPods (numeric order) from the table's super pods."""
    table = classification.table
    filler = _Filler(shape, unready, pods, sub_healthy, selected)
    columns = len(table[0])
    for rem in range(len(table)):
        col = 1
        while col < columns and col <= filler.remaining:
            if not filler.remaining:
                break
            filler.except_reserve(table[rem][col])
            col += 1
    for col in range(filler.remaining + 1, columns):
        for rem in range(len(table)):
            if not filler.remaining:
                break
            filler.except_reserve(table[rem][col])
    for rem in range(shape.sp_block - 1, -1, -1):
        for col in range(columns):
            if not filler.remaining:
                break
            filler.with_reserve(table[rem][col])
    if shape.soft:
        _soft(shape, filler, table)


def _soft(shape: JobShape, filler: _Filler, table: list[list[list[int]]]) -> None:
    """``selectFromSuperPodsWithSoftStrategy``: partial super pods, when nodes are still missing."""
    need = shape.npu_task_num - sum(len(nodes) for nodes in filler.selected.values())
    left = filler.remaining - 1
    right = shape.v_super_pods

    def next_id() -> str:
        nonlocal left, right
        if left < 0:
            right += 1
            return str(right - 1)
        left -= 1
        return filler.unready[left + 1]

    rems = [r for r in range(shape.sp_block - 1, -1, -1) if r >= shape.reserve]
    rems += [r for r in range(shape.sp_block) if r < shape.reserve]
    for rem in rems:
        for col in range(len(table[0])):
            for pod in sorted(table[rem][col], key=lambda p: -len(filler.pods[p])):
                if need <= 0:
                    return
                before = len(filler.pods[pod])
                if not before:
                    continue
                filler.take(pod, next_id())
                need -= before - len(filler.pods[pod])
