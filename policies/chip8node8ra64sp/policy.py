"""The chip8node8ra64sp card policy: 8-NPU nodes in super pods and racks, the job placed at once.

What it decides:

* predicate (``fits``): the node has the task's NPUs free (upstream's base count check); nodes
  without a super pod (``SuperPodID`` < 0) or a rack are not candidates;
* placement (``place_job``): for a fault job with a previous placement, the missing ranks replaced
  inside their racks (``rescheduling``); otherwise, or when that fails, the blocks (``blocks``),
  the physical super pods of the candidates
  (``topology``), level 1 of the preference for each sp-block (``preference``), then the strategy
  chain for the rest (``strategies``); rank ``r`` runs on position ``r % spBlock`` of sp-block
  ``r // spBlock``;
* score: the plugin gives the rank's node 1e8, every other node 0 (``scoreNodeForReadyJob``).

Spec: seed 000 §3.1.4; shared/reference/ascend-npu-plugin.md §2.7; upstream
``internal/npu/policy/chip8node8ra64sp/frame.go`` (``ScoreBestNPUNodes``, ``selectNodesForJob``).

Not implemented (upstream has them): the later stages of the fault-job path (another rack after 3
pending sessions, the whole job after 12), the inference-service path, soft super-pod affinity,
the UB-memory strategy, the per-node checks on the network-unhealthy annotation for MulSuperPods
(unhealthy nodes are only left out of MulSuperPods).
Block errors are reported when the job is placed (the pending reason), not by ``job_valid``.

Extension points: the ``fumarole.policies`` entry point ``npu-chip8-node8-ra64-sp``; ``place_job``
is the ``policies.placement.JobPlacementPolicy`` contract.
"""

from __future__ import annotations

from typing import ClassVar

from ..card.base import CardPolicy
from ..chips import NPU
from ..placement import PlacementRequest, PlacementResult
from .blocks import NODE_NPU, BlockError, blocks_of
from .preference import prefer_origin_super_pods, rack_order
from .rescheduling import replace_in_racks
from .strategies import Selection, select_by_strategy
from .topology import super_pods, table_of

HANDLER = "8p-8-ra64-sp"
POLICY = "chip8-node8-ra64-sp"


class Chip8Node8Ra64SpPolicy(CardPolicy):
    name: ClassVar[str] = "npu-chip8-node8-ra64-sp"
    handler_name: ClassVar[str] = HANDLER
    resource: ClassVar[str] = NPU
    max_node_npu: ClassVar[int] = NODE_NPU
    max_card_npu: ClassVar[int] = NODE_NPU
    network_fault_attention: ClassVar[bool] = True

    def place_job(self, request: PlacementRequest) -> PlacementResult:
        try:
            blocks = blocks_of(request.annotations, list(request.requests), request.settings)
        except BlockError as error:
            return PlacementResult(None, f"{POLICY}: {error}")
        if request.previous:
            kept = replace_in_racks(request.previous, request.candidates, request.known, blocks)
            if kept is not None:
                return PlacementResult(kept, "", "rescheduled")
        pods = super_pods(request.candidates.values())
        unready = list(range(blocks.pods // blocks.sp_block))
        selected: dict[int, list[str]] = {}
        unready = prefer_origin_super_pods(unready, pods, request.known, blocks, request.preferred, selected)
        try:
            table = table_of(pods, blocks.super_pod_size, blocks.sp_block)
        except ValueError as error:
            return PlacementResult(None, f"{POLICY}: {error}")
        selection = Selection(
            blocks,
            unready,
            rack_order(request.preferred),
            lambda node: request.known[node].network_healthy if node in request.known else False,
        )
        reason = select_by_strategy(selection, table)
        if reason:
            return PlacementResult(None, f"{POLICY}: {reason}")
        selected.update(selection.selected)
        ranks = {
            ident * blocks.sp_block + index: node
            for ident in sorted(selected)
            for index, node in enumerate(selected[ident])
        }
        path = "origin" if len(unready) < blocks.pods // blocks.sp_block else "strategy"
        return PlacementResult(dict(sorted(ranks.items())), "", path)
