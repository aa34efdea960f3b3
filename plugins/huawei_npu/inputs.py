"""Reading the NPU inputs from Kubernetes objects: nodes, device-info ConfigMaps and pods.

Everything the plugin knows about chips comes from here:

* **Node** (``v1.Node``): allocatable ``huawei.com/Ascend910`` (or ``Ascend310P``, ``Ascend310``,
  ``npu``); label ``accelerator`` (e.g. ``huawei-Ascend910``: required on NPU nodes, as upstream's
  fault module skips nodes without it); annotation ``baseDeviceInfos`` (JSON: every chip of the
  node, ``{"Ascend910-0": {"IP": ..., "SuperDeviceID": 0}, ...}``); the device lists as
  annotations (``huawei.com/Ascend910``, ``-Unhealthy``, ``-NetworkUnhealthy``, ``-Recovering``,
  ``-Fault``); health annotations ``NodeHealthyStatus`` (noded) and ``NodeStatus`` (switch).
* **Device-info ConfigMaps**, both forms (their keys override the node's annotations):
  ClusterD's ``mindx-dl/cluster-info-device-<i>`` (data key = the ConfigMap's name, a JSON map
  ``mindx-dl-deviceinfo-<node> -> {DeviceList, UpdateTime, SuperPodID, RackID}``) and the device
  plugin's ``kube-system/mindx-dl-deviceinfo-<node>`` (key ``DeviceInfoCfg``: ``{DeviceInfo:
  {DeviceList, UpdateTime}, SuperPodID, RackID}``; key ``SwitchInfoCfg``: the switch status).
  When a node has both, ``useClusterInfoManager`` (default true) says which wins.
* **Node-info and switch-info ConfigMaps**: ``mindx-dl/cluster-info-node-cm`` (``mindx-dl-nodeinfo-
  <node> -> {FaultDevList, NodeStatus}``) or ``mindx-dl/mindx-dl-nodeinfo-<node>`` (key ``NodeInfo``),
  and ``mindx-dl/cluster-info-switch-<i>`` (``mindx-dl-switchinfo-<node> -> {NodeStatus, ...}``).
  ``NodeStatus`` of node-info becomes ``NodeHealthyStatus`` unless the node's annotation already
  says ``UnHealthy``; the switch's ``NodeStatus`` becomes ``NodeStatus``.
* **Pod**: annotation ``hccl/rankIndex`` (the rank; ignored on a Failed pod), else the suffix of label
  ``statefulset.kubernetes.io/pod-name``; the chips a pod holds: annotation ``huawei.com/AscendReal``,
  else ``huawei.com/<chip kind>`` (``huawei.com/Ascend910: "Ascend910-0,Ascend910-1"``).

Device lists are a snapshot, not the truth about occupancy: the free chips are recomputed at every
session open (``self-maintain-available-card``, the upstream default) from ``baseDeviceInfos``
minus the chips of the node's active pods, minus the Unhealthy and Recovering lists.

Spec: upstream ``plugin/node.go`` (``initNPUNodeByNodeInf``, ``syncAnnotation``,
``updateNPUNodeDeviceInfos``), ``common/k8s/cmmgr.go`` (``initNodeDeviceInfoByCmMgr`` and the
ConfigMap parsers), ``common/util/util.go`` (``GetNodeDevListFromAnno``, ``GetActivePodUsedDevFromNode``),
``plugin/job.go`` (``initNormalJobIndex``); shared/reference/ascend-npu-plugin.md §3.

Deliberate differences: ConfigMaps are read without their consumer labels (``mx-consumer-volcano``,
``mx-consumer-cim``); a malformed ConfigMap is skipped with a warning; a node's switch and noded
status may also come from its own annotations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fumarole.policies.chips import CHIP_PREFIXES, chip_prefix, is_npu_resource, parse_chip_list, to_mask
from fumarole.policies.fault.health import (
    NODE_HEALTHY_STATUS,
    SWITCH_NODE_STATUS,
    UNHEALTHY,
    NodeHealth,
    node_health,
)
from loguru import logger

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.cache.objects import ConfigMap

BASE_DEVICE_INFOS = "baseDeviceInfos"
ACCELERATOR_LABEL = "accelerator"
ACCELERATOR_TYPE_LABEL = "accelerator-type"
RANK_INDEX = "hccl/rankIndex"
STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"
ASCEND_REAL = "huawei.com/AscendReal"

DEVICE_INFO_NAMESPACE = "kube-system"
MINDX_NAMESPACE = "mindx-dl"
DEVICE_INFO_PREFIX = "mindx-dl-deviceinfo-"
NODE_INFO_PREFIX = "mindx-dl-nodeinfo-"
SWITCH_INFO_PREFIX = "mindx-dl-switchinfo-"
CLUSTER_DEVICE_INFO = "cluster-info-device-"
CLUSTER_NODE_INFO = "cluster-info-node-cm"
CLUSTER_SWITCH_INFO = "cluster-info-switch-"
DEVICE_INFO_KEY = "DeviceInfoCfg"
SWITCH_INFO_KEY = "SwitchInfoCfg"
NODE_INFO_KEY = "NodeInfo"

NO_SUPER_POD = -1


# ---------------------------------------------------------------------------------------- ConfigMaps
@dataclass(frozen=True)
class DeviceInfo:
    """One node's device list as a device-info ConfigMap reports it."""

    device_list: Mapping[str, str]
    update_time: int = 0
    super_pod_id: int = NO_SUPER_POD
    rack_id: int = NO_SUPER_POD
    source: str = ""
    from_cluster_d: bool = False


