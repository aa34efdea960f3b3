"""Ascend 310P cards (``huawei.com/Ascend310P``, not the ``duo`` servers): upstream's fallback base
policy with up to 64 chips per node and no network-fault handling.

What it decides: everything of ``base.CardPolicy`` with ``max_node_npu = 64``: any request 1..64;
predicate: enough usable chips; score ``(64 − unhealthy) × 100 − usable``; the lowest free chips,
named ``Ascend310P-<id>``.

Spec: upstream ``internal/npu/factory.go`` ``init310PCardPolicyHandler`` (``base.New(Ascend310P,
WithAnnoPreVal("Ascend310P-"), WithMaxNodeNum(64))``); shared/reference/ascend-npu-plugin.md §2.0.

Deliberate difference: the unhealthy chips of the score are read from ``huawei.com/Ascend310P-
Unhealthy``; upstream reads ``huawei.com/Ascend910-Unhealthy`` for every non-``npu`` resource, so a
310P node never loses points there.

Extension points: as ``base.CardPolicy``.
"""

from __future__ import annotations

from typing import ClassVar

from ..chips import ASCEND_310P
from .base import CardPolicy


class Ascend310PPolicy(CardPolicy):
    name: ClassVar[str] = "ascend310p"
    handler_name: ClassVar[str] = "huawei.com/Ascend310P"
    resource: ClassVar[str] = ASCEND_310P
    max_node_npu: ClassVar[int] = 64
    max_card_npu: ClassVar[int] = 0
    network_fault_attention: ClassVar[bool] = False
