"""Super pods and racks of the simulated cluster: the ``SuperPodID`` / ``RackID`` the Ascend device
info publishes for each node of a node group with ``super_pod_size`` (and ``rack_size``).

What it decides: the nodes of such a group are cut, in name order, into physical super pods of
``super_pod_size`` nodes (the last one may be smaller); super-pod IDs count up across the groups in
workload order, so two groups never share one. Inside a super pod, racks are ``rack_size``
consecutive nodes (rack IDs restart at 0 in every super pod; without ``rack_size`` every node is in
rack 0). A group with only ``rack_size`` is one super pod per group cut into racks.

The result is ClusterD's ConfigMap ``mindx-dl/cluster-info-device-0`` (label
``mx-consumer-volcano: "true"``), one entry ``mindx-dl-deviceinfo-<node>`` per node with
``SuperPodID``, ``RackID``, ``UpdateTime`` and an empty ``DeviceList``: the simulated device lists
stay in the node annotations, where the fault injector writes them (a ConfigMap device list would
override them).

Spec: shared/reference/ascend-npu-plugin.md §3.4 (the ConfigMap's shape) and §5; issue 14.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fumarole.framework.cache.objects import ConfigMap

from .workload import NodeGroup

CONFIG_MAP_NAME = "cluster-info-device-0"
NAMESPACE = "mindx-dl"


def _placements(groups: Iterable[NodeGroup]) -> dict[str, tuple[int, int]]:
    """Node -> (super-pod ID, rack ID) for the groups with super pods or racks."""
    found: dict[str, tuple[int, int]] = {}
    next_id = 0
    for group in groups:
        if group.npu is None or (group.super_pod_size is None and group.rack_size is None):
            continue
        names = group.node_names()
        size = group.super_pod_size or len(names)
        for index, name in enumerate(names):
            position = index % size
            found[name] = (next_id + index // size, position // group.rack_size if group.rack_size else 0)
        next_id += -(-len(names) // size)
    return found


def super_pod_ids(groups: Iterable[NodeGroup]) -> dict[str, int]:
    """Node -> the physical super pod it is in (only the nodes of groups with super pods or racks)."""
    return {name: super_pod for name, (super_pod, _) in _placements(groups).items()}


def device_info_config_map(groups: Iterable[NodeGroup]) -> ConfigMap | None:
    """The device-info ConfigMap for the groups with super pods or racks (None when there are none)."""
    entries: dict[str, Any] = {
        f"mindx-dl-deviceinfo-{name}": {
            "DeviceList": {},
            "UpdateTime": 0,
            "SuperPodID": super_pod,
            "RackID": rack,
        }
        for name, (super_pod, rack) in _placements(groups).items()
    }
    if not entries:
        return None
    return ConfigMap.model_validate(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": CONFIG_MAP_NAME,
                "namespace": NAMESPACE,
                "labels": {"mx-consumer-volcano": "true"},
            },
            "data": {CONFIG_MAP_NAME: json.dumps(entries, separators=(",", ":"))},
        }
    )