@dataclass(frozen=True)
class StatusInfo:
    """A node's status from a node-info (noded) or switch-info ConfigMap."""

    node_status: str = ""
    source: str = ""


@dataclass
class DeviceIndex:
    """The NPU ConfigMaps of the cluster, by node name."""

    devices: dict[str, DeviceInfo] = field(default_factory=dict)
    node_infos: dict[str, StatusInfo] = field(default_factory=dict)
    switch_infos: dict[str, StatusInfo] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _json(text: str) -> Any:
    if not text:
        return {}
    return json.loads(text)


def _int(value: object, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return default
    return default


def _device_list(raw: Any) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise ValueError("DeviceList must be a mapping")
    return {str(key): "" if value is None else str(value) for key, value in raw.items()}


def _cluster_device_infos(cm: ConfigMap) -> dict[str, DeviceInfo]:
    data = _json(cm.data.get(cm.metadata.name, ""))
    if not isinstance(data, Mapping):
        raise ValueError(f"key {cm.metadata.name} must hold a JSON object")
    out: dict[str, DeviceInfo] = {}
    for key, value in data.items():
        if not isinstance(value, Mapping):
            raise ValueError(f"{key} must be a JSON object")
        node = str(key).removeprefix(DEVICE_INFO_PREFIX)
        out[node] = DeviceInfo(
            device_list=_device_list(value.get("DeviceList") or {}),
            update_time=_int(value.get("UpdateTime"), 0),
            super_pod_id=_int(value.get("SuperPodID"), NO_SUPER_POD),
            rack_id=_int(value.get("RackID"), NO_SUPER_POD),
            source=cm.key,
            from_cluster_d=True,
        )
    return out


def _plugin_device_info(cm: ConfigMap) -> DeviceInfo | None:
    if DEVICE_INFO_KEY not in cm.data:
        return None
    data = _json(cm.data[DEVICE_INFO_KEY])
    if not isinstance(data, Mapping):
        raise ValueError(f"key {DEVICE_INFO_KEY} must hold a JSON object")
    info = data.get("DeviceInfo") or {}
    if not isinstance(info, Mapping):
        raise ValueError("DeviceInfo must be a JSON object")
    return DeviceInfo(
        device_list=_device_list(info.get("DeviceList") or {}),
        update_time=_int(info.get("UpdateTime"), 0),
        super_pod_id=_int(data.get("SuperPodID"), NO_SUPER_POD),
        rack_id=_int(data.get("RackID"), NO_SUPER_POD),
        source=cm.key,
    )


def _status_map(cm: ConfigMap, key: str, prefix: str) -> dict[str, StatusInfo]:
    data = _json(cm.data.get(key, ""))
    if not isinstance(data, Mapping):
        raise ValueError(f"key {key} must hold a JSON object")
    out: dict[str, StatusInfo] = {}
    for name, value in data.items():
        if isinstance(value, Mapping):
            out[str(name).removeprefix(prefix)] = StatusInfo(str(value.get("NodeStatus") or ""), cm.key)
    return out


def _single_status(cm: ConfigMap, key: str, inner: str | None) -> StatusInfo | None:
    if key not in cm.data:
        return None
    data = _json(cm.data[key])
    if inner is not None and isinstance(data, Mapping):
        data = data.get(inner) or {}
    if not isinstance(data, Mapping):
        raise ValueError(f"key {key} must hold a JSON object")
    return StatusInfo(str(data.get("NodeStatus") or ""), cm.key)


def build_device_index(
    config_maps: Mapping[str, ConfigMap], use_cluster_info_manager: bool = True
) -> DeviceIndex:
    """Parse every NPU ConfigMap once; later keys never silently lose to earlier ones (sorted)."""
    index = DeviceIndex()
    cluster: dict[str, DeviceInfo] = {}
    plugin: dict[str, DeviceInfo] = {}
    for key in sorted(config_maps):
        cm = config_maps[key]
        namespace, name = cm.metadata.namespace, cm.metadata.name
        try:
            if namespace == MINDX_NAMESPACE and name.startswith(CLUSTER_DEVICE_INFO):
                cluster.update(_cluster_device_infos(cm))
            elif namespace == DEVICE_INFO_NAMESPACE and name.startswith(DEVICE_INFO_PREFIX):
                node = name.removeprefix(DEVICE_INFO_PREFIX)
                found = _plugin_device_info(cm)
                if found is not None:
                    plugin[node] = found
                switch = _single_status(cm, SWITCH_INFO_KEY, None)
                if switch is not None:
                    index.switch_infos.setdefault(node, switch)
            elif namespace == MINDX_NAMESPACE and name == CLUSTER_NODE_INFO:
                index.node_infos.update(_status_map(cm, name, NODE_INFO_PREFIX))
            elif namespace == MINDX_NAMESPACE and name.startswith(NODE_INFO_PREFIX):
                status = _single_status(cm, NODE_INFO_KEY, "NodeInfo")
                if status is not None:
                    index.node_infos.setdefault(name.removeprefix(NODE_INFO_PREFIX), status)
            elif namespace == MINDX_NAMESPACE and name.startswith(CLUSTER_SWITCH_INFO):
                index.switch_infos.update(_status_map(cm, name, SWITCH_INFO_PREFIX))
        except (ValueError, TypeError) as exc:
            message = f"ConfigMap {key}: {exc}; ignored"
            index.problems.append(message)
            logger.warning("huawei-npu: {}", message)
    first, second = (cluster, plugin) if use_cluster_info_manager else (plugin, cluster)
    index.devices = {**second, **first}
    return index


# ---------------------------------------------------------------------------------------- nodes
@dataclass(frozen=True)
class BaseDevice:
    """One chip of ``baseDeviceInfos``."""

    ip: str = ""
    super_device_id: int = 0


@lru_cache(maxsize=4096)
def parse_base_device_infos(text: str, prefix: str) -> dict[int, BaseDevice] | None:
    """Chip ID -> IP / super device ID; None when the annotation is not a JSON object.

    Virtual NPUs (names with more than one ``-``, e.g. ``Ascend910-2c-100-0``) are skipped, as
    upstream's ``GetNodeDevListFromAnno`` does.
    """
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, Mapping):
        return None
    chips: dict[int, BaseDevice] = {}
    for name, value in data.items():
        if not isinstance(name, str) or name.count("-") != 1 or not name.startswith(prefix):
            continue
        try:
            chip = int(name.removeprefix(prefix))
        except ValueError:
            continue
        info = value if isinstance(value, Mapping) else {}
        chips[chip] = BaseDevice(str(info.get("IP") or ""), _int(info.get("SuperDeviceID"), 0))
    return chips


