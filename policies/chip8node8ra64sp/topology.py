"""Super pods and racks of the candidate nodes, and the super-pod table the strategies search.

What it decides:

* ``super_pods``: candidate nodes grouped by their device-info ``SuperPodID`` (nodes with a negative
  ID are not super-pod nodes and are left out); inside a super pod, racks by ``RackID``; nodes of a
  rack in name order (upstream: Go map order);
* ``SuperPodTable`` (``getSuperPodsInfo``): a super pod of ``n`` nodes goes to row
  ``(n - 1) % spBlock`` and column ``(n - 1) // spBlock``; super pods of one cell in ID order;
  ``sp_count`` is the number of whole sp-blocks the super pods hold. A super pod larger than
  ``super-pod-size`` is an error;
* ``position`` (``getPositionInTop``): the cell of a count of nodes.

Spec: shared/reference/ascend-npu-plugin.md §2.7, §5; upstream ``chip8node8ra64sp/utils.go``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..placement import NodeView


@dataclass
class SuperPod:
    """The free candidate nodes of one physical super pod, rack ID -> node names (name order)."""

    ident: int
    racks: dict[int, list[str]] = field(default_factory=dict)

    def size(self) -> int:
        return sum(len(nodes) for nodes in self.racks.values())

    def remove(self, names: Iterable[str]) -> None:
        gone = set(names)
        for rack in list(self.racks):
            self.racks[rack] = [node for node in self.racks[rack] if node not in gone]


def super_pods(candidates: Iterable[NodeView]) -> dict[int, SuperPod]:
    pods: dict[int, SuperPod] = {}
    for view in sorted(candidates, key=lambda v: v.name):
        if view.super_pod_id < 0:
            continue
        pod = pods.setdefault(view.super_pod_id, SuperPod(view.super_pod_id))
        pod.racks.setdefault(view.rack_id, []).append(view.name)
    return dict(sorted(pods.items()))


def position(count: int, sp_block: int) -> tuple[int, int]:
    sp_block = sp_block or 1
    return (count - 1) % sp_block, (count - 1) // sp_block


@dataclass
class SuperPodTable:
    cells: list[list[list[SuperPod]]]
    sp_count: int

    @property
    def columns(self) -> int:
        return len(self.cells[0]) if self.cells else 0


def table_of(pods: dict[int, SuperPod], super_pod_size: int, sp_block: int) -> SuperPodTable:
    cells: list[list[list[SuperPod]]] = [
        [[] for _ in range(super_pod_size // sp_block + 1)] for _ in range(sp_block)
    ]
    count = 0
    for pod in pods.values():
        size = pod.size()
        if size > super_pod_size:
            raise ValueError(
                f"super pod {pod.ident} has {size} candidate nodes, more than super-pod-size {super_pod_size}"
            )
        if not size:
            continue
        count += size // sp_block
        row, column = position(size, sp_block)
        cells[row][column].append(pod)
    return SuperPodTable(cells, count)
