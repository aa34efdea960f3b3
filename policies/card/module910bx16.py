"""Ascend 910B A+X module, 16 chips per node in two HCCS groups of 8 (chips 0-7 and 8-15)
(``accelerator-type: module-910b-16``, or policy ``chip8-node16``).

What it decides (upstream ``module910bx16`` / ``Base910b``):

* validation: a task asks for 1..16 chips, not 9, 11, 13 or 15;
* predicate: 16 chips need all 16 usable; otherwise one group with enough usable chips, or, above
  8, at most ``cross`` chips, where ``cross`` = 2 × min(left, right) for a distributed job and
  2 × the number of aligned pairs (i, i + 8) both usable for a single-task job;
* score: ``16 × (allocatable − best) + (16 − usable)``; ``best`` comes from the 8 × 8 affinity table
  ``A[r][c] = c − r if c >= r else 8`` (8 = does not fit): for requests above 8,
  ``A[req/2 − 1][cross/2 − 1]``, else the better group ``A[req − 1][group − 1]``; 16 chips: 0;
* chips: the first group (left, right, then the cross list) whose size comes first in the priority
  list (``req..8`` for ``req <= 8``, ``req, req + 2, .., 16`` above), its first ``req`` chips. The
  cross list pairs the groups' chips in order (distributed) or the aligned pairs (single task), and
  is used only when it holds more than 8 chips.

Spec: upstream ``internal/npu/ascend910/ascend910b/base.go`` and ``module910bx16/frame.go``;
shared/reference/ascend-npu-plugin.md §2.3.

Deliberate difference: as for the 910 x8 policy, a topology failure on a node whose allocatable
chips cover the request is resolvable (upstream: unresolvable).

Extension points: as ``base.CardPolicy``; ``AFFINITY`` is a class attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ..chips import popcount
from .base import CardPolicy, best_side_affinity

GROUP_SIZE = 8
NODE_CHIPS = 16
NO_FIT = 8


def _affinity_table() -> np.ndarray:
    table = np.full((GROUP_SIZE, GROUP_SIZE), NO_FIT, dtype=np.int64)
    for row in range(GROUP_SIZE):
        for col in range(row, GROUP_SIZE):
            table[row, col] = col - row
    return table


class Module910bx16Policy(CardPolicy):
    name: ClassVar[str] = "ascend910b-module-x16"
    handler_name: ClassVar[str] = "huawei.com/Ascend910module-910b-16"
    max_node_npu: ClassVar[int] = NODE_CHIPS
    max_card_npu: ClassVar[int] = GROUP_SIZE
    invalid_requests: ClassVar[frozenset[int]] = frozenset({9, 11, 13, 15})
    network_fault_attention: ClassVar[bool] = True

    AFFINITY: ClassVar[np.ndarray] = _affinity_table()

    @staticmethod
    def _groups(usable: np.ndarray, distributed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        masks = np.asarray(usable, dtype=np.uint64)
        low = masks & np.uint64(0xFF)
        high = masks >> np.uint64(GROUP_SIZE)
        left = popcount(low)
        right = popcount(high)
        aligned = popcount(low & (high & np.uint64(0xFF)))
        cross = np.minimum(left, right) * 2 if distributed else aligned * 2
        return left, right, cross

    def fits(self, request: int, usable: np.ndarray, distributed: bool) -> np.ndarray:
        left, right, cross = self._groups(usable, distributed)
        if request == NODE_CHIPS:
            return (left + right) == NODE_CHIPS
        if not self.valid_request(request):
            return np.zeros(len(left), dtype=bool)
        crossing = (request > GROUP_SIZE) & (request <= cross)
        return (left >= request) | (right >= request) | crossing

    def best_scores(
        self, request: int, usable: np.ndarray, distributed: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """``GetNodeBestScore``: the affinity score of each node and whether it is valid."""
        left, right, cross = self._groups(usable, distributed)
        total = left + right
        valid = (total >= 1) & (total <= NODE_CHIPS)
        size = len(left)
        if request == NODE_CHIPS:
            return np.zeros(size, dtype=np.int64), valid & (total == NODE_CHIPS)
        if not 1 <= request < NODE_CHIPS:
            return np.full(size, NO_FIT, dtype=np.int64), np.zeros(size, dtype=bool)
        if request > GROUP_SIZE:
            row = self.AFFINITY[request // 2 - 1]
            column = cross // 2 - 1
            best = np.where(column >= 0, row[np.clip(column, 0, GROUP_SIZE - 1)], NO_FIT)
        else:
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
        best, valid = self.best_scores(request, usable, distributed)
        free = popcount(usable)
        alloc = np.asarray(allocatable, dtype=np.int64)
        raw = self.max_node_npu * (alloc - best) + (self.max_node_npu - free)
        return np.where(valid, raw, 0).astype(np.float64)

    @staticmethod
    def cross_chips(left: list[int], right: list[int], distributed: bool) -> list[int]:
        """``getCrossHccsArray``: chips pairing the two groups (empty unless more than 8)."""
        cross: list[int] = []
        if distributed:
            for low, high in zip(left, right, strict=False):
                cross += [low, high]
        else:
            available = set(right)
            for low in left:
                if low + GROUP_SIZE in available:
                    cross += [low, low + GROUP_SIZE]
        return cross if len(cross) > GROUP_SIZE else []

    def select(self, request: int, usable: Sequence[int], distributed: bool) -> list[int] | None:
        chips = sorted(usable)
        if request == NODE_CHIPS:
            return chips if len(chips) == NODE_CHIPS else None
        if not self.valid_request(request):
            return None
        if request <= GROUP_SIZE:
            priority = list(range(request, GROUP_SIZE + 1))
        else:
            priority = list(range(request, NODE_CHIPS + 1, 2))
        left = [chip for chip in chips if chip < GROUP_SIZE]
        right = [chip for chip in chips if chip >= GROUP_SIZE]
        cross = self.cross_chips(left, right, distributed)
        for size in priority:
            if size == len(left):
                return left[:request]
            if size == len(right):
                return right[:request]
            if size == len(cross):
                return cross[:request]
        return None