def node_npu_resource(node: NodeInfo) -> str:
    """The NPU resource a node offers ("" for a node without NPUs); known kinds first."""
    scalars = node.allocatable.scalars or {}
    for name in CHIP_PREFIXES:
        if scalars.get(name, 0) > 0:
            return name
    for name in sorted(scalars):
        if is_npu_resource(name) and scalars[name] > 0:
            return name
    return ""


def merged_annotations(
    annotations: Mapping[str, str],
    device: DeviceInfo | None,
    node_info: StatusInfo | None,
    switch: StatusInfo | None,
) -> dict[str, str]:
    """A node's annotations with its ConfigMaps' device lists and statuses laid over them."""
    merged = dict(annotations)
    if device is not None:
        merged.update(device.device_list)
    if node_info is not None and node_info.node_status and merged.get(NODE_HEALTHY_STATUS) != UNHEALTHY:
        merged[NODE_HEALTHY_STATUS] = node_info.node_status
    if switch is not None and switch.node_status:
        merged[SWITCH_NODE_STATUS] = switch.node_status
    return merged


@dataclass(frozen=True)
class NodeStatic:
    """What a node says about its chips, before looking at its pods (cached across sessions)."""

    resource: str
    prefix: str
    allocatable: int
    base_devices: Mapping[int, BaseDevice] | None
    total_mask: int
    listed_mask: int
    health: NodeHealth
    accelerator_ok: bool
    super_pod_id: int = NO_SUPER_POD
    rack_id: int = NO_SUPER_POD
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def has_base(self) -> bool:
        return self.base_devices is not None


