"""Ascend 910B module with 8 chips per node (``accelerator-type: module-910b-8``, or policy
``chip8-node8``): upstream's base policy with 8 chips per node and per card, network-fault aware.

What it decides: everything of ``base.CardPolicy`` (any request 1..8; predicate: enough usable
chips; score ``(8 − unhealthy) × 100 − usable``; the lowest free chips). For distributed jobs the
node must carry the ``huawei.com/Ascend910-NetworkUnhealthy`` key (possibly empty) and its chips are
unusable.

Spec: upstream ``internal/npu/factory.go`` (``module910bx8Name`` built by ``base.New`` with
``WithMaxNodeNum(8)``, ``WithMaxCardNum(8)``, ``WithNetworkFault(true)``);
shared/reference/ascend-npu-plugin.md §2.0–2.1.

Extension points: as ``base.CardPolicy``.
"""

from __future__ import annotations

from typing import ClassVar

from .base import CardPolicy


class Module910bx8Policy(CardPolicy):
    name: ClassVar[str] = "ascend910b-module-x8"
    handler_name: ClassVar[str] = "huawei.com/Ascend910module-910b-8"
    max_node_npu: ClassVar[int] = 8
    max_card_npu: ClassVar[int] = 8
    network_fault_attention: ClassVar[bool] = True
