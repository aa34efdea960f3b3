"""Ascend 910 (A) module, 8 chips per node in two HCCS rings of 4 (chips 0-3 and 4-7); the policy of
jobs whose pods have no ``accelerator-type`` node selector (or ``accelerator-type: module``).

What it decides (upstream ``module910x8``):

* validation: a task asks for 1, 2, 4 or 8 chips (3, 5, 6, 7 are invalid);
* predicate: 1, 2 or 4 chips need one ring with that many usable chips; 8 chips need all 8;
* score: ``8 × (allocatable × 4 − best) + (8 − usable)``, where ``best`` is the affinity score of
  the better ring (table below, rows = request 1..4, columns = usable chips in the ring 1..4; 4
  means "does not fit"; a ring with no usable chip counts as 4). A whole-node request scores
  ``best = 0``. Nodes whose rings do not fit score 0;
* chips: the ring whose usable-chip count comes first in the priority list of the request
  (1: [1, 3, 2, 4]; 2: [2, 4, 3]; 4: [4]; 8: all), left ring checked before right; its lowest chips.

===========  ===  ===  ===  ===
request       1    2    3    4
===========  ===  ===  ===  ===
1             0    2    1    3
2             4    0    2    1
3             4    4    4    4
4             4    4    4    0
===========  ===  ===  ===  ===

Examples (allocatable 8): 1 usable chip in the left ring -> 263; 3 usable left -> 253.

Spec: upstream ``internal/npu/ascend910/ascend910old/module910x8/{frame,node,task}.go``;
shared/reference/ascend-npu-plugin.md §2.2.

Deliberate difference: when the rings cannot hold the request but the node has at least as many
allocatable chips as the request, the predicate failure is resolvable (Unschedulable: evicting
may free a ring). Upstream's message for this case carries neither ``NPUResourceShortage`` nor the
topology warning, so upstream marks it unresolvable.

Extension points: as ``base.CardPolicy``; ``AFFINITY`` and ``ALLOCATION_PRIORITY`` are class
attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ..chips import popcount
from .base import CardPolicy, best_side_affinity

RING_SIZE = 4
NODE_CHIPS = 8
SCORE_WEIGHT = 8.0
NO_FIT = 4


class Module910x8Policy(CardPolicy):
    name: ClassVar[str] = "ascend910-module-x8"
    handler_name: ClassVar[str] = "huawei.com/Ascend910module"
    max_node_npu: ClassVar[int] = NODE_CHIPS
    max_card_npu: ClassVar[int] = RING_SIZE
    invalid_requests: ClassVar[frozenset[int]] = frozenset({3, 5, 6, 7})
    network_fault_attention: ClassVar[bool] = True

    AFFINITY: ClassVar[np.ndarray] = np.array(
        [[0, 2, 1, 3], [4, 0, 2, 1], [4, 4, 4, 4], [4, 4, 4, 0]], dtype=np.int64
    )
    ALLOCATION_PRIORITY: ClassVar[dict[int, tuple[int, ...]]] = {
        1: (1, 3, 2, 4),
        2: (2, 4, 3),
        4: (4,),
        8: (8,),
    }

    @staticmethod
    def _rings(usable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        masks = np.asarray(usable, dtype=np.uint64)
        left = popcount(masks & np.uint64(0xF))
        right = popcount(masks >> np.uint64(RING_SIZE))
        return left, right

    def fits(self, request: int, usable: np.ndarray, distributed: bool) -> np.ndarray:
        left, right = self._rings(usable)
        if request in (1, 2, RING_SIZE):
            return (left >= request) | (right >= request)
        if request == NODE_CHIPS:
            return (left + right) == NODE_CHIPS
        return np.zeros(len(left), dtype=bool)

    def best_scores(self, request: int, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``getNodeBestScore``: the affinity score of each node and whether it is valid."""
        left, right = self._rings(usable)
        total = left + right
        valid = (total >= 1) & (total <= NODE_CHIPS) & (left <= RING_SIZE) & (right <= RING_SIZE)
        if request == NODE_CHIPS:
            return np.zeros(len(left), dtype=np.int64), valid & (total == NODE_CHIPS)
        if not 1 <= request <= RING_SIZE:
            return np.full(len(left), NO_FIT, dtype=np.int64), np.zeros(len(left), dtype=bool)
        row = self.AFFINITY[request - 1]
        best = best_side_affinity(row, left, right, NO_FIT)
        return best, valid & (best != NO_FIT)

    def scores(
        self,
        request: int,
        usable: np.ndarray,
        unhealthy: np.ndarray,
        allocatable: np.ndarray,
        distributed: bool,
    ) -> np.ndarray:
        best, valid = self.best_scores(request, usable)
        free = popcount(usable)
        alloc = np.asarray(allocatable, dtype=np.int64)
        raw = SCORE_WEIGHT * (alloc * RING_SIZE - best) + (self.max_node_npu - free)
        return np.where(valid, raw, 0.0).astype(np.float64)

    def select(self, request: int, usable: Sequence[int], distributed: bool) -> list[int] | None:
        chips = sorted(usable)
        if request == NODE_CHIPS:
            return chips if len(chips) == NODE_CHIPS else None
        priority = self.ALLOCATION_PRIORITY.get(request)
        if priority is None:
            return None
        left = [chip for chip in chips if chip < RING_SIZE]
        right = [chip for chip in chips if chip >= RING_SIZE]
        for size in priority:
            if size == len(left):
                return left[:request]
            if size == len(right):
                return right[:request]
        return None
