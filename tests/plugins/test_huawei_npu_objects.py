"""Builders of real-looking Ascend objects for the ``huawei-npu`` tests (shared by the
``test_huawei_npu*`` modules), after the YAML sketch of shared/reference/ascend-npu-plugin.md §8,
and the tests of the input readers (``plugins/huawei_npu/inputs.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest
from fumarole.framework.cache.objects import ConfigMap, Node, Pod, PodGroup
from fumarole.framework.conf import Configuration, PluginOption, SchedulerConf, Tier
from fumarole.framework.session import Session
from fumarole.plugins.huawei_npu import HuaweiNpuPlugin
from fumarole.plugins.huawei_npu.handler import HANDLER_KEY, ScheduleHandler
from fumarole.plugins.huawei_npu.inputs import (
    BaseDevice,
    build_device_index,
    merged_annotations,
    parse_base_device_infos,
    pod_rank,
    pod_used_chips,
    read_node,
)
from fumarole.policies.chips import ASCEND_310P, ASCEND_910, chip_prefix, format_chip_list
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

NS = "default"
RANK = "hccl/rankIndex"


def chip_names(chips: Iterable[int], resource: str = ASCEND_910) -> str:
    return format_chip_list(chips, chip_prefix(resource))


def base_device_infos(chips: Iterable[int], resource: str = ASCEND_910, subnet: int = 0) -> str:
    prefix = chip_prefix(resource)
    return json.dumps(
        {f"{prefix}{chip}": {"IP": f"10.0.{subnet}.{10 + chip}", "SuperDeviceID": chip} for chip in chips},
        separators=(",", ":"),
    )


def npu_node(
    name: str,
    chips: int = 8,
    *,
    resource: str = ASCEND_910,
    accelerator_type: str | None = "module-910b-8",
    accelerator: str | None = None,
    unhealthy: Sequence[int] = (),
    network_unhealthy: Sequence[int] | None = (),
    recovering: Sequence[int] = (),
    faults: Sequence[Mapping[str, str]] = (),
    device_list: Sequence[int] | None = None,
    base: bool = True,
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    ready: bool | None = None,
    subnet: int = 0,
) -> Node:
    """An NPU node as the Ascend device plugin leaves it: capacity, labels, baseDeviceInfos and the
    device lists as annotations (``network_unhealthy=None`` leaves the key out)."""
    kind = resource.removeprefix("huawei.com/")
    node_labels = {"accelerator": accelerator if accelerator is not None else f"huawei-{kind}"}
    if accelerator_type is not None:
        node_labels["accelerator-type"] = accelerator_type
    node_labels.update(labels or {})
    listed = list(range(chips)) if device_list is None else list(device_list)
    node_annotations: dict[str, str] = {
        resource: chip_names([c for c in listed if c not in unhealthy], resource),
        f"{resource}-Unhealthy": chip_names(unhealthy, resource),
        f"{resource}-Recovering": chip_names(recovering, resource),
        f"{resource}-Fault": json.dumps(list(faults)),
    }
    if network_unhealthy is not None:
        node_annotations[f"{resource}-NetworkUnhealthy"] = chip_names(network_unhealthy, resource)
    if base:
        node_annotations["baseDeviceInfos"] = base_device_infos(range(chips), resource, subnet)
    node_annotations.update(annotations or {})
    allocatable = {"cpu": "192", "memory": "1536Gi", "pods": "110", resource: str(chips)}
    return build_node(name, allocatable, labels=node_labels, annotations=node_annotations, ready=ready)


def npu_pod_group(
    name: str,
    chips: int,
    *,
    min_member: int = 1,
    owner_uid: str | None = None,
    uid: str | None = None,
    resource: str = ASCEND_910,
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    priority_class: str = "",
    queue: str = "default",
    phase: str = "Inqueue",
    namespace: str = NS,
) -> PodGroup:
    return build_pod_group(
        namespace,
        name,
        min_member=min_member,
        min_resources={resource: str(chips)},
        owner_uid=owner_uid,
        uid=uid,
        annotations=annotations,
        labels=labels,
        priority_class=priority_class,
        queue=queue,
        phase=phase,
    )


def npu_pod(
    name: str,
    group: str,
    chips: int,
    *,
    rank: int | None = None,
    node: str = "",
    phase: str = "Pending",
    uid: str | None = None,
    resource: str = ASCEND_910,
    used: Sequence[int] | None = None,
    accelerator_type: str | None = "module-910b-8",
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    priority_class: str = "",
    priority: int | None = None,
    deleting: bool = False,
    namespace: str = NS,
    scheduler_name: str = "",
) -> Pod:
    """A pod of an NPU job; ``used`` writes the chip annotations a bound pod carries."""
    pod_annotations: dict[str, str] = dict(annotations or {})
    if rank is not None:
        pod_annotations[RANK] = str(rank)
    if used is not None:
        pod_annotations[resource] = chip_names(used, resource)
    selector = {"accelerator-type": accelerator_type} if accelerator_type is not None else {}
    return build_pod(
        namespace,
        name,
        requests={"cpu": "4", "memory": "16Gi", resource: str(chips)},
        node=node,
        phase=phase,
        group=group,
        uid=uid,
        annotations=pod_annotations,
        labels=labels,
        node_selector=selector,
        priority_class=priority_class,
        priority=priority,
        deleting=deleting,
        scheduler_name=scheduler_name,
    )


def cluster_device_cm(
    device_lists: Mapping[str, Mapping[str, str]], index: int = 0, **extra: Any
) -> ConfigMap:
    """ClusterD's ``mindx-dl/cluster-info-device-<index>``: node -> DeviceList."""
    name = f"cluster-info-device-{index}"
    payload = {
        f"mindx-dl-deviceinfo-{node}": {"DeviceList": dict(devices), "UpdateTime": 1755700000, **extra}
        for node, devices in device_lists.items()
    }
    return ConfigMap.model_validate(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "mindx-dl", "labels": {"mx-consumer-volcano": "true"}},
            "data": {name: json.dumps(payload)},
        }
    )


