"""The fault-job path of chip8node8ra64sp: a job whose ranks' nodes are known (its previous placement)
keeps every rank whose node is still usable, and a rank whose node is gone takes a free node of the
same rack, so its tpBlock window stays in one rack and its sp-block in one super pod.

What it decides: for each missing rank, in rank order, the rack of its window (the rack of the
window's first still-usable previous node; the missing node's own rack when the whole window is
gone) gives a free candidate node no rank of the job ran on, by name; failing that, any free
candidate of the rack (by name). When a missing rank finds no node in its rack, the fault path gives
up and the job goes through the normal path (the two-level preference, then the strategies).

Spec: seed 000 §2.4.1 (the existing fault path: healthy pods stay on their nodes, the whole
vSuperPod stays in its physical super pod); shared/reference/ascend-npu-plugin.md §2.7 (fault
re-placement: "replace a fault node with a free node in the same rack"); upstream
``chip8node8ra64sp/reschedule.go``.

Deliberate differences: upstream replaces inside the rack for the first 3 pending sessions, then
moves the rack's fault part to another rack, then (after 12) reschedules the job; it waits while a
fault pod is being deleted, and skips the path when rank 0 failed. fumarole tries the same rack
and otherwise goes straight to the normal path, in the same session.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..placement import NodeView
from .blocks import Blocks


def replace_in_racks(
    previous: Mapping[int, str],
    candidates: Mapping[str, NodeView],
    known: Mapping[str, NodeView],
    blocks: Blocks,
) -> dict[int, str] | None:
    """Rank -> node with the missing ranks replaced inside their window's rack; None when impossible."""
    if set(previous) != set(range(blocks.pods)):
        return None
    missing = [rank for rank in sorted(previous) if previous[rank] not in candidates]
    if not missing:
        return dict(sorted(previous.items()))
    used = set(previous.values())
    placed = dict(previous)
    taken: set[str] = set()
    for rank in missing:
        start = rank - rank % blocks.tp_block
        window = [previous[r] for r in range(start, start + blocks.tp_block)]
        anchor = next((node for node in window if node in candidates), previous[rank])
        view = known.get(anchor)
        if view is None:
            return None
        rack = [
            other
            for other in sorted(candidates)
            if (candidates[other].super_pod_id, candidates[other].rack_id)
            == (view.super_pod_id, view.rack_id)
            and other not in taken
            and other not in used
        ]
        if not rack:
            return None
        placed[rank] = rack[0]
        taken.add(rack[0])
    return dict(sorted(placed.items()))
