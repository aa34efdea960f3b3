"""Normal sp-block selection of chip8node8ra64sp: the Rack, SuperPod and MulSuperPods strategies.

What it decides, for the sp-blocks not placed yet (``unready``, ascending IDs):

* the first strategy by the job's pod count: up to 8 pods -> Rack; up to ``super-pod-size`` ->
  SuperPod; more -> MulSuperPods; a strategy that fails hands over to the next (Rack -> SuperPod ->
  MulSuperPods), except that Rack stops the chain when the job is a single ra-block or the super
  pods hold fewer whole sp-blocks than needed;
* Rack: searching the table from the job's cell upwards (best fit first), the first super pod with
  a rack of exactly the job's pod count, else the smallest larger rack, gives all the pods, in
  sp-block order;
* SuperPod: the first super pod (same search) whose racks hold enough whole tpBlocks for every
  sp-block gives them all;
* MulSuperPods: from the cell of ``super-pod-size`` downwards (largest first), super pods give
  sp-blocks while their racks (network-unhealthy nodes left out) hold a whole sp-block;
* ``select_one_sp_block``: the last unready sp-block ID takes whole tpBlocks from the racks in
  ascending size (ties: rack ID), ``floor(len / tpBlock)`` blocks per rack at most.

Nodes of a rack are taken in the order ``order`` gives (the level-2 preference: the job's cached
nodes first, by rank; then name order).

Spec: shared/reference/ascend-npu-plugin.md §2.7; upstream ``chip8node8ra64sp/schedule.go``,
``base.go``, ``frame.go`` (``selectNodesBySpecStrategy``).

Deliberate differences: a strategy that fails gives back the nodes it took before the next one runs
(upstream keeps them in the result and the next strategy appends to them); soft super-pod affinity
and the UB-memory strategy are not implemented.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from .blocks import Blocks
from .topology import SuperPod, SuperPodTable, position

RACK = "Rack"
SUPER_POD = "SuperPod"
MUL_SUPER_PODS = "MulSuperPods"
NEXT = {RACK: SUPER_POD, SUPER_POD: MUL_SUPER_PODS}
RACK_JOB_PODS = 8


class Selection:
    """The sp-blocks chosen so far (ID -> nodes in rank order) and the ones still to place."""

    def __init__(
        self,
        blocks: Blocks,
        unready: list[int],
        order: Callable[[list[str]], list[str]],
        network_healthy: Callable[[str], bool],
    ) -> None:
        self.blocks = blocks
        self.unready = unready
        self.order = order
        self.network_healthy = network_healthy
        self.selected: dict[int, list[str]] = {}
        self.remaining = len(unready)

    def take(self, pod: SuperPod, rack: int, count: int) -> list[str]:
        nodes = self.order(pod.racks[rack])
        taken = nodes[:count]
        pod.racks[rack] = nodes[count:]
        return taken

    def select_one_sp_block(self, pod: SuperPod) -> None:
        blocks = self.blocks
        ident = self.unready[self.remaining - 1]
        wanted = blocks.sp_block // blocks.tp_block
        chosen = self.selected.setdefault(ident, [])
        for rack in sorted(pod.racks, key=lambda r: (len(pod.racks[r]), r)):
            if not wanted:
                break
            count = min(len(pod.racks[rack]) // blocks.tp_block, wanted)
            wanted -= count
            chosen += self.take(pod, rack, count * blocks.tp_block)
        self.remaining -= 1


def _cells_upward(table: SuperPodTable, start: tuple[int, int]) -> list[list[SuperPod]]:
    row, column = start
    out = []
    for j in range(column, table.columns):
        for i in range(row, len(table.cells)):
            if table.cells[i][j]:
                out.append(table.cells[i][j])
        row = 0
    return out


def _cells_downward(table: SuperPodTable, start: tuple[int, int]) -> list[list[SuperPod]]:
    row, column = start
    out = []
    for j in range(min(column, table.columns - 1), -1, -1):
        for i in range(min(row, len(table.cells) - 1), -1, -1):
            if table.cells[i][j]:
                out.append(table.cells[i][j])
        row = len(table.cells) - 1
    return out


def _rack(selection: Selection, table: SuperPodTable) -> tuple[bool, str]:
    blocks = selection.blocks
    if table.sp_count < len(selection.unready):
        return False, (
            f"the super pods hold {table.sp_count} whole sp-block(s) of {blocks.sp_block} nodes, "
            f"the job needs {len(selection.unready)}"
        )
    for cell in _cells_upward(table, position(blocks.pods, blocks.sp_block)):
        for pod in cell:
            best = None
            for rack in sorted(pod.racks):
                size = len(pod.racks[rack])
                if size == blocks.pods:
                    best = rack
                    break
                if size > blocks.pods and (best is None or size < len(pod.racks[best])):
                    best = rack
            if best is None:
                continue
            taken = selection.take(pod, best, blocks.pods)
            for index, ident in enumerate(selection.unready):
                selection.selected[ident] = taken[index * blocks.sp_block : (index + 1) * blocks.sp_block]
            selection.remaining = 0
            return False, ""
    if blocks.pods // blocks.tp_block == 1:
        return False, f"no rack holds the job's ra-block of {blocks.tp_block} node(s) in any super pod"
    return True, f"no rack holds the job's {blocks.pods} pods"


def _super_pod(selection: Selection, table: SuperPodTable) -> tuple[bool, str]:
    blocks = selection.blocks
    for cell in _cells_upward(table, position(blocks.pods, blocks.sp_block)):
        for pod in cell:
            whole = sum(len(nodes) // blocks.tp_block for nodes in pod.racks.values())
            if whole < selection.remaining * blocks.sp_block // blocks.tp_block:
                continue
            while selection.remaining:
                selection.select_one_sp_block(pod)
            return False, ""
    return True, f"no super pod holds the job's {len(selection.unready)} sp-block(s) in whole ra-blocks"


def _mul_super_pods(selection: Selection, table: SuperPodTable) -> tuple[bool, str]:
    blocks = selection.blocks
    for cell in _cells_downward(table, position(blocks.super_pod_size, blocks.sp_block)):
        for pod in cell:
            for rack in pod.racks:
                pod.racks[rack] = [node for node in pod.racks[rack] if selection.network_healthy(node)]
            while selection.remaining:
                whole = sum(len(nodes) // blocks.tp_block for nodes in pod.racks.values())
                if whole < blocks.sp_block // blocks.tp_block:
                    break
                selection.select_one_sp_block(pod)
            if not selection.remaining:
                return False, ""
    return False, (
        f"the super pods hold {len(selection.unready) - selection.remaining} of the job's "
        f"{len(selection.unready)} sp-block(s) in whole ra-blocks"
    )


STRATEGIES = {RACK: _rack, SUPER_POD: _super_pod, MUL_SUPER_PODS: _mul_super_pods}


def first_strategy(blocks: Blocks) -> str:
    if blocks.pods <= RACK_JOB_PODS:
        return RACK
    if blocks.pods <= blocks.super_pod_size:
        return SUPER_POD
    return MUL_SUPER_PODS


def select_by_strategy(selection: Selection, table: SuperPodTable) -> str:
    """Place the unready sp-blocks; "" on success, else the last strategy's reason."""
    if not selection.unready:
        return ""
    name: str | None = first_strategy(selection.blocks)
    reason = ""
    while name is not None:
        saved = (copy.deepcopy(table), {ident: list(nodes) for ident, nodes in selection.selected.items()})
        go_on, reason = STRATEGIES[name](selection, table)
        if not reason:
            return ""
        table, selection.selected = saved
        selection.remaining = len(selection.unready)
        name = NEXT.get(name) if go_on else None
    return reason