def plugin_device_cm(node: str, devices: Mapping[str, str], switch_status: str | None = None) -> ConfigMap:
    """The device plugin's ``kube-system/mindx-dl-deviceinfo-<node>``."""
    data = {
        "DeviceInfoCfg": json.dumps({"DeviceInfo": {"DeviceList": dict(devices), "UpdateTime": 1755700000}})
    }
    if switch_status is not None:
        data["SwitchInfoCfg"] = json.dumps({"FaultCode": [], "FaultLevel": "", "NodeStatus": switch_status})
    return ConfigMap.model_validate(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"mindx-dl-deviceinfo-{node}", "namespace": "kube-system"},
            "data": data,
        }
    )


def npu_conf(
    *,
    prefer: bool | None = True,
    actions: str = "noop",
    init_params: Mapping[str, Any] | None = None,
    arguments: Mapping[str, Any] | None = None,
    name: str = "huawei-npu",
    extra: Sequence[PluginOption] = (),
) -> SchedulerConf:
    params: dict[str, Any] = dict(init_params or {})
    if prefer is not None:
        params.setdefault("prefer-previous-node", "true" if prefer else "false")
    return SchedulerConf(
        actions=actions,
        tiers=[Tier(plugins=[*extra, PluginOption.all_enabled(name, arguments=dict(arguments or {}))])],
        configurations=[Configuration(name="init-params", arguments=params)],
    )


def harness(objects: Sequence[Any], conf: SchedulerConf | None = None, **kwargs: Any) -> Harness:
    return Harness(
        [build_queue("default"), *objects],
        conf if conf is not None else npu_conf(),
        plugins={"huawei-npu": HuaweiNpuPlugin, **kwargs.pop("plugins", {})},
        **kwargs,
    )


def handler_of(ssn: Session) -> ScheduleHandler:
    return ssn.persistent(HANDLER_KEY, ScheduleHandler)


# ---------------------------------------------------------------------------------------- input readers
def test_base_device_infos_skip_virtual_npus_and_other_kinds() -> None:
    text = json.dumps(
        {
            "Ascend910-0": {"IP": "10.0.0.10", "SuperDeviceID": 3},
            "Ascend910-1": {"IP": "10.0.0.11"},
            "Ascend910-2c-100-0": {"IP": ""},
            "Ascend310P-0": {"IP": ""},
        }
    )
    assert parse_base_device_infos(text, "Ascend910-") == {
        0: BaseDevice("10.0.0.10", 3),
        1: BaseDevice("10.0.0.11", 0),
    }
    assert parse_base_device_infos("not json", "Ascend910-") is None


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        pytest.param(
            {"huawei.com/AscendReal": "Ascend910-4,Ascend910-5", ASCEND_910: "Ascend910-0"}, (4, 5), id="real"
        ),
        pytest.param({ASCEND_910: "Ascend910-0,Ascend910-1"}, (0, 1), id="resource-annotation"),
        pytest.param({ASCEND_910: "Ascend910-0,oops"}, (), id="unparsable-list-is-empty"),
        pytest.param({}, (), id="none"),
    ],
)
def test_pod_used_chips(annotations: dict[str, str], expected: tuple[int, ...]) -> None:
    assert pod_used_chips(annotations, ASCEND_910, "Ascend910-") == expected


