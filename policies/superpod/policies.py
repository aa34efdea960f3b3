"""The super-pod card policies: Atlas 900 A3 super pods (``module910SuperPod``, 16 or 8 chips per
node) and the 850 super pod (``chip8node8sp``, 8 chips per node). Their per-node rules live here;
their job-level choice of nodes (vSuperPods, two-level preference, ready-job scoring) is in the
other modules of this package and runs through the ``huawei-npu`` plugin's super-pod placement
(``plugins/huawei_npu/super_pods.py``).

What a policy decides:

* the job (``validate_job``): the sp-block (``topology.sp_block_nodes``); a single-task job asks
  for 1 or an even number up to the node's chips (A3; chip8node8sp: up to 8) and its sp-block
  equals its request; a distributed job's request is a multiple of the sp-block and every NPU task
  asks for the whole node;
* the node (``fits``): enough usable chips and, on A3, enough whole 2-die cards (``req > 1``:
  full cards × 2 >= req); the super-pod ID check (``>= 0``) is the plugin's;
* the chips (``select``): A3: for one chip the first die of the card with the fewest free dies,
  else whole cards in ascending order; chip8node8sp: the lowest chips;
* scores: none of their own (0): the plugin gives the rank's chosen node ``1e8`` (``ranks``).

Upstream handler names: ``huawei.com/Ascend910module-a3-16-super-pod`` (policy ``chip2-node16-sp``,
or an ``sp-block`` annotation), ``huawei.com/Ascend910module-a3-8-super-pod`` (``chip2-node8-sp``,
or ``sp-block`` with node selector ``accelerator-type: module-a3-8-super-pod``) and ``8p-8-sp``
(``chip8-node8-sp``, resource ``huawei.com/npu``).

Spec: upstream ``internal/npu/ascend910/ascend910a3/superpod/frame.go`` (``ValidNPUJob``,
``checkSpBlock``, ``checkRequireNPU``, ``CheckTaskNPU``, ``CheckNodeNPUByTask``),
``ascend910a3/frame.go`` (``JudgeNodeAndTaskNPU``, die selection),
``internal/npu/policy/chip8node8sp/frame.go``;
shared/reference/ascend-npu-plugin.md §2.4–2.6.

Deliberate difference: preemption and reclaim are not refused by the policy (upstream's
``Preemptable`` / ``Reclaimable`` always reject for super-pod jobs); the plugin's victim rules apply.

Extension points: as ``card.base.CardPolicy``; ``SuperPodPolicy`` is the marker the plugin looks for
(``node_npu_for_sp_block``, ``small_sp_block_is_one_node``, ``strict_block``, ``cap_super_pod_size``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np

from ..card.base import CardPolicy
from ..chips import ASCEND_910, NPU, popcount
from .topology import INVALID_RESOURCE_REQUEST, sp_block_nodes

A3_CARD = 2
_EVEN_BITS = np.uint64(0x5555_5555_5555_5555)
NPU_NUM_INVALID = "npu num is invalid"


class SuperPodPolicy(CardPolicy):
    """A card policy whose jobs are placed as vSuperPods of ``sp-block`` nodes."""

    name: ClassVar[str] = "superpod-base"
    small_sp_block_is_one_node: ClassVar[bool] = False
    strict_block: ClassVar[bool] = False
    cap_super_pod_size: ClassVar[bool] = False
    request_reason: ClassVar[str] = INVALID_RESOURCE_REQUEST

    def validate_requests(self, requests: Mapping[str, int]) -> str:
        return ""

    def sp_block(self, sp_block_npu: int, request: int, super_pod_size: int) -> tuple[int, str, str]:
        return sp_block_nodes(
            sp_block_npu, request, self.max_node_npu, super_pod_size, self.small_sp_block_is_one_node
        )

    def validate_job(
        self, request: int, sp_block_npu: int, task_requests: Mapping[str, int], super_pod_size: int
    ) -> tuple[str, str]:
        """``(reason, message)`` of an invalid job, ``("", "")`` when valid; tasks by name."""
        nodes, reason, message = self.sp_block(sp_block_npu, request, super_pod_size)
        if not nodes:
            return reason, message
        npu_tasks = {name: req for name, req in task_requests.items() if req > 0}
        if len(npu_tasks) == 1:
            if not self.valid_single_request(request):
                return self.request_reason, self.single_request_message(request)
            if request != sp_block_npu:
                return self.request_reason, self.single_sp_block_message(sp_block_npu, request)
            return "", ""
        if request % sp_block_npu:
            return (
                self.request_reason,
                f"distributed super-pod job require npu({request}) should be multiple of sp-block",
            )
        for name in sorted(npu_tasks):
            if npu_tasks[name] != self.max_node_npu:
                return self.request_reason, self.distributed_task_message(request, npu_tasks[name])
        return "", ""

    def valid_single_request(self, request: int) -> bool:
        return request == 1 or (request % A3_CARD == 0 and request <= self.max_node_npu)

    def single_request_message(self, request: int) -> str:
        return f"standalone super-pod job require npu [1, 2*n], instead of {request}"

    def single_sp_block_message(self, sp_block_npu: int, request: int) -> str:
        return (
            f"the sp-block<{sp_block_npu}> in annotations of standalone super-pod job should equal"
            f" to required npu num<{request}>"
        )

    def distributed_task_message(self, request: int, task_request: int) -> str:
        return (
            f"distributed super-pod job require npu({request}) should be equal to "
            f"node npu({self.max_node_npu})"
        )

    def scores(
        self,
        request: int,
        usable: np.ndarray,
        unhealthy: np.ndarray,
        allocatable: np.ndarray,
        distributed: bool,
    ) -> np.ndarray:
        return np.zeros(len(usable), dtype=np.float64)


class A3SuperPodX16Policy(SuperPodPolicy):
    """Atlas 900 A3 super pod, 16 dies per node (8 cards of 2)."""

    name: ClassVar[str] = "ascend910a3-superpod-x16"
    handler_name: ClassVar[str] = "huawei.com/Ascend910module-a3-16-super-pod"
    resource: ClassVar[str] = ASCEND_910
    max_node_npu: ClassVar[int] = 16
    max_card_npu: ClassVar[int] = A3_CARD
    network_fault_attention: ClassVar[bool] = True

    def fits(self, request: int, usable: np.ndarray, distributed: bool) -> np.ndarray:
        if not 1 <= request <= self.max_node_npu:
            return np.zeros(len(usable), dtype=bool)
        enough = popcount(usable) >= request
        if request == 1:
            return enough
        masks = np.asarray(usable, dtype=np.uint64)
        full_cards = popcount(masks & (masks >> np.uint64(1)) & _EVEN_BITS)
        return enough & (full_cards * A3_CARD >= request)

    def select(self, request: int, usable: Sequence[int], distributed: bool) -> list[int] | None:
        free = set(usable)
        cards = sorted({chip // A3_CARD for chip in free})
        if request == 1:
            if not cards:
                return None
            card = min(cards, key=lambda c: (sum(1 for d in (2 * c, 2 * c + 1) if d in free), c))
            return [min(d for d in (2 * card, 2 * card + 1) if d in free)]
        full = [c for c in cards if 2 * c in free and 2 * c + 1 in free]
        if request % A3_CARD or len(full) * A3_CARD < request:
            return None
        return [die for card in full[: request // A3_CARD] for die in (2 * card, 2 * card + 1)]


class A3SuperPodX8Policy(A3SuperPodX16Policy):
    """Atlas 900 A3 super pod, 8 dies per node (4 cards of 2)."""

    name: ClassVar[str] = "ascend910a3-superpod-x8"
    handler_name: ClassVar[str] = "huawei.com/Ascend910module-a3-8-super-pod"
    max_node_npu: ClassVar[int] = 8


class Chip8Node8SpPolicy(SuperPodPolicy):
    """The 850 super pod (``chip8-node8-sp``): 8 ``huawei.com/npu`` chips per node, no card rule."""

    name: ClassVar[str] = "chip8-node8-sp"
    handler_name: ClassVar[str] = "8p-8-sp"
    resource: ClassVar[str] = NPU
    max_node_npu: ClassVar[int] = 8
    max_card_npu: ClassVar[int] = 8
    network_fault_attention: ClassVar[bool] = True
    small_sp_block_is_one_node: ClassVar[bool] = True
    strict_block: ClassVar[bool] = True
    cap_super_pod_size: ClassVar[bool] = True
    request_reason: ClassVar[str] = NPU_NUM_INVALID

    def valid_single_request(self, request: int) -> bool:
        return 1 <= request <= self.max_node_npu

    def single_request_message(self, request: int) -> str:
        return f"single super-pod job require npu [1, 2*n], instead of {request}"

    def single_sp_block_message(self, sp_block_npu: int, request: int) -> str:
        return "single super-pod job sp-block annotation should equal require npu num"

    def distributed_task_message(self, request: int, task_request: int) -> str:
        return f"distributed super-pod job require npu 8*n, instead of {task_request}"