MILLI = 1000.0


def read_node(
    node: NodeInfo,
    device: DeviceInfo | None,
    node_info: StatusInfo | None,
    switch: StatusInfo | None,
    *,
    self_maintain: bool = True,
) -> NodeStatic | None:
    """The static NPU view of a node; None for a node without an NPU resource."""
    resource = node_npu_resource(node)
    if not resource:
        return None
    prefix = chip_prefix(resource)
    annotations = merged_annotations(node.annotations, device, node_info, switch)
    base = (
        parse_base_device_infos(annotations[BASE_DEVICE_INFOS], prefix)
        if BASE_DEVICE_INFOS in annotations
        else None
    )
    listed = to_mask(parse_chip_list(annotations.get(resource, ""), prefix))
    health = node_health(annotations, resource, prefix)
    if self_maintain:
        total = to_mask(base) if base is not None else 0
    else:
        total = listed | to_mask(health.unhealthy_chips) | to_mask(health.recovering_chips)
    accelerator = node.labels.get(ACCELERATOR_LABEL, "")
    return NodeStatic(
        resource=resource,
        prefix=prefix,
        allocatable=int((node.allocatable.scalars or {}).get(resource, 0) / MILLI),
        base_devices=base,
        total_mask=total,
        listed_mask=listed,
        health=health,
        accelerator_ok="-" in accelerator,
        super_pod_id=device.super_pod_id if device is not None else NO_SUPER_POD,
        rack_id=device.rack_id if device is not None else NO_SUPER_POD,
        labels=dict(node.labels),
    )


# ---------------------------------------------------------------------------------------- pods
def pod_used_chips(annotations: Mapping[str, str], resource: str, prefix: str) -> tuple[int, ...]:
    """The chips a pod holds: ``huawei.com/AscendReal``, else ``<resource>``
    (``GetActivePodUsedDevFromNode``)."""
    real = annotations.get(ASCEND_REAL, "")
    if real:
        chips = parse_chip_list(real, prefix)
        if chips:
            return chips
    return parse_chip_list(annotations.get(resource, ""), prefix)


def pod_rank(annotations: Mapping[str, str], labels: Mapping[str, str]) -> str:
    """The rank a pod declares (``initNormalJobIndex``): its ``hccl/rankIndex``, else the suffix of
    its StatefulSet pod-name label; "" when it declares none."""
    rank = annotations.get(RANK_INDEX, "")
    if rank:
        return rank
    pod_name = labels.get(STATEFULSET_POD_NAME, "")
    if pod_name:
        return pod_name.rsplit("-", 1)[-1]
    return ""
