"""The simulated cluster's super pods and racks: node groups with ``super_pod_size`` / ``rack_size``
publish ``SuperPodID`` / ``RackID`` in ClusterD's device-info ConfigMap, which the ``huawei-npu``
plugin reads as on a real cluster."""

from __future__ import annotations

import json
from typing import Any

from fumarole.framework.settings import Settings
from fumarole.plugins.huawei_npu.inputs import build_device_index
from fumarole.simulator.cluster import SimCluster
from fumarole.simulator.super_pods import device_info_config_map
from fumarole.simulator.workload import NodeGroup, Workload

NPU = {"resource": "huawei.com/Ascend910", "chips": 16, "accelerator_type": "module-a3-16-super-pod"}


def group(name: str, count: int, **extra: Any) -> NodeGroup:
    return NodeGroup.model_validate(
        {"name": name, "count": count, "resources": {"cpu": "8"}, "npu": NPU, **extra}
    )


def ids(groups: list[NodeGroup]) -> dict[str, tuple[int, int]]:
    config_map = device_info_config_map(groups)
    assert config_map is not None
    entries = json.loads(config_map.data["cluster-info-device-0"])
    return {
        key.removeprefix("mindx-dl-deviceinfo-"): (value["SuperPodID"], value["RackID"])
        for key, value in entries.items()
    }


def test_super_pods_count_up_across_groups_and_racks_restart_in_each() -> None:
    groups = [
        group("a", 5, super_pod_size=2, rack_size=1),
        group("plain", 1),
        group("b", 2, super_pod_size=4),
    ]
    assert ids(groups) == {
        "a-00": (0, 0),
        "a-01": (0, 1),
        "a-02": (1, 0),
        "a-03": (1, 1),
        "a-04": (2, 0),
        "b-00": (3, 0),
        "b-01": (3, 0),
    }


def test_no_config_map_without_super_pods_or_racks() -> None:
    assert device_info_config_map([group("plain", 2)]) is None


def test_the_plugin_reads_the_ids_and_keeps_the_node_annotations_device_lists() -> None:
    workload = Workload.model_validate(
        {"cluster": {"node_groups": [group("a", 2, super_pod_size=1).model_dump()]}, "images": []}
    )
    cluster = SimCluster(workload, Settings())
    index = build_device_index(dict(cluster.cache.config_maps))
    assert {name: info.super_pod_id for name, info in index.devices.items()} == {"a-00": 0, "a-01": 1}
    assert all(info.device_list == {} for info in index.devices.values())