@pytest.mark.parametrize(
    ("annotations", "labels", "expected"),
    [
        pytest.param(
            {RANK: "3"}, {"statefulset.kubernetes.io/pod-name": "infer-7"}, "3", id="annotation-first"
        ),
        pytest.param({}, {"statefulset.kubernetes.io/pod-name": "infer-7"}, "7", id="statefulset-suffix"),
        pytest.param({}, {}, "", id="none"),
    ],
)
def test_pod_rank(annotations: dict[str, str], labels: dict[str, str], expected: str) -> None:
    assert pod_rank(annotations, labels) == expected


def test_both_device_info_forms_are_read_and_cluster_d_wins_by_default() -> None:
    cluster = cluster_device_cm(
        {"n1": {ASCEND_910: "Ascend910-0", f"{ASCEND_910}-Unhealthy": "Ascend910-1"}}, SuperPodID=4, RackID=2
    )
    plugin = plugin_device_cm(
        "n1", {ASCEND_910: "Ascend910-7", f"{ASCEND_910}-Unhealthy": ""}, switch_status="SubHealthy"
    )
    maps = {cluster.key: cluster, plugin.key: plugin}
    index = build_device_index(maps, use_cluster_info_manager=True)
    assert index.devices["n1"].device_list[f"{ASCEND_910}-Unhealthy"] == "Ascend910-1"
    assert (index.devices["n1"].super_pod_id, index.devices["n1"].rack_id) == (4, 2)
    assert index.switch_infos["n1"].node_status == "SubHealthy"
    other = build_device_index(maps, use_cluster_info_manager=False)
    assert other.devices["n1"].device_list[ASCEND_910] == "Ascend910-7"


def test_malformed_config_map_is_reported_and_skipped() -> None:
    bad = ConfigMap.model_validate(
        {
            "kind": "ConfigMap",
            "metadata": {"name": "cluster-info-device-1", "namespace": "mindx-dl"},
            "data": {"cluster-info-device-1": "[1, 2"},
        }
    )
    index = build_device_index({bad.key: bad})
    assert index.devices == {}
    assert len(index.problems) == 1
    assert index.problems[0].startswith("ConfigMap mindx-dl/cluster-info-device-1: ")


def test_node_info_status_overrides_annotation_unless_unhealthy() -> None:
    from fumarole.plugins.huawei_npu.inputs import StatusInfo

    merged = merged_annotations({"NodeHealthyStatus": "Healthy"}, None, StatusInfo("UnHealthy"), None)
    assert merged["NodeHealthyStatus"] == "UnHealthy"
    kept = merged_annotations({"NodeHealthyStatus": "UnHealthy"}, None, StatusInfo("Healthy"), None)
    assert kept["NodeHealthyStatus"] == "UnHealthy"


def test_read_node_takes_every_chip_from_base_device_infos() -> None:
    from fumarole.framework.api.node_info import NodeInfo

    node = NodeInfo(npu_node("n1", unhealthy=[2], recovering=[3], network_unhealthy=[5], device_list=[0]))
    static = read_node(node, None, None, None)
    assert static is not None
    assert (static.resource, static.allocatable, static.total_mask) == (ASCEND_910, 8, 0xFF)
    assert static.health.unhealthy_chips == (2,)
    assert static.health.recovering_chips == (3,)
    assert static.health.network_unhealthy_chips == (5,)
    listed = read_node(node, None, None, None, self_maintain=False)
    assert listed is not None
    assert listed.total_mask == 0b1101  # the listed chip 0 plus the Unhealthy 2 and Recovering 3
    plain = NodeInfo(build_node("cpu", {"cpu": "8", "pods": "10"}))
    assert read_node(plain, None, None, None) is None
    p310 = read_node(
        NodeInfo(npu_node("p", 4, resource=ASCEND_310P, accelerator_type=None)), None, None, None
    )
    assert p310 is not None
    assert (p310.resource, p310.prefix, p310.total_mask) == (ASCEND_310P, "Ascend310P-", 0xF)
