"""The base ("normal") card policy: how many chips a task may ask for, which nodes can hold it, how
nodes rank, and which chips it gets. Every card policy derives from ``CardPolicy``.

What it decides (upstream ``base.NPUHandler``):

* validation: every NPU task asks for ``1 .. max_node_npu`` chips, and not a number in
  ``invalid_requests``;
* predicate (``fits``): the node's usable chips (free, healthy; for a distributed job of a policy
  with ``network_fault_attention`` also not network-unhealthy) number at least the request;
* score (``scores``): ``(max_node_npu − unhealthy chips) × 100 − usable chips``. Fewer unhealthy
  chips win first, then fewer free chips (the fuller node: bin packing). A node with no usable chip
  scores 0;
* chips (``select``): the first ``request`` usable chips in ascending order.

Every method works on numpy arrays over candidate nodes: ``usable`` and ``unhealthy`` are ``uint64``
chip masks (bit ``i`` = chip ``i``), ``allocatable`` the node's allocatable chip count.

Spec: upstream ``component/ascend-for-volcano/internal/npu/base/{frame,node,task}.go``;
shared/reference/ascend-npu-plugin.md §2.1.

Extension points: subclass ``CardPolicy``, set the class attributes (``name`` = the entry-point
name, ``handler_name`` = upstream's handler name, ``resource``, ``max_node_npu``, ...), override
``fits`` / ``scores`` / ``select`` for a chip topology, and register the class in the
``fumarole.policies`` entry-point group; the ``huawei-npu`` plugin indexes every policy by its
``handler_name`` (``plugins/huawei_npu/policy_index.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np

from ..chips import ASCEND_910, chip_prefix, popcount

NODE_WEIGHT = 100.0
"""Upstream ``nodeWeight`` of the base policy's score."""


def best_side_affinity(row: np.ndarray, left: np.ndarray, right: np.ndarray, no_fit: int) -> np.ndarray:
    """The better (lower) affinity of the two halves of each node, from one row of an affinity table.

    ``row[k - 1]`` is the affinity of a half with ``k`` free chips; a half with none gives ``no_fit``.
    """
    size = len(row)
    by_left = np.where(left > 0, row[np.clip(left - 1, 0, size - 1)], no_fit)
    by_right = np.where(right > 0, row[np.clip(right - 1, 0, size - 1)], no_fit)
    return np.minimum(by_left, by_right)


class CardPolicy:
    """Base of the card policies; on its own, upstream's normal ``base.NPUHandler``."""

    name: ClassVar[str] = "ascend-base"
    handler_name: ClassVar[str] = "huawei.com/Ascend910"
    resource: ClassVar[str] = ASCEND_910
    max_node_npu: ClassVar[int] = 8
    max_card_npu: ClassVar[int] = 8
    invalid_requests: ClassVar[frozenset[int]] = frozenset()
    network_fault_attention: ClassVar[bool] = False

    @property
    def chip_prefix(self) -> str:
        return chip_prefix(self.resource)

    # ------------------------------------------------------------------ validation
    def valid_request(self, request: int) -> bool:
        """``IsVaildNpuNum`` with the lower bound of ``ValidNPUJob``."""
        return 1 <= request <= self.max_node_npu and request not in self.invalid_requests

    def validate_requests(self, requests: Mapping[str, int]) -> str:
        """Why a job's task requests are invalid ("" when they are valid); tasks by name."""
        for task_name in sorted(requests):
            request = requests[task_name]
            if not self.valid_request(request):
                invalid = sorted(self.invalid_requests)
                suffix = f" and not in {invalid}" if invalid else ""
                return (
                    f"task {task_name} requests {request} {self.resource}: policy {self.name} accepts "
                    f"1 to {self.max_node_npu} chips per task{suffix}"
                )
        return ""

    # ------------------------------------------------------------------ vectorised decisions
    def fits(self, request: int, usable: np.ndarray, distributed: bool) -> np.ndarray:
        """Which nodes can give the task its chips (``CheckNodeNPUByTask``)."""
        if not 1 <= request <= self.max_node_npu:
            return np.zeros(len(usable), dtype=bool)
        return popcount(usable) >= request

    def scores(
        self,
        request: int,
        usable: np.ndarray,
        unhealthy: np.ndarray,
        allocatable: np.ndarray,
        distributed: bool,
    ) -> np.ndarray:
        """Raw node scores before the previous-node preference and the fault penalties."""
        free = popcount(usable)
        valid = (free > 0) & (free <= self.max_node_npu)
        healthy = self.max_node_npu - popcount(unhealthy)
        return np.where(valid, healthy * NODE_WEIGHT - free, 0.0).astype(np.float64)

    def select(self, request: int, usable: Sequence[int], distributed: bool) -> list[int] | None:
        """The chips the task gets from the node's usable chips (ascending), None if impossible."""
        chips = sorted(usable)
        if len(chips) < request or not 1 <= request <= self.max_node_npu:
            return None
        return chips[:request]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"
