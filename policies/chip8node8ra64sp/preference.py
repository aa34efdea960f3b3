"""The two-level return-to-origin preference of chip8node8ra64sp (seed 000 §3.1.4).

What it decides:

* level 1, ``prefer_origin_super_pods`` (before the normal strategies): each unready sp-block, in
  ID order, looks up the cached node of its first rank; the physical super pod of that node is its
  origin. When the origin still has at least ``spBlock`` free candidate nodes, the sp-block is
  filled there (level 2); otherwise, or when level 2 fails, it stays unready for the strategies;
* level 2, ``fill_windows`` (``selectSpBlockFromOriginSuperPod``): the sp-block is cut into
  tpBlock-aligned windows; each window takes one rack of the super pod with at least tpBlock free
  nodes — the rack holding most of the window's preferred nodes (ties: the smaller rack, then the
  rack ID). Pass 1 puts each rank's exact cached node, when it is in that rack, at the rank's
  position; pass 2 fills the remaining positions from the same rack, first with nodes that are
  nobody's preferred node (``allPreferredNodes``), only then with another rank's preferred node. So
  a window never takes another window's preferred node while a non-preferred node of the rack is
  free. No rack with tpBlock free nodes: the window, and the sp-block, fail;
* ``rack_order``: the order the normal strategies take a rack's nodes in: the job's cached nodes
  first (by rank), then the rest by name (seed: "rack 内偏好重排序").

Spec: seed 000 §3.1.4, §3.1.9 (the chip8node8ra64sp rows), §3.1.11 (the pseudo-code). Upstream
has none of it (reference §6.3: the cached super pods are reused all or nothing).

Choices where the seed is silent: which rack a window takes (above); the protected set is every
preferred node of the job (the seed's ``allPreferredNodes`` of the sp-block's rank range), so a
window does not take the node of a rank of another sp-block either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..placement import NodeView
from .blocks import Blocks
from .topology import SuperPod


def fill_windows(
    ident: int, pod: SuperPod, blocks: Blocks, preferred: Mapping[int, str], protected: set[str]
) -> list[str] | None:
    """The sp-block's nodes in rank order from one super pod, None when a window finds no rack."""
    start = ident * blocks.sp_block
    wanted = {
        rank - start: node for rank, node in preferred.items() if start <= rank < start + blocks.sp_block
    }
    racks = {rack: list(nodes) for rack, nodes in pod.racks.items()}
    nodes: list[str | None] = [None] * blocks.sp_block
    for window in range(blocks.sp_block // blocks.tp_block):
        positions = range(window * blocks.tp_block, (window + 1) * blocks.tp_block)
        window_nodes = {wanted[p] for p in positions if p in wanted}
        usable = [rack for rack in sorted(racks) if len(racks[rack]) >= blocks.tp_block]
        if not usable:
            return None
        rack = max(usable, key=lambda r: (len(window_nodes.intersection(racks[r])), -len(racks[r]), -r))
        free = racks[rack]
        for p in positions:
            node = wanted.get(p)
            if node is not None and node in free:
                nodes[p] = node
                free.remove(node)
        for p in positions:
            if nodes[p] is not None:
                continue
            pick = next((node for node in free if node not in protected), free[0])
            nodes[p] = pick
            free.remove(pick)
    return [node for node in nodes if node is not None]


def prefer_origin_super_pods(
    unready: list[int],
    pods: Mapping[int, SuperPod],
    known: Mapping[str, NodeView],
    blocks: Blocks,
    preferred: Mapping[int, str],
    selected: dict[int, list[str]],
) -> list[int]:
    """Level 1: place the sp-blocks that can go back to their origin super pod; the others, in order."""
    still: list[int] = []
    protected = set(preferred.values())
    for ident in unready:
        first = preferred.get(ident * blocks.sp_block)
        view = known.get(first) if first is not None else None
        pod = pods.get(view.super_pod_id) if view is not None else None
        if pod is None or pod.size() < blocks.sp_block:
            still.append(ident)
            continue
        nodes = fill_windows(ident, pod, blocks, preferred, protected)
        if nodes is None:
            still.append(ident)
            continue
        selected[ident] = nodes
        pod.remove(nodes)
    return still


def rack_order(preferred: Mapping[int, str]) -> Callable[[list[str]], list[str]]:
    """The order a rack's nodes are taken in: cached nodes by rank, then the others by name."""
    rank_of: dict[str, int] = {}
    for rank in sorted(preferred):
        rank_of.setdefault(preferred[rank], rank)

    def order(nodes: list[str]) -> list[str]:
        return sorted(nodes, key=lambda node: (node not in rank_of, rank_of.get(node, 0), node))

    return order
