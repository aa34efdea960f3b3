"""A node's NPU health, read from its annotations merged with its device-info ConfigMaps.

What it decides, per node:

* ``unhealthy`` (a hard fault): annotation ``NodeHealthyStatus`` (written by noded, or taken from the
  node-info ConfigMap) is ``UnHealthy``, or the switch status ``NodeStatus`` is ``UnHealthy``. No
  task may go there;
* ``pre_separate``: ``NodeHealthyStatus`` is ``PreSeparate``. No task may go there;
* ``sub_healthy``: a chip fault with ``fault_handling: SubHealthFault`` in ``<resource>-Fault``, or
  the switch status ``SubHealthy``. The node stays usable; it scores 1 less (after the previous-node
  preference), and jobs whose ``subHealthyStrategy`` label is not ``ignore`` may not go there;
* the chip lists ``<resource>-Unhealthy`` (each such chip is unusable), ``-NetworkUnhealthy``
  (unusable by distributed jobs; the key must exist for them) and ``-Recovering`` (unusable).

Spec: upstream ``internal/rescheduling/node.go`` (``updateFaultNodesFromDeviceInfo``,
``updateFaultNodesAttr``), ``reschedule.go`` (``checkNodeCurNodeIsFault``), ``common/util/type.go``
(keys and values).

Extension points: ``node_health`` takes any mapping of annotations, so a caller may merge other
sources first; ``NodeHealth`` is a frozen dataclass a caller may extend.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from ..chips import parse_chip_list

NODE_HEALTHY_STATUS = "NodeHealthyStatus"
"""Annotation (noded / node-info ConfigMap): Healthy, SubHealthy, UnHealthy or PreSeparate."""
SWITCH_NODE_STATUS = "NodeStatus"
"""Annotation (switch-info ConfigMap): Healthy, SubHealthy or UnHealthy."""
UNHEALTHY = "UnHealthy"
SUB_HEALTHY = "SubHealthy"
PRE_SEPARATE = "PreSeparate"
SUB_HEALTH_FAULT = "SubHealthFault"

UNHEALTHY_SUFFIX = "-Unhealthy"
NETWORK_UNHEALTHY_SUFFIX = "-NetworkUnhealthy"
RECOVERING_SUFFIX = "-Recovering"
FAULT_SUFFIX = "-Fault"


@dataclass(frozen=True)
class NodeHealth:
    unhealthy: bool = False
    pre_separate: bool = False
    card_sub_healthy: bool = False
    switch_sub_healthy: bool = False
    unhealthy_chips: tuple[int, ...] = ()
    network_unhealthy_chips: tuple[int, ...] = ()
    recovering_chips: tuple[int, ...] = ()
    has_network_unhealthy_key: bool = False
    reasons: tuple[str, ...] = field(default=(), compare=False)

    @property
    def sub_healthy(self) -> bool:
        return self.card_sub_healthy or self.switch_sub_healthy


@lru_cache(maxsize=4096)
def _has_sub_health_fault(text: str) -> bool:
    if not text:
        return False
    try:
        faults = json.loads(text)
    except ValueError:
        return False
    if not isinstance(faults, list):
        return False
    return any(
        isinstance(fault, dict) and fault.get("fault_handling") == SUB_HEALTH_FAULT for fault in faults
    )


def node_health(annotations: Mapping[str, str], resource: str, prefix: str) -> NodeHealth:
    """The health of a node whose NPU resource is ``resource`` (chip names ``<prefix><id>``)."""
    reasons: list[str] = []
    noded = annotations.get(NODE_HEALTHY_STATUS, "")
    switch = annotations.get(SWITCH_NODE_STATUS, "")
    unhealthy = noded == UNHEALTHY or switch == UNHEALTHY
    if noded == UNHEALTHY:
        reasons.append(f"{NODE_HEALTHY_STATUS}={UNHEALTHY}")
    if switch == UNHEALTHY:
        reasons.append(f"switch {SWITCH_NODE_STATUS}={UNHEALTHY}")
    card_sub = _has_sub_health_fault(annotations.get(resource + FAULT_SUFFIX, ""))
    switch_sub = not unhealthy and switch == SUB_HEALTHY
    network_key = resource + NETWORK_UNHEALTHY_SUFFIX
    return NodeHealth(
        unhealthy=unhealthy,
        pre_separate=noded == PRE_SEPARATE,
        card_sub_healthy=card_sub,
        switch_sub_healthy=switch_sub,
        unhealthy_chips=parse_chip_list(annotations.get(resource + UNHEALTHY_SUFFIX, ""), prefix),
        network_unhealthy_chips=parse_chip_list(annotations.get(network_key, ""), prefix),
        recovering_chips=parse_chip_list(annotations.get(resource + RECOVERING_SUFFIX, ""), prefix),
        has_network_unhealthy_key=network_key in annotations,
        reasons=tuple(reasons),
    )
